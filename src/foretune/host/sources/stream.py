"""Decompress a gzip, xz or bzip2 file as a stream, with integrity checked and truncation reported.

``tarfile``'s own stream mode neither checks the gzip CRC nor notices a compressed stream that
simply stops; this reader does both (raising :class:`Truncated` or :class:`Corrupt`) and never
holds more than about one megabyte of output at a time, whatever the compression ratio.
"""

from __future__ import annotations

import bz2
import lzma
import os
import shutil
import subprocess
import zlib
from typing import Any, BinaryIO, cast

IN_CHUNK = 256 * 1024
OUT_CHUNK = 1024 * 1024
HOLD_BACK = 64
MAGIC = {b"\x1f\x8b": "gz", b"\xfd7zXZ\x00": "xz", b"BZh": "bz2", b"\x5d\x00\x00": "xz"}


class Truncated(EOFError):
    """The compressed data ends before its end-of-stream marker."""


class Corrupt(ValueError):
    """The decompressor found damage (CRC mismatch, invalid data)."""


def compression(head: bytes) -> str:
    """``gz``, ``xz``, ``bz2`` or ``""`` (not compressed) from the first bytes of a file.

    >>> compression(b"\\x1f\\x8b\\x08"), compression(b"\\xfd7zXZ\\x00\\x00"), compression(b"ustar")
    ('gz', 'xz', '')
    """
    for magic, kind in MAGIC.items():
        if head.startswith(magic):
            return kind
    return ""


class Decompressed:
    """A ``read(n)`` stream of the decompressed bytes of ``handle``."""

    def __init__(self, handle: BinaryIO, kind: str) -> None:
        self.handle = handle
        self.kind = kind
        self.dec: Any = self._new()
        self.feed = b""
        self.tail = b""
        self.buf = b""
        self.pos = 0
        self.finished = False
        self.total = 0
        self.error: Exception | None = None  # raised on the next read, once the data before it is delivered
        self.failed: Exception | None = None  # the damage once raised: every later read raises it too
        self.span = (0, 0)  # the compressed bytes (offsets in the file) last given to the decompressor
        self.verified = 0  # bz2: where the input that gave the last output began (a damaged block starts after it)

    def _new(self) -> Any:
        if self.kind == "gz":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        if self.kind == "xz":
            return lzma.LZMADecompressor()
        return bz2.BZ2Decompressor()

    def _input(self) -> bytes:
        """More compressed input. The file's last bytes (checksums, index, footer) are held back and
        given alone, so that a checksum error comes after all the data before it was decompressed."""
        if self.feed:
            data, self.feed = self.feed, b""
            return data
        while True:
            chunk = self.handle.read(IN_CHUNK)
            if not chunk:
                data, self.tail = self.tail, b""
                return self._given(data)
            data = self.tail + chunk
            if len(data) > HOLD_BACK:
                self.tail = data[-HOLD_BACK:]
                return self._given(data[:-HOLD_BACK])
            self.tail = data

    def _given(self, data: bytes) -> bytes:
        try:
            end = self.handle.tell() - len(self.tail)
        except (OSError, AttributeError, ValueError):
            end = self.span[1] + len(data)
        self.span = (end - len(data), end)
        return data

    def where(self) -> str:
        """Where the damage is, in the compressed file and in the tar data it held."""
        start, end = self.span
        if self.kind == "bz2":  # bzip2 checks a whole block (up to 900 kB of input) when it ends: the damage is in it
            start = min(start, self.verified)
            return (f"in bytes {start:,}-{end:,} of the bz2 file (the block it checks whole), after {self.total:,} "
                    "bytes of tar data")
        at = f"at byte {end:,}" if end - start <= 1 else f"in bytes {start:,}-{end:,}"
        return f"{at} of the {self.kind} file, after {self.total:,} bytes of tar data"

    def _gzip_trailer(self) -> None:
        """A gzip stream that never ended, yet the file ends with what reads as its trailer (a size that is a whole
        number of tar blocks, within a MiB of the data decoded; cut data ends in such bytes about once in a million):
        damaged near its end, not cut short."""
        end = self.span[1]
        try:
            last = os.pread(self.handle.fileno(), 4, end - 4) if end >= 4 else b""
        except (OSError, AttributeError, ValueError):
            return
        declared = int.from_bytes(last, "little") if len(last) == 4 else 0
        if declared and declared % 512 == 0 and abs(declared - self.total) <= 1048576:
            raise Corrupt(f"gz data is corrupt near the end of the gz file (byte {end:,}): it ends with a gzip trailer "
                          f"declaring {declared:,} bytes of tar data, but {self.total:,} decode and the stream never ends")

    def _chunk(self) -> bytes:
        """The next piece of output; b"" once every stream in the file has ended properly."""
        while True:
            dec = self.dec
            if dec.eof:
                tail = dec.unused_data or self._input()
                if not tail:
                    self.finished = True
                    return b""
                if self.kind == "gz" and not tail.strip(b"\x00"):  # zero padding after the last member
                    continue
                self.dec = dec = self._new()  # concatenated streams (pigz, pxz, cat a b)
                self.feed = tail
            try:
                if self.kind == "gz":
                    data = dec.unconsumed_tail or self._input()
                    if not data:
                        self._gzip_trailer()
                        raise Truncated(f"compressed data ends at byte {self.span[1]:,} before its end marker "
                                        f"({self.total:,} bytes of tar data before it)")
                    out = dec.decompress(data, OUT_CHUNK)
                else:
                    data = self._input() if dec.needs_input else b""
                    if dec.needs_input and not data:
                        raise Truncated(f"compressed data ends at byte {self.span[1]:,} before its end marker "
                                        f"({self.total:,} bytes of tar data before it)")
                    out = dec.decompress(data, OUT_CHUNK)
            except (zlib.error, lzma.LZMAError, OSError, EOFError) as exc:
                if isinstance(exc, Truncated):
                    raise
                raise Corrupt(f"{self.kind} data is corrupt {self.where()} ({str(exc) or type(exc).__name__})") from None
            if out:
                self.total += len(out)
                if self.kind == "bz2":
                    self.verified = self.span[0]
                return cast("bytes", out)

    def _next(self) -> bytes:
        """The next chunk; damage is raised only after everything decompressed before it was returned."""
        if self.error is not None:
            error, self.error = self.error, None
            self.failed = error
            raise error
        if self.failed is not None:  # the first damage again: decoding on past it would only find a later, vaguer one
            raise self.failed
        try:
            return self._chunk()
        except (Truncated, Corrupt) as exc:
            self.error = exc
            return b""

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            parts = [self.buf[self.pos:]]
            while chunk := self._next():
                parts.append(chunk)
            self.buf, self.pos = b"", 0
            return b"".join(parts)
        available = len(self.buf) - self.pos
        if available >= size:
            start = self.pos
            self.pos += size
            return self.buf[start:self.pos]
        parts = [self.buf[self.pos:]] if available else []
        while available < size:
            chunk = self._next()
            if not chunk:
                break
            parts.append(chunk)
            available += len(chunk)
        data = b"".join(parts)
        self.buf, self.pos = data, min(size, len(data))
        return data[:size]

    def drain(self, limit: int) -> bool:
        """Read to the end (checking integrity); False if more than ``limit`` bytes remained."""
        seen = len(self.buf) - self.pos
        self.buf, self.pos = b"", 0
        while seen <= limit:
            chunk = self._next()
            if not chunk:
                if self.error is not None:
                    self._next()  # raises the damage found at the end
                return True
            seen += len(chunk)
        return False

    def close(self) -> None:
        self.buf = b""


# --- the system's decompressor, in its own process -------------------------------------------------
# xz decodes the blocks of a multi-block file on several cores (-T0, xz 5.4+); pigz reads, decodes and
# checks on separate threads. Either way the decoding runs on another core while this process parses.
# gzip is not used: one-threaded, it only moves the decoding to another process, and the pipe cost more CPU than zlib
# here (2.26 s against 1.46 s for the audit of a 41 MiB .tar.gz). A single-block .tar.xz still goes to xz: it costs
# about 10 % more CPU than lzma in-process (3.14 s against 2.86 s) but saves about a fifth of the wall time (2.27 s
# against 2.87 s), the decoding running on the other core.
TOOLS = {"xz": (("xz", "-T0", "-dc"),), "gz": (("pigz", "-dc"),)}
PIPE_BYTES = 1024 * 1024  # the pipe's size asked for (Linux's limit for any user by default)
READ_BYTES = 64 * 1024  # one read of the pipe (1 MiB reads raised the audit's peak memory by 2.7 MiB)
F_SETPIPE_SZ = 1031  # Linux's fcntl command (fcntl.F_SETPIPE_SZ from Python 3.10)
ENV_DECODER = "FORETUNE_DECODER"  # "python": never use the system's decompressor


def system_command(kind: str, environ: Any = None) -> list[str] | None:
    """The system decompressor for ``kind`` (absolute path and options), or None to decode here."""
    env = os.environ if environ is None else environ
    if env.get(ENV_DECODER, "") == "python":
        return None
    for command in TOOLS.get(kind, ()):
        found = shutil.which(command[0])
        if found:
            return [found, *command[1:]]
    return None


def _widen(fd: int) -> None:
    """Ask for a pipe of :data:`PIPE_BYTES` (fewer switches between the tool and this process); kept as it is where the
    system refuses or has no such call."""
    try:
        import fcntl  # start-up: only when a system decompressor runs (absent on Windows)

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", F_SETPIPE_SZ), PIPE_BYTES)
    except (ImportError, OSError):
        pass


class ToolFailed(Exception):
    """The system's decompressor exited with an error: the caller reads the file again with :class:`Decompressed`,
    which finds and words the damage itself (where, after how much data)."""


class SystemDecompressed:
    """Like :class:`Decompressed`, with the decoding done by ``command`` in its own process.

    The tool reads the file through the same descriptor. Its output is trusted only as far as it says it is whole:
    if it exits non-zero (damage, a cut, trailing data, anything), reading raises :class:`ToolFailed`.
    The pipe (of :data:`PIPE_BYTES` where the system allows it) is read :data:`READ_BYTES` at a time and ``read``
    hands out slices of that, so the tar reader's 512-byte header reads cost neither a system call nor a wait each.
    """

    def __init__(self, handle: BinaryIO, kind: str, command: list[str]) -> None:
        self.kind = kind
        self.total = 0
        self.error: Exception | None = None  # never set: damage raises ToolFailed
        fd = handle.fileno()
        handle.seek(0, os.SEEK_END)  # drops the read buffer, so tell() follows the tool through the shared offset
        os.lseek(fd, 0, os.SEEK_SET)  # the tool reads from the file's start
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            command, stdin=fd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True, bufsize=0)
        assert self._proc.stdout is not None
        self._fd = self._proc.stdout.fileno()
        _widen(self._fd)
        self._buf = b""
        self._pos = 0

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            parts = []
            while chunk := self.read(OUT_CHUNK):
                parts.append(chunk)
            return b"".join(parts)
        buf, pos = self._buf, self._pos
        end = pos + size
        if end <= len(buf):
            self._pos = end
            self.total += size
            return buf[pos:end]
        parts = [buf[pos:]] if pos < len(buf) else []
        have = len(buf) - pos
        while have < size:
            chunk = self._fill()
            if not chunk:
                self._buf, self._pos = b"", 0
                data = b"".join(parts)
                self.total += len(data)
                return data
            need = size - have
            if len(chunk) > need:
                parts.append(chunk[:need])
                self._buf, self._pos = chunk, need
                have = size
            else:
                parts.append(chunk)
                have += len(chunk)
                self._buf, self._pos = b"", 0
        data = parts[0] if len(parts) == 1 else b"".join(parts)
        self.total += len(data)
        return data

    def tell(self) -> int:
        """Bytes read so far (tarfile reads the stream through ``tell``/``seek``, never backwards)."""
        return self.total

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        """Skip forward to ``offset`` (or to the end of the data, if it comes first); never backwards."""
        skip = offset - self.total
        if whence != os.SEEK_SET or skip < 0:
            raise OSError("the decompressed stream is read forward only")
        while skip > 0:
            available = len(self._buf) - self._pos
            if available >= skip:
                self._pos += skip
                self.total += skip
                break
            skip -= available
            self.total += available
            self._buf, self._pos = self._fill(), 0
            if not self._buf:
                break
        return self.total

    def _fill(self) -> bytes:
        """The next piece of the tool's output; b"" at its end, once the tool said the data was whole."""
        proc = self._proc
        if proc is None:
            return b""
        chunk = os.read(self._fd, READ_BYTES)
        if chunk:
            return chunk
        self._proc = None
        assert proc.stdout is not None
        proc.stdout.close()
        if proc.wait() != 0:
            raise ToolFailed(f"{self.kind} decoder exited with status {proc.returncode}")
        return b""

    def drain(self, limit: int) -> bool:
        """Read to the end (the tool checks integrity); False if more than ``limit`` bytes remained."""
        seen = 0
        while seen <= limit:
            chunk = self.read(OUT_CHUNK)
            if not chunk:
                return True
            seen += len(chunk)
        return False

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            assert proc.stdout is not None
            proc.stdout.close()
            proc.kill()
            proc.wait()


# glibc's malloc gives each buffer of more than 128 KiB fresh pages (mmap), or later trims them off its heap, so every
# 1 MiB read of a log faulted its pages in again: about 145,000 page faults and 0.15-0.2 s of system CPU for 256 MiB
# of logs. Kept in the heap below these sizes, they fault once (the peak resident memory stays the same).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt parameters (glibc's malloc.h)
HEAP_MMAP_BYTES = 2 * 1024 * 1024  # buffers up to this size come from the heap
HEAP_TRIM_BYTES = 4 * 1024 * 1024  # free memory at the heap's top kept up to this size


def steady_heap() -> bool:
    """Ask glibc's malloc to keep the streaming pass's large buffers in its heap; False where there is no mallopt."""
    try:
        import ctypes  # start-up: only for a tarball's streaming pass

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, HEAP_MMAP_BYTES)) and bool(mallopt(M_TRIM_THRESHOLD, HEAP_TRIM_BYTES))


def open_decompressed(handle: BinaryIO, kind: str, environ: Any = None) -> Decompressed | SystemDecompressed:
    """A decompressing stream of ``handle``: the system's tool when there is one, else this module's decoder."""
    command = system_command(kind, environ)
    if command is not None:
        try:
            return SystemDecompressed(handle, kind, command)
        except OSError:
            handle.seek(0)
    return Decompressed(handle, kind)
