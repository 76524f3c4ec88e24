"""Fixtures of the browser test: a private JupyterLab on a working copy of notebooks/ as `make lab`
makes it, Debian's Chromium driven by pytest-playwright, and a teardown that leaves no process
behind.

Run with `make e2e` (it installs Debian's `chromium` if /usr/bin/chromium is missing). Nothing is
downloaded by Playwright: pytest-playwright's `browser` is launched with
`executable_path=/usr/bin/chromium` (the `browser_type_launch_args` override below), its `page`
gets our viewport (`browser_context_args`), and `make e2e` asks it for a screenshot of every
failing test (`--screenshot only-on-failure`).

Everything JupyterLab starts carries one temporary directory in its command line (its settings
dir, the kernels' connection files in its runtime dir), so the last teardown can check with
`pgrep -f <that dir>` that nothing survived, and that pytest has no child process left.

Like `make lab`, the Lab opens a copy of notebooks/ in a git-ignored folder next to it
(scripts/lab_notebooks.py; here `my-notebooks-e2e-<random>/`, removed afterwards, so a learner's
own my-notebooks/ is never touched), with autosave on, and its checkpoints where `make lab` puts
them (.ipynb_checkpoints/ in that folder): the tests check that running and saving a notebook
leaves `git status` as it was.
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
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, Route

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "scripts"))
import lab_notebooks  # noqa: E402  (scripts/ is not a package)

AUTOSAVE_INTERVAL = 5  # seconds: JupyterLab's autosave (default 120 s) fires during the tests
CHROMIUM = Path(os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium"))
# This machine's network is closed: without these, Chromium keeps trying to reach Google.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}
LAB_START_TIMEOUT = 90  # seconds; JupyterLab takes ~5 s on an idle 2-core machine
SITE = ROOT / "build" / "html"  # the static site, as `make html` builds it


@dataclass
class Lab:
    """A running JupyterLab: where to reach it and what it was started with."""

    base_url: str
    token: str
    process: subprocess.Popen
    tmp: Path
    log: Path
    notebooks: Path  # the working copy it serves

    def url(self, path: str, *params: str) -> str:
        query = "&".join([*params, f"token={self.token}"])
        return f"{self.base_url}/{path.lstrip('/')}?{query}"

    def api(self, path: str, method: str = "GET", body: dict | None = None, timeout: float = 10):
        request = urllib.request.Request(
            f"{self.base_url}/api/{path.lstrip('/')}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return "(no log)"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _leftovers(marker: Path) -> list[str]:
    """Command lines of live processes that mention `marker` (pgrep -f)."""
    result = subprocess.run(
        ["pgrep", "-a", "-f", str(marker)], capture_output=True, text=True, check=False
    )
    return [line for line in result.stdout.splitlines() if line.strip()]


def _lab_settings(tmp: Path) -> Path:
    """JupyterLab settings for this test: the venv's own overrides (the ones `make lab` uses:
    no news, no update check) plus, for the test only, every cell attached to the DOM
    (windowingMode "none": no virtualisation, so every stored figure is an <img> in the page
    without scrolling) and autosave every AUTOSAVE_INTERVAL seconds (on, as for a learner, and
    often enough to happen while a test runs)."""
    venv_settings = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"
    overrides_file = venv_settings / "overrides.json"
    if not overrides_file.is_file():
        pytest.fail(f"{overrides_file} is missing: run `make setup` (it writes the Lab overrides)")
    settings = tmp / "lab-settings"
    shutil.copytree(venv_settings, settings)
    overrides = json.loads(overrides_file.read_text(encoding="utf-8"))
    overrides.setdefault("@jupyterlab/notebook-extension:tracker", {})["windowingMode"] = "none"
    overrides.setdefault("@jupyterlab/docmanager-extension:plugin", {}).update(
        autosave=True, autosaveInterval=AUTOSAVE_INTERVAL
    )
    (settings / "overrides.json").write_text(json.dumps(overrides, indent=2), encoding="utf-8")
    return settings


def _stop_process_tree(process: subprocess.Popen) -> None:
    """SIGTERM JupyterLab's process group (the server then shuts its kernels down), SIGKILL
    whatever is still there after a grace period. Kernels run in sessions of their own
    (jupyter_client starts them with start_new_session), so they are collected as the
    server's descendants first and their groups are killed explicitly if they survive."""
    try:
        descendants = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        descendants = []
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=10)
    _, alive = psutil.wait_procs(descendants, timeout=10)
    for proc in alive:
        try:
            os.killpg(os.getpgid(proc.pid), signal.SIGKILL)
        except (ProcessLookupError, psutil.NoSuchProcess):
            pass
        except PermissionError:
            proc.kill()
    psutil.wait_procs(alive, timeout=5)


@pytest.fixture(scope="session")
def e2e_tmp(request):
    """One private directory for everything this session starts; its teardown runs last and
    asserts that no process started here is left."""
    tmp = Path(tempfile.mkdtemp(prefix="vitexplain-e2e-"))
    try:
        yield tmp
        left = _leftovers(tmp)
        children = [" ".join(p.cmdline()) for p in psutil.Process().children(recursive=True)]
        assert not left, "processes left behind by the browser test:\n" + "\n".join(left)
        assert not children, "child processes of pytest left behind:\n" + "\n".join(children)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def lab(e2e_tmp: Path, request):
    """JupyterLab on a working copy of notebooks/ as `make lab` starts it (127.0.0.1, token auth,
    --no-browser, --allow-root as root) but on a free port, with a random token, private
    settings, workspaces and runtime dirs, an in-memory trust database (every notebook opens
    untrusted, as one from a fresh clone), in its own process group."""
    if not NOTEBOOKS.is_dir():
        pytest.fail(f"{NOTEBOOKS} does not exist")
    copy = ROOT / f"my-notebooks-e2e-{secrets.token_hex(4)}"
    token = secrets.token_hex(24)
    port = _free_port()
    settings = _lab_settings(e2e_tmp)
    log = e2e_tmp / "jupyterlab.log"
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # inline figures need ipykernel's own backend (DESIGN.md)
    # A reader's Lab: no figures folder, so running a notebook must write no file at all.
    env.pop("VITEXPLAIN_FIGURES_DIR", None)
    env["JUPYTER_PREFER_ENV_PATH"] = "1"  # the venv's python3 kernel, whatever ~/.local holds
    env["JUPYTER_RUNTIME_DIR"] = str(e2e_tmp / "runtime")  # kernel-*.json: marks the kernels
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        *(["--allow-root"] if os.geteuid() == 0 else []),
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={copy}",
        f"--LabApp.app_settings_dir={settings}",
        f"--LabApp.user_settings_dir={e2e_tmp / 'user-settings'}",
        f"--LabApp.workspaces_dir={e2e_tmp / 'workspaces'}",
        "--NotebookNotary.db_file=:memory:",
    ]
    try:
        lab_notebooks.sync(copy)
        with log.open("wb") as log_file:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own session and process group: killpg stops it all
            )
    except BaseException:
        shutil.rmtree(copy, ignore_errors=True)
        raise
    running = Lab(f"http://127.0.0.1:{port}", token, process, e2e_tmp, log, copy)
    try:
        deadline = time.monotonic() + LAB_START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"JupyterLab exited with {process.returncode}:\n{running.log_tail()}")
            try:
                running.api("status")
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer /api/status:\n{running.log_tail()}")
                time.sleep(0.25)  # polling a port that is not open yet: nothing to wait on
        yield running
    finally:
        _stop_process_tree(process)
        shutil.rmtree(copy, ignore_errors=True)
        if request.session.testsfailed:
            print(f"\n--- JupyterLab log (tail) ---\n{running.log_tail()}")


def block_network(context: BrowserContext) -> list[str]:
    """Abort every request of `context` that is not a local file or inline data (the site is
    read from file:// with no network); return the list that records the aborted URLs, which
    the site tests assert empty."""
    attempted: list[str] = []

    def guard(route: Route) -> None:
        url = route.request.url
        if url.startswith(("file://", "data:")):
            route.continue_()
        else:
            attempted.append(url)
            route.abort()

    context.route("**/*", guard)
    return attempted


# From one mode to the other only colours change (the markup is the same: no page has the
# theme's .only-light/.only-dark parts, asserted in test_site.py, and no script reads the mode),
# so in one mode axe-core runs the rules that read colours: its rules of category cat.color that
# run by default (color-contrast-enhanced, WCAG AAA, is off by default, in both modes). The other
# mode runs every rule.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
AXE_SCRIPT = Axe().axe_script  # axe-core, as axe-playwright-python bundles it
# Pygments gives every token of a code block a span of its own: about 2,400 with text on a
# notebook page, 70 % of the elements axe's color-contrast reads, and most of an axe run (a page
# took it 24 s, 6 s without them), yet their contrast is that of a few dozen (colour, background)
# pairs. So color-contrast checks every element but these spans, and `_code_contrast` checks
# every distinct (colour, backgrounds) pair of all of them (the same selector: no span is left
# out), in the same mode, once the same transitions have ended.
CODE_SPANS = "div.highlight pre span"
CODE_STYLES_JS = """selector => {
  const memo = new Map();
  // an element's background layers, its own first, up to the first opaque one; and what the
  // contrast below does not model: background images on the way, opacity up to the root
  const backdrop = e => {
    if (!e) return [[], []];
    if (!memo.has(e)) {
      const s = getComputedStyle(e), [layers, odd] = backdrop(e.parentElement);
      const opaque = +(s.backgroundColor.match(/[\\d.]+/g)[3] ?? 1) === 1;
      memo.set(e, [[s.backgroundColor, ...(opaque ? [] : layers)], [
        ...(s.backgroundImage !== 'none' ? ['background-image ' + s.backgroundImage] : []),
        ...(s.opacity !== '1' ? ['opacity ' + s.opacity] : []),
        ...(opaque ? odd.filter(o => o.startsWith('opacity')) : odd)]]);
    }
    return memo.get(e);
  };
  const styles = new Map();
  for (const span of document.querySelectorAll(selector)) {
    if (![...span.childNodes].some(n => n.nodeType === 3 && n.data.trim())) continue;
    const s = getComputedStyle(span), [layers, odd] = backdrop(span);
    const unmodelled = s.textShadow === 'none' ? odd : [...odd, 'text-shadow ' + s.textShadow];
    const key = JSON.stringify([s.color, layers, unmodelled]);
    if (!styles.has(key)) styles.set(key, [s.color, layers, unmodelled, span.textContent, 0]);
    styles.get(key)[4]++;
  }
  return [...styles.values()];
}"""


def start_axe(page: Page, context: object = None, rules: list[str] | None = None) -> None:
    """Start axe-core on `context` (a selector or axe's {include: ...}; default: the whole document,
    its <html> and <head> too) of `page` without waiting
    for it (`axe_violations` collects it), so that a light and a dark page are checked at once,
    each in its own renderer process. It runs from a task of its own, once every finite CSS
    transition and animation has ended (the colours change with a transition when the mode is
    applied; a busy machine may still be in one at the load event). `rules`: only these axe
    rules (default: all); color-contrast skips the code spans, whose colours are read at the
    same moment for `code_contrast`."""
    page.evaluate(AXE_SCRIPT)
    page.evaluate(f"window.vxCodeStyles = {CODE_STYLES_JS}")
    page.evaluate(
        """([context, rules, code]) => {
           axe.configure({rules: [{id: 'color-contrast', selector: `*:not(${code})`}]});
           // from a task of its own: evaluate() returns before axe works (synchronously, mostly)
           window.vxAxe = new Promise(start => setTimeout(start)).then(() => Promise.all(
             document.getAnimations()
             .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
             .map(a => a.finished.catch(() => null))))
           .then(() => Promise.all([axe.run(context ?? document, rules
             ? {runOnly: {type: 'rule', values: rules}, resultTypes: ['violations']}
             : {resultTypes: ['violations']}), vxCodeStyles(code)]))
           .then(([results, code]) => JSON.stringify([results.violations, code])); }""",
        [context, rules, CODE_SPANS],
    )


def axe_violations(page: Page) -> list[str]:
    """The violations of the axe-core run that `start_axe` started on `page`, one line each,
    and of `code_contrast` (the distinct code styles it saw are left in `page.code_styles`)."""
    violations, page.code_styles = json.loads(page.evaluate("window.vxAxe"))
    return [
        f"{v['id']}: {v['help']} ({len(v['nodes'])} nodes, e.g. {v['nodes'][0]['html'][:150]})"
        for v in violations
    ] + code_contrast(page.code_styles)


def _over(css: str, under: tuple[float, ...]) -> tuple[float, ...]:
    """The CSS colour `css` ("rgb(r, g, b)" or "rgba(r, g, b, a)") painted over the opaque
    colour `under` (r, g, b, each 0-255)."""
    assert css.startswith("rgb"), css  # Chromium's computed colours, unless CSS used color()
    r, g, b, *alpha = (float(v) for v in re.findall(r"[\d.]+", css))
    a = alpha[0] if alpha else 1.0
    return tuple(a * c + (1 - a) * u for c, u in zip((r, g, b), under, strict=True))


def _luminance(rgb: tuple[float, ...]) -> float:
    """WCAG 2's relative luminance of an opaque sRGB colour (each channel 0-255)."""
    linear = [
        v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in (c / 255 for c in rgb)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def code_contrast(styles: list) -> list[str]:
    """Each distinct code style: its text colour over its background layers (from the first
    opaque one inwards to the span's own; over the white canvas if none is opaque) at 4.5:1 or
    more (code is never large text), and drawn with nothing this does not model (a background
    image, opacity, a text shadow). Returns what fails."""
    failing = []
    for color, layers, unmodelled, text, count in styles:
        backdrop = (255.0, 255.0, 255.0)
        for layer in reversed(layers):
            backdrop = _over(layer, backdrop)
        hi, lo = sorted([_luminance(_over(color, backdrop)), _luminance(backdrop)], reverse=True)
        ratio = (hi + 0.05) / (lo + 0.05)
        if ratio < 4.5 or unmodelled:
            failing.append(
                f"code contrast {ratio:.2f}:1, {count} spans like {text[:30]!r}: {color} on "
                f"{' over '.join(layers)} {unmodelled or ''}"
            )
    return failing


@pytest.fixture(scope="module")
def one_torch_thread():
    """torch on one thread for a module's references: Chromium keeps the other core busy (397
    pictures through notebook 08's two models in float64, on two busy cores: 3.7 s on two
    threads, 1.2 s on one)."""
    import torch  # here: the Lab's tests need no torch in this process

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# Playwright's is_visible in the page, for many elements in one evaluate (one round trip, not
# one per element): rendered (checkVisibility: not in a closed <details>, no display: none),
# visibility: visible and a non-empty box.
VISIBLE_JS = """const visible = (e) => { if (!e || !e.checkVisibility()) return false;
  const r = e.getBoundingClientRect();
  return getComputedStyle(e).visibility === "visible" && r.width > 0 && r.height > 0; };"""


@pytest.fixture(scope="session")
def _read_only_pages(browser: Browser, browser_context_args: dict):
    context = browser.new_context(**browser_context_args)
    pages: dict[str, Page] = {}
    yield context, block_network(context), pages
    context.close()


@pytest.fixture
def reading(_read_only_pages):
    """`reading(name)`: the site's page `name` (under build/html/), opened offline once for all
    the tests that only call its functions or read it (a page load costs more than most of
    them); each test still ends with no JavaScript error on these pages and no request beyond
    the machine."""
    context, attempted, pages = _read_only_pages

    def open_once(name: str) -> Page:
        if name not in pages:
            page = pages[name] = context.new_page()
            page.set_default_timeout(30_000)
            page.errors = []
            page.on("pageerror", lambda error, page=page: page.errors.append(str(error)))
            page.goto((SITE / name).as_uri(), wait_until="load")
        return pages[name]

    yield open_once
    assert attempted == [], f"the pages tried to reach {attempted[:5]}"
    for name, page in pages.items():
        assert page.errors == [], f"JavaScript errors on {name}: {page.errors}"


@pytest.fixture(scope="module")
def _module_context(browser: Browser, browser_context_args: dict):
    context = browser.new_context(**browser_context_args)
    yield context
    context.close()


@pytest.fixture
def site_page(_module_context: BrowserContext) -> Page:
    """A new page for one test, in a context that its module's tests share (a context of its
    own took each test about as long again as its page load); the JavaScript errors of the
    page in `page.errors`. The test opens what it needs (and blocks the network) itself."""
    page = _module_context.new_page()
    page.set_default_timeout(30_000)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    page.close()


@pytest.fixture(scope="session")
def built_site() -> Path:
    """build/html/ with its index and every notebook's page; the site tests use it
    (`pytestmark = pytest.mark.usefixtures("built_site")`) and fail at once without it."""
    pages = [SITE / "index.html"]
    pages += [SITE / "notebooks" / f"{p.stem}.html" for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")]
    missing = [str(p.relative_to(ROOT)) for p in pages if not p.is_file()]
    if missing:
        pytest.fail(f"{', '.join(missing[:3])} missing: run `make html` first (make e2e does)")
    return SITE


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, e2e_tmp: Path) -> dict:
    """Debian's Chromium, never a downloaded one. Depending on e2e_tmp makes the browser start
    after, and close before, the teardown that checks for left-over processes."""
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make e2e` installs it (apt-get install chromium)")
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    return {**browser_context_args, "viewport": VIEWPORT, "device_scale_factor": 1}


def _record_writes(page: Page) -> Page:
    """Give `page` a list `page.writes` of every request that would write a notebook back (a
    save)."""
    page.set_default_timeout(30_000)
    page.writes = []

    def record(request):
        if "/api/contents/" in request.url and request.method in ("PUT", "PATCH", "DELETE"):
            page.writes.append(f"{request.method} {request.url.split('?')[0]}")

    page.on("request", record)
    return page


def shut_kernels_down(lab: Lab) -> None:
    """Delete every session, all at once (each DELETE waits until its kernel has exited)."""
    sessions = [f"sessions/{session['id']}" for session in lab.api("sessions")]
    with ThreadPoolExecutor(max_workers=max(1, len(sessions))) as pool:
        list(pool.map(lambda path: lab.api(path, "DELETE", timeout=60), sessions))


def start_kernels(lab: Lab, names: list[str]) -> None:
    """Start a session (python3) for each notebook of the working copy, all at once, as
    JupyterLab does on opening one; the server answers once each kernel's process runs (it
    reports "idle" only once a page has connected)."""

    def start(name: str) -> dict:
        kernel = {"path": name, "name": name, "type": "notebook", "kernel": {"name": "python3"}}
        return lab.api("sessions", "POST", kernel, timeout=LAB_START_TIMEOUT)

    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        list(pool.map(start, names))


@pytest.fixture
def page(page: Page, lab: Lab) -> Page:
    """pytest-playwright's fresh page, which also records every request that would write a
    notebook back (a save) and, on teardown, shuts down the kernels it started."""
    yield _record_writes(page)
    shut_kernels_down(lab)


@pytest.fixture(scope="session")
def lab_page(browser: Browser, browser_context_args: dict, lab: Lab) -> Page:
    """One page for all the Lab tests: each leaves Lab there with no notebook open, and the next
    opens its notebook in it (File > Open from Path) instead of loading Lab again. It records
    writes as `page` does; the tests using it shut their kernels down themselves."""
    context = browser.new_context(**browser_context_args)
    try:
        yield _record_writes(context.new_page())
    finally:
        context.close()
        shut_kernels_down(lab)
