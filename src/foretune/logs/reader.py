"""Open plain, gzip, xz or bzip2 logs by their magic bytes and yield raw lines; damage becomes a problem line."""

from __future__ import annotations

import bz2
import gzip
import lzma
import zlib
from collections.abc import Iterator
from typing import IO

MAGIC = ((b"\x1f\x8b", "gz"), (b"\xfd7zXZ\x00", "xz"), (b"BZh", "bz2"))
READ_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError, ValueError)


def compression(head: bytes) -> str | None:
    """``'gz'``, ``'xz'``, ``'bz2'`` or None for the first bytes of a file.

    >>> compression(b"\\x1f\\x8b\\x08"), compression(b"2024-01-01")
    ('gz', None)
    """
    for magic, name in MAGIC:
        if head.startswith(magic):
            return name
    return None


def wrap(raw: IO[bytes], head: bytes) -> IO[bytes]:
    """``raw`` decompressed according to ``head`` (its first bytes, not consumed)."""
    kind = compression(head)
    if kind == "gz":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if kind == "xz":
        return lzma.LZMAFile(raw, mode="rb")
    if kind == "bz2":
        return bz2.BZ2File(raw, mode="rb")
    return raw


def open_log(path: str) -> IO[bytes]:
    """A binary stream of the decompressed file at ``path`` (closing it closes the file)."""
    with open(path, "rb") as handle:
        kind = compression(handle.read(6))
    if kind == "gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if kind == "xz":
        return lzma.open(path, "rb")
    if kind == "bz2":
        return bz2.open(path, "rb")
    return open(path, "rb")


def byte_range(path: str, start: int, end: int) -> Iterator[bytes]:
    """Lines of a plain file whose first byte lies in ``[start, end)``."""
    with open(path, "rb") as handle:
        if start:
            handle.seek(start - 1)
            if handle.read(1) != b"\n":
                handle.readline()  # finish the line the previous range owns
        pos = handle.tell()
        while pos < end:
            line = handle.readline()
            if not line:
                break
            pos += len(line)
            yield line


BLOCK_BYTES = 256 * 1024


def blocks(stream: IO[bytes], size: int | None = None) -> Iterator[bytes]:
    """``stream`` in blocks of whole lines (about ``size`` bytes each); only the last may lack a line end."""
    size = size or BLOCK_BYTES
    carry = b""
    while True:
        block = stream.read(size)
        if not block:
            break
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            carry += block
            continue
        head = block[:cut] if cut < len(block) else block
        yield carry + head if carry else head
        carry = block[cut:]
    if carry:
        yield carry


def range_blocks(path: str, start: int, end: int, size: int | None = None) -> Iterator[bytes]:
    """:func:`byte_range`'s lines, in blocks of whole lines (the last line of the range is read to its end)."""
    size = size or BLOCK_BYTES
    with open(path, "rb") as handle:
        if start:
            handle.seek(start - 1)
            if handle.read(1) != b"\n":
                handle.readline()  # finish the line the previous range owns
        pos = handle.tell()
        while pos < end:
            block = handle.read(min(size, end - pos))
            if not block:
                break
            pos += len(block)
            if not block.endswith(b"\n"):
                rest = handle.readline()  # the line that starts before ``end`` ends after it
                pos += len(rest)
                block += rest
            yield block

