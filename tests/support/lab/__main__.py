"""``python3 dev.py lab`` (or ``.venv/bin/python -m tests.support.lab``): start the lab, print how to load it, wait for Ctrl-C."""

from __future__ import annotations

import contextlib
import signal
import sys

from tests.support.lab import Lab


def main() -> int:
    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    with Lab() as lab:
        host, port = lab.mqtt
        exports = " ".join(f"{k}={v}" for k, v in lab.credentials.items())
        print(f"""the lab is up (Ctrl-C stops it and removes {lab.root}):
  export {exports}
  foretune load registration --target {lab.url} --organization Lab --organization-id 1 --activation-key lab-key --users 5 --duration 20 --yes
  foretune load content --target {lab.url} --repo {lab.content_path} --users 5 --duration 20 --yes
  foretune load api --target {lab.url} --users 5 --duration 20 --yes
  foretune load rex-pull --target {lab.url} --mqtt {host}:{port} --users 100 --duration 20 --yes
  foretune logs {lab.logs}""", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
    return 0


if __name__ == "__main__":
    sys.exit(main())
