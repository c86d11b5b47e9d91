"""Argument types shared by commands: sizes and counts that fail with one clear line."""

from __future__ import annotations

import argparse

from foretune.errors import UsageError
from foretune.units import parse_size

MAX_COUNT = 10_000_000  # foretune estimate: far beyond the largest documented deployments (60,001+ hosts profile)
MIN_RAM = 256 * 1024**2  # no Foreman component starts in less
MAX_RAM = 1024**5  # 1 PiB


def size(text: str) -> int:
    """argparse type for RAM: ``64G``, ``64GiB``, ``65536M``; plain numbers are GiB."""
    try:
        value = parse_size(text, default_unit="G")
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not MIN_RAM <= value <= MAX_RAM:
        raise argparse.ArgumentTypeError(f"{text!r} is not a plausible amount of RAM (256M to 1024T)")
    return value


def _whole(text: str) -> int:
    digits = text.replace("_", "")
    if not (digits.isascii() and digits.lstrip("-").isdigit()) or len(digits) > 12:
        if digits.isascii() and digits.isdigit():
            raise argparse.ArgumentTypeError(f"{text[:40]} is not plausible: at most {MAX_COUNT}")
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}")
    value = int(digits)
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text} is not plausible: at most {MAX_COUNT}")
    return value


def count(text: str) -> int:
    """argparse type for a whole number >= 0 (ASCII digits, at most MAX_COUNT)."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text}")
    return value


def positive(text: str) -> int:
    """argparse type for a whole number >= 1 (ASCII digits, at most MAX_COUNT)."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value
