"""Allow ``python -m foretune`` and the zipapp entry point."""

import sys

from foretune.cli import main

if __name__ == "__main__":
    sys.exit(main())
