"""Argument types shared by commands: sizes and counts that fail with one clear line."""

from __future__ import annotations

import argparse

from foretune.errors import UsageError
from foretune.units import parse_size


def size(text: str) -> int:
    """argparse type for RAM: ``64G``, ``64GiB``, ``65536M``; plain numbers are GiB."""
    try:
        return parse_size(text, default_unit="G")
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def count(text: str) -> int:
    """argparse type for a whole number >= 0."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text}")
    return value


def positive(text: str) -> int:
    """argparse type for a whole number >= 1."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value
