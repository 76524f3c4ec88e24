"""`make lab`'s terminal, where a newcomer looks for the address (issue 28 §3): the address with
its token, and no warning per kernel about plain TCP, nor a list of skipped language servers.

`make lab` itself is run (on a free port, on a git-ignored copy of the notebooks of its own,
removed afterwards); Chromium opens a notebook in it, which starts a kernel and lets JupyterLab
ask for its language servers, and waits until the kernel is idle.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Browser
from test_lab import wait_for_kernel_idle

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


def test_make_lab_prints_the_address_and_no_noise(e2e_tmp: Path, browser: Browser):
    port, folder = _free_port(), f"my-notebooks-e2e-{secrets.token_hex(4)}"
    log = e2e_tmp / "make-lab.log"
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "VITEXPLAIN_FIGURES_DIR")}
    env["JUPYTER_RUNTIME_DIR"] = str(e2e_tmp / "make-lab-runtime")  # marks its kernels
    with log.open("wb") as out:
        lab = subprocess.Popen(
            ["make", "--no-print-directory", "lab", f"PORT={port}", f"LAB_DIR={folder}"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
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
            # The page says when its kernel is idle (the server's /api/kernels, polled instead,
            # answered HTTP 500 while the kernel was still starting).
            wait_for_kernel_idle(page, 90_000)
            deadline = time.monotonic() + 90
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
        os.killpg(lab.pid, signal.SIGTERM)
        try:
            lab.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(lab.pid, signal.SIGKILL)
            lab.wait(timeout=10)
        shutil.rmtree(ROOT / folder, ignore_errors=True)
