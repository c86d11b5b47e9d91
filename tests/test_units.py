"""The one parser per size convention, checked against each owning program's own documented rule."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from foretune.units import (
    format_bytes,
    format_gib,
    format_gib_range,
    format_size,
    jvm_option_text,
    jvm_size,
    jvm_size_option,
    parse_size,
    pg_size,
    pg_size_pretty_bytes,
    redis_size,
)

GIB, MIB, KIB = 1024**3, 1024**2, 1024


@pytest.mark.parametrize(("opts", "expected"), [
    ("-Xmx2g -Xmx8g", 8 * GIB),  # given twice, the JVM runs with the last
    ("-Xmx8g -Xmx2g", 2 * GIB),
    ("-Xms1024m -Xmx4096m", 4 * GIB),
    ("-Xmx4G", 4 * GIB),
    ("-Xmx1t", 1024 * GIB),
    ("-Xmx524288k", 512 * MIB),
    ("-Xmx1073741824", GIB),  # no letter: bytes
    ("-Xms2g", None),
    ("", None),
    ("-Xmx8gb", None),  # the JVM refuses "Invalid maximum heap size"
])
def test_jvm_heap_is_the_last_xmx_with_the_jvms_letters(opts: str, expected: int | None) -> None:
    assert jvm_size_option(opts) == expected


def test_jvm_other_size_flags_and_the_written_value() -> None:
    assert jvm_size_option("-Xms512m -Xmx4g -Xms1g", "-Xms") == GIB
    assert jvm_option_text("-Xmx2g -XX:+UseG1GC -Xmx6g") == "6g"
    assert jvm_size("") is None and jvm_size("-1g") is None


@pytest.mark.parametrize(("value", "unit_bytes", "expected"), [
    ("8GB", 8192, 8 * GIB),
    ("512MB", 8192, 512 * MIB),
    ("64kB", 8192, 64 * KIB),
    ("1TB", 8192, 1024 * GIB),
    ("100B", 8192, 100),
    ("16384", 8192, 128 * MIB),  # shared_buffers without a unit: 16384 pages of 8 kB
    (16384, 8192, 128 * MIB),
    ("4096", 1024, 4 * MIB),  # work_mem without a unit: kB
    ("'2GB'", 8192, 2 * GIB),  # quoted, as in postgresql.conf
    ("8gb", 8192, None),  # unit names are case-sensitive: PostgreSQL refuses "8gb"
    ("8 KB", 8192, None),
    ("lots", 8192, None),
    (None, 8192, None),
])
def test_postgresql_sizes_follow_postgresqls_units(value: object, unit_bytes: int, expected: int | None) -> None:
    assert pg_size(value, unit_bytes=unit_bytes) == expected


def test_byte_formatting() -> None:
    assert [format_gib(GIB), format_gib(int(31.3 * GIB)), format_gib(1.5 * GIB)] == ["1.0 GiB", "31.3 GiB", "1.5 GiB"]
    assert format_gib_range(GIB, 2.5 * GIB) == "1.0-2.5 GiB"
    assert [format_size(8 * GIB), format_size(1536 * MIB), format_size(64 * KIB), format_size(1000)] == \
        ["8GB", "1536MB", "64kB", "1000B"]
    # adaptive: the largest binary unit, one decimal at most, never a raw count above 1 KiB
    assert format_bytes(0) == "0 B" and format_bytes(1023) == "1023 B" and format_bytes(1024) == "1 KiB"
    assert format_bytes(1536 * 1024) == "1.5 MiB"
    assert format_bytes(68_719_476_736) == "64 GiB"  # 64 * 1024**3
    assert format_bytes(1024**3 - 1) == "1 GiB"  # rounds up into the next unit, never "1024 MiB"
    assert format_bytes(1023 * MIB + 900 * KIB) == "1023.9 MiB"
    assert format_bytes(3 * 1024**5) == "3 PiB"
    # a whole figure in GiB with as many decimals as it needs (bench sizes, the model's RAM)
    assert [format_bytes(4 * GIB, "GiB", places=None), format_bytes(1.25 * GIB, "GiB", places=None)] == ["4 GiB", "1.25 GiB"]


@pytest.mark.parametrize(("text", "expected"), [
    # pg_size_pretty() writes an integer and one of bytes, kB, MB, GB, TB (PB since 15), powers of 2
    ("8192 bytes", 8192), ("16 kB", 16 * KIB), ("1234 MB", 1234 * MIB), ("7 GB", 7 * GIB), ("3 TB", 3 * 1024 * GIB),
    ("2 PB", 2 * 1024**5),
    ("16 kb", None),  # it never writes a lower-case unit: not its output
    ("16", None),  # it always writes a unit
    ("16 B", None),  # and spells bytes out
    ("", None),
])
def test_pg_size_pretty_figures_follow_postgresqls_units(text: str, expected: int | None) -> None:
    assert pg_size_pretty_bytes(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # redis.conf: "1k => 1000 bytes, 1kb => 1024 bytes, 1m => 1000000 bytes, 1mb => 1024*1024 bytes,
    # 1g => 1000000000 bytes, 1gb => 1024*1024*1024 bytes. units are case insensitive"
    ("1k", 1000), ("1kb", 1024), ("1m", 1_000_000), ("1mb", 1_048_576), ("1g", 1_000_000_000), ("1gb", 1_073_741_824),
    ("1GB", 1_073_741_824), ("1Gb", 1_073_741_824), ("1gB", 1_073_741_824), ("2G", 2_000_000_000),
    ("4096", 4096), ("0", 0),
    ("1.5gb", None), ("1gib", None), ("lots", None), ("", None),
])
def test_redis_sizes_follow_redis_conf(text: str, expected: int | None) -> None:
    assert redis_size(text) == expected


def test_admin_sizes_are_binary_in_any_spelling() -> None:
    assert parse_size("64G") == parse_size("64GiB") == parse_size("64 gb") == parse_size("65536M") == 64 * GIB
    assert parse_size("1.5t") == 1536 * GIB and parse_size("512B", default_unit="G") == 512
    assert parse_size("32", default_unit="G") == 32 * GIB and parse_size("32") == 32


def test_the_extracted_candlepin_heap_is_the_last_xmx(tmp_path: Path) -> None:
    from foretune.facts import read_source

    tree = tmp_path / "sosreport"
    shutil.copytree(Path(__file__).parent / "fixtures" / "sosreports" / "satellite-6.15", tree)
    conf = tree / "etc" / "tomcat" / "tomcat.conf"
    conf.write_text(re.sub(r'(?m)^JAVA_OPTS=.*$', 'JAVA_OPTS="-Xms1024m -Xmx2g -Xmx8g"', conf.read_text(encoding="utf-8")),
                    encoding="utf-8")
    facts = read_source(str(tree))
    assert facts.value("candlepin")["heap_max_bytes"] == 8 * GIB
