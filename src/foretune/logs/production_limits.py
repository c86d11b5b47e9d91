"""What both readers of ``production.log`` share: the names they give and the limits they keep to.

:mod:`foretune.logs.production` (the line-by-line reader and the analyzer) and
:mod:`foretune.logs.production_blocks` (the block reader) both import this module, and neither imports
the other back. ``MAX_STAMPS``, ``MAX_NAMES`` and ``MAX_PENDING`` are read as attributes of this module
when a read starts (tests make them small).
"""

from __future__ import annotations

UNKNOWN_ACTION = "(started before the log)"
MAX_OPEN = 200_000  # requests waiting for Completed; beyond this the oldest are dropped (counted)
MAX_ORPHANS = 20_000
# Started lines of registration steps (check-ins of registered consumers are GET/PUT /rhsm/consumers/<uuid>...)
REG_STARTED = (b'Started GET "/rhsm/consumers/', b'Started PUT "/rhsm/consumers/', b'Started POST "/rhsm/consumers',
               b'Started GET "/register', b'Started POST "/register', b'Started DELETE "/rhsm/consumers/')
REG_EARLY_SECONDS = 60  # a Processing line this soon after an input's start may belong to a Started line of the input before
STATUSES = {f"{code:03d}".encode(): f"{code:03d}" for code in range(1000)}
MAX_STAMPS = 4096  # cached line stamps (seconds); the cache starts over beyond this (lines come nearly in time order)
MAX_NAMES = 10_000  # cached action names
MAX_PENDING = 8192  # completed requests held before they are added up
