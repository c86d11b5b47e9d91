"""Entry point of the foretune zipapp (its __main__.py).

It must parse and run on any Python, 2.7 and 3.6 included, so that an old interpreter
gets one clear line instead of a traceback: no f-strings, no annotations, no imports
from foretune before the version check.
"""
import sys

MINIMUM = (3, 9)

if sys.version_info[:2] < MINIMUM:
    sys.stderr.write(
        "foretune: error: needs Python %d.%d or newer, this is Python %d.%d (%s); on RHEL 7 or 8 without "
        "a newer python3, make the collector on a machine that has one (`python3 foretune.pyz collector > "
        "foretune-collect.py`), run it here with this Python and audit its snapshot there\n"
        % (MINIMUM[0], MINIMUM[1], sys.version_info[0], sys.version_info[1], sys.executable or "python"))
    sys.exit(2)

from foretune.cli import _zipapp_main  # noqa: E402

_zipapp_main()
