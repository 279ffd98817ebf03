"""Open the pair explorer (reports/explorer/index.html) in headless Chromium with networking off, and say
what it loaded: bytes, load time, every request, console errors; optionally keep a screenshot and print
pairs as the page shows them.

    python scripts/check_explorer.py                                   # the explore stage's output
    python scripts/check_explorer.py --screenshot reports/explorer/screenshot.png
    python scripts/check_explorer.py --read 'syn-0002/q1/bm25_hard_negative/0' --read ...

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe), so nothing but the
standard library is needed. Exit 1: the page logged an error or asked for anything outside its folder;
exit 2: no Chromium (Debian: apt-get install chromium).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_browser() -> str | None:
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


class Page:
    """One headless Chromium tab over the DevTools pipe: events are kept (console, exceptions, requests)
    while commands wait for their answers."""

    def __init__(self, browser: str, width: int = 1400, height: int = 900):
        self.profile = tempfile.TemporaryDirectory(prefix="explorer-chromium-")
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-default-apps", "--disable-extensions", f"--user-data-dir={self.profile.name}",
               # Networking off: no name resolves and every request goes to a closed local port.
               "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
               "--proxy-bypass-list=<-loopback>", "--remote-debugging-pipe", f"--window-size={width},{height}",
               "about:blank"]
        unshare = shutil.which("unshare")
        if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
            cmd = [unshare, "-rn", *cmd]
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def wire() -> None:  # the protocol's fixed descriptors: commands in on 3, answers out on 4
            # Copies first: the pipe may itself be 3 or 4, and dup2 onto itself would keep close-on-exec.
            cmds, answers = os.dup(to_child), os.dup(from_child)
            os.dup2(cmds, 3)
            os.dup2(answers, 4)

        self.log = open(Path(self.profile.name) / "chromium.log", "w")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(cmd, preexec_fn=wire, close_fds=False, stdout=self.log, stderr=self.log)
        os.close(to_child)
        os.close(from_child)
        self._next = 0
        self._answers: queue.Queue = queue.Queue()
        self.events: list[dict] = []
        threading.Thread(target=self._reader, daemon=True).start()
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=None)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=None)["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False})

    def _reader(self) -> None:
        buf = b""
        with os.fdopen(self._read, "rb", buffering=0) as fh:
            while chunk := fh.read(1 << 16):
                buf += chunk
                while b"\0" in buf:
                    raw, buf = buf.split(b"\0", 1)
                    msg = json.loads(raw)
                    (self._answers.put(msg) if "id" in msg else self.events.append(msg))

    def send(self, method: str, params: dict | None = None, session: Any = "page", timeout: float = 60) -> dict:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            msg["sessionId"] = self.session if session == "page" else session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._answers.get(timeout=max(0.1, deadline - time.monotonic()))
            if answer["id"] == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def eval(self, expression: str, timeout: float = 60) -> Any:
        res = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                        timeout=timeout)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expression[:80]}: {res['exceptionDetails'].get('exception', {}).get('description')}")
        return res["result"].get("value")

    def open(self, url: str) -> float:
        """Navigate and wait for the explorer to be ready; seconds from navigation to ready."""
        started = time.perf_counter()
        self.send("Page.navigate", {"url": url})
        for _ in range(600):
            if self.eval("Boolean(window.explorer)"):
                break
            time.sleep(0.05)
        self.eval("window.explorer.ready")
        return time.perf_counter() - started

    def errors(self) -> list[str]:
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(str(p.get("exceptionDetails", {}).get("exception", {}).get("description")))
            elif e.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
            elif e.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"{p['entry'].get('text')} {p['entry'].get('url', '')}")
        return out

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close", session=None, timeout=10)
        except Exception:  # noqa: BLE001 - already gone is as good as closed
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._write)
        self.profile.cleanup()

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def outside(requests: list[str], folder: Path) -> list[str]:
    """Requests for anything but the page's own folder (data: URLs carry no request)."""
    base = folder.resolve().as_uri() + "/"
    return [u for u in requests if not (u.startswith(base) or u.startswith(("data:", "about:")))]


# The pair view as text, for reading pairs through the page.
VIEW_TEXT = "document.getElementById('view').innerText"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", type=Path, default=ROOT / "reports" / "explorer" / "index.html")
    parser.add_argument("--screenshot", type=Path, help="where to keep a screenshot of a pair view (PNG)")
    parser.add_argument("--pair", help="the pair the screenshot shows (default: the first of the list)")
    parser.add_argument("--read", action="append", default=[], help="print this pair's view (repeatable)")
    args = parser.parse_args(argv)
    browser = find_browser()
    if browser is None:
        print(f"no Chromium ({', '.join(BROWSERS)}) on PATH: install Debian's chromium", file=sys.stderr)
        sys.exit(2)
    page_path = args.page.resolve()
    folder = page_path.parent
    sizes = {p.name: p.stat().st_size for p in sorted(folder.iterdir()) if p.is_file()}
    with Page(browser) as page:
        seconds = page.open(page_path.as_uri())
        split = page.eval("explorer.state.split")
        rows = page.eval("explorer.state.filtered.length")
        requests, errors = page.requests(), page.errors()
        loaded = [u.rsplit("/", 1)[-1] for u in requests]
        print(f"{page_path}: ready in {seconds:.2f}s showing {rows} rows of {split}; "
              f"{len(requests)} requests ({', '.join(loaded)}): "
              f"{sum(sizes.get(n, 0) for n in loaded) / 1e6:.2f} MB loaded of {sum(sizes.values()) / 1e6:.2f} MB "
              f"({', '.join(f'{n} {s / 1e6:.2f} MB' for n, s in sizes.items())})")
        for pid in args.read:
            page.eval(f"explorer.go({json.dumps(pid)}); new Promise(r => setTimeout(r, 300))")
            print(f"\n===== {pid}\n{page.eval(VIEW_TEXT)}")
        if args.screenshot:
            first = args.pair or page.eval("(() => { const s = explorer.state; const d = s.filtered[0]; "
                                           "return d ? document.querySelector('#list-rows .row').dataset.id : null })()")
            if first:
                page.eval(f"explorer.go({json.dumps(first)}); new Promise(r => setTimeout(r, 300))")
            page.screenshot(args.screenshot.resolve())
            print(f"screenshot: {args.screenshot}")
        bad = outside(page.requests(), folder)
        errors = page.errors()
    if errors or bad:
        raise SystemExit(f"console errors: {errors}; requests outside {folder}: {bad}")


if __name__ == "__main__":
    main()
