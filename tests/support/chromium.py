"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``): no network, no websocket.

Opens a page with an emulated width, colour scheme and media type, and returns the console errors,
a PNG screenshot, a PDF and values of JavaScript expressions.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--hide-scrollbars", "--font-render-hinting=none",
         "--disable-font-subpixel-positioning", "--force-color-profile=srgb"]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    assert found, "Chromium is required for the HTML checks: python3 dev.py test installs it"
    return found


@dataclass
class Page:
    console_errors: list[str] = field(default_factory=list)
    screenshot: bytes = b""
    pdf: bytes = b""
    values: dict[str, Any] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)  # every URL the page asked for


class _Browser:
    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="foretune-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4
        self.proc = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=_fds(to_chrome_r, from_chrome_w))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float = 60) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def _read(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium exited")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(message))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.send("Browser.close", timeout=10)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)


def _fds(read_end: int, write_end: int) -> Any:
    """Chromium reads commands on fd 3 and writes replies on fd 4 (os.pipe ends are close-on-exec; dup2 copies are not)."""

    def setup() -> None:
        import fcntl

        high_read, high_write = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10), fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
        os.dup2(high_read, 3)  # never dup2(fd, fd): that would keep close-on-exec
        os.dup2(high_write, 4)
    return setup


def open_page(path: Path, *, width: int = 1000, height: int = 800, scheme: str = "light", media: str = "screen",
              screenshot: bool = False, pdf: bool = False, evaluate: dict[str, str] | None = None,
              javascript: bool = True) -> Page:
    """Load ``path`` and collect what the checks need; ``scheme`` is light or dark, ``media`` screen or print.

    The screenshot shows the top ``height`` pixels of the page laid out at ``width``.
    """
    browser = _Browser()
    page = Page()
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Emulation.setScriptExecutionDisabled", {"value": not javascript}, session=session)
        browser.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                            "mobile": False}, session=session)
        browser.send("Emulation.setEmulatedMedia", {"media": media, "features": [
            {"name": "prefers-color-scheme", "value": scheme}, {"name": "prefers-reduced-motion", "value": "reduce"}]},
            session=session)
        browser.send("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
        browser.wait_for("Page.loadEventFired")
        for name, expression in (evaluate or {}).items():
            result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
            page.values[name] = result.get("result", {}).get("value")
        if screenshot:
            full = browser.send("Runtime.evaluate", {"expression": "document.documentElement.scrollHeight",
                                                     "returnByValue": True}, session=session)["result"]["value"]
            browser.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": int(full), "deviceScaleFactor": 1,
                                                                "mobile": False}, session=session)
            clip = {"x": 0, "y": 0, "width": width, "height": min(int(full), height), "scale": 1}
            shot = browser.send("Page.captureScreenshot", {"format": "png", "clip": clip}, session=session)
            page.screenshot = base64.b64decode(shot["data"])
        if pdf:
            page.pdf = base64.b64decode(browser.send("Page.printToPDF", {"printBackground": True}, session=session)["data"])
        for event in browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.requestWillBeSent":
                page.requests.append(params.get("request", {}).get("url", ""))
            elif method == "Runtime.exceptionThrown":
                page.console_errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                page.console_errors.append(json.dumps(params.get("args", []))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
                page.console_errors.append(params["entry"].get("text", "")[:500])
    finally:
        browser.close()
    return page


def click_copy_buttons(path: Path, selectors: list[str], *, before: str = "") -> list[tuple[str, str]]:
    """Click each copy button (a real mouse click at its position) and read the system clipboard after it.

    ``before`` is a script run once the page has loaded (e.g. to take the Clipboard API away).
    Returns (clipboard text, button label) per selector.
    """
    browser = _Browser()
    found: list[tuple[str, str]] = []
    try:
        browser.send("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
        browser.wait_for("Page.loadEventFired")

        def value(expression: str) -> Any:
            result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                                  session=session)
            assert "exceptionDetails" not in result, result["exceptionDetails"]
            return result["result"].get("value")

        value("window.testClipboard = navigator.clipboard")  # kept for reading when ``before`` takes the API away
        if before:
            value(before)
        for selector in selectors:
            value("testClipboard.writeText('(nothing copied)')")
            x, y = value(f"(() => {{ const b = document.querySelector({json.dumps(selector)}); b.closest('details').open = true;"
                         " b.scrollIntoView({block: 'center'}); const r = b.getBoundingClientRect();"
                         " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
            for kind in ("mousePressed", "mouseReleased"):
                browser.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
                             session=session)
            label = value(f"new Promise(done => {{ const b = document.querySelector({json.dumps(selector)});"
                          " const wait = () => b.textContent !== 'Copy' ? done(b.textContent) : setTimeout(wait, 20); wait(); })")
            found.append((value("testClipboard.readText()"), label))
    finally:
        browser.close()
    return found
