"""An Apache access log's times: a run of lines of one time is looked at once, a clock jump's lines each count."""

from __future__ import annotations

import io

from foretune.logs.apache import AccessLog
from foretune.logs.scan import consume


def test_a_repeated_clock_jump_counts_each_time() -> None:
    line = b'10.0.0.1 - - [14/Nov/2023:%s +0000] "GET /x HTTP/1.1" 200 1 "-" "curl/8"\n'
    data = b"".join(line % s for s in (b"22:13:20", b"22:13:20", b"21:00:00", b"21:00:00", b"22:13:20", b"22:13:21"))
    analyzer = AccessLog("access.log")
    consume(analyzer, io.BytesIO(data))
    analyzer.finish()
    got = analyzer.summary()
    assert (analyzer.clock_jumps, got["lines"], got["first"], got["last"]) == (2, 6, "2023-11-14T21:00:00", "2023-11-14T22:13:21")
