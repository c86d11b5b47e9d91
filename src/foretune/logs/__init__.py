"""Logs: what the server's own logs say (latency per endpoint, 5xx bursts, exhaustion, task durations).

One small module per log format (``production``, ``apache``, ``postgres``, ``candlepin``, ``system``,
``tasks``), each an analyzer that is fed raw lines and merges with another of its kind; ``scan``
runs them over files (in parallel for large inputs), ``summary`` turns a scan into the versioned
report, ``incidents`` derives the audit signals, ``compare`` sets two reports side by side.
"""
