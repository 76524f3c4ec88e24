"""`make lab`'s terminal, where a newcomer looks for the address (issue 28 §3): the address with
its token, and no warning per kernel about plain TCP, nor a list of skipped language servers.

`make lab` itself is run (conftest's `make_lab`: on a free port, on a git-ignored copy of the
notebooks of its own, removed afterwards; started beside the session's other JupyterLab, so that
their start-ups overlap); Chromium opens a notebook in it, which starts a kernel and lets
JupyterLab ask for its language servers, and waits until the kernel is idle.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import urllib.request

from conftest import MakeLab
from playwright.sync_api import Browser


def _api(url: str, token: str, method: str = "GET", body: dict | None = None):
    request = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        data = response.read()
    return json.loads(data) if data else None


def test_make_lab_prints_the_address_and_no_noise(make_lab: MakeLab, browser: Browser):
    lab, port, log = make_lab.process, make_lab.port, make_lab.log
    try:
        deadline, token = time.monotonic() + 120, None
        while token is None and time.monotonic() < deadline and lab.poll() is None:
            found = re.search(rf"http://127\.0\.0\.1:{port}/lab\?token=(\w+)", log.read_text())
            token = found[1] if found else None
            time.sleep(0.1)  # JupyterLab is starting; nothing to wait on but its output
        assert token, log.read_text(errors="replace")[-3000:]
        base = f"http://127.0.0.1:{port}"
        page = browser.new_page()
        try:
            # JupyterLab asks the server for its language servers once it has started: any
            # "Skipped non-installed server" line is written before that answer.
            lsp = lambda r: "/lsp/status" in r.url and r.ok  # noqa: E731
            with page.expect_response(lsp, timeout=90_000):
                page.goto(f"{base}/lab/tree/01_patch_tokenization.ipynb?token={token}")
            deadline = time.monotonic() + 90
            while True:
                states = [k["execution_state"] for k in _api(f"{base}/api/kernels", token)]
                if states and all(state == "idle" for state in states):
                    break
                assert time.monotonic() < deadline, f"no idle kernel: {states}"
                page.wait_for_timeout(100)
        finally:
            page.close()
        # The kernel idle, the server has logged its start and the browser's connection to it
        # (the plain-TCP warning comes before both).
        kernel = _api(f"{base}/api/kernels", token)[0]["id"]
        while f"Connecting to kernel {kernel}" not in log.read_text(errors="replace"):
            assert time.monotonic() < deadline, log.read_text(errors="replace")[-3000:]
            time.sleep(0.1)  # the server's own output: nothing to wait on but the file
        text = log.read_text(errors="replace")
        assert "without encryption" not in text, text[-2000:]
        assert "Skipped non-installed server" not in text, text[-2000:]
        assert "WARNING" not in text.upper().replace("WARNINGS", ""), text[-2000:]
    finally:
        # Stopped in the background: conftest's make_lab waits for it at the end of the session.
        try:
            os.killpg(lab.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
