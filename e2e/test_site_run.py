"""A reader of the site alone can start running (issue 28): the Run it yourself page offers the
wheel, the sdist and a zip of the notebooks, made from this checkout's files, and its commands
take a fresh virtual environment from those files to JupyterLab.

The commands are run as the page prints them, from the files the built site holds, with three
changes that this test makes and says. PyTorch's index (download.pytorch.org) is out of reach here,
so `--index-url https://download.pytorch.org/whl/cpu` is dropped from the first command (the test
checks that a CPU build, `+cpu`, is what the environment imports). What pip would download and
unpack (most of this test's time before: 800 MB for torch alone) is taken from this machine's
.venv (the lock's versions) instead: torch and every distribution the wheel requires with its
`notebooks` extra, with everything these require in turn (followed from the wheel's metadata, so
a dependency the wheel forgets to declare is missing there as on a fresh machine), reach the fresh
venv through a .pth file; pip still resolves both commands against them ("Requirement already
satisfied") and installs, for real, the wheel and the two distributions whose commands the page
runs, jupyter_core (`jupyter`) and JupyterLab (`jupyter-lab`), since a .pth file brings modules
but no command. And pip writes no .pyc files (PIP_COMPILE=0, as `--no-compile`). The third
command, `jupyter lab <folder>`, gets the options a headless test needs (no browser, a free port,
a known token, --allow-root as root); the Lab must list every notebook and start its kernel in
that environment, where every module a notebook imports imports and the package reads its data.
No notebook is run here: each runs whole twice elsewhere in CI, from the repository and from the
wheel (tests/test_wheel.py, which also checks that the wheel's `notebooks` extra brings every
module the notebooks import).
"""

from __future__ import annotations

import ast
import email
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tarfile
import time
import urllib.request
import zipfile
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path
from urllib.parse import unquote, urlparse

import psutil
import pytest
import test_site
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from playwright.sync_api import Page
from test_site import ROOT, SITE, _open

page = test_site.page  # the site's own browser page (not JupyterLab's)

TORCH_INDEX_OPTION = " --index-url https://download.pytorch.org/whl/cpu"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
# what provides `jupyter` and `jupyter lab`: a command is a file pip writes into the venv's bin/
COMMANDS = {"jupyter-core", "jupyterlab"}


def _torch_pin() -> str:
    lines = (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines()
    return next(line for line in lines if line.startswith("torch=="))


def _downloads(page: Page) -> dict[str, Path]:
    """The Downloads table's links, as files of the built site, by kind."""
    _open(page, "run.html")
    hrefs = page.evaluate(
        "[...document.querySelectorAll('#downloads table a.download')].map(a => a.href)"
    )
    files = [Path(unquote(urlparse(h).path)) for h in hrefs]
    assert all(f.is_file() and f.is_relative_to(SITE) for f in files), files
    kinds = {
        "zip": [f for f in files if f.name.endswith(".zip")],
        "wheel": [f for f in files if f.name.endswith(".whl")],
        "sdist": [f for f in files if f.name.endswith(".tar.gz")],
    }
    assert all(len(v) == 1 for v in kinds.values()) and len(files) == 3, files
    return {k: v[0] for k, v in kinds.items()}


def test_the_downloads_are_this_checkouts_files_and_a_click_saves_them(page: Page):
    files = _downloads(page)
    # The notebooks zip: every notebook, byte for byte, in one folder.
    with zipfile.ZipFile(files["zip"]) as archive:
        folder = files["zip"].name.removesuffix(".zip")
        assert sorted(archive.namelist()) == [f"{folder}/{p.name}" for p in NOTEBOOKS]
        for path in NOTEBOOKS:
            assert archive.read(f"{folder}/{path.name}") == path.read_bytes(), path.name
    # The wheel and the sdist: every file of the package, byte for byte.
    package = sorted(
        p
        for p in (ROOT / "vitexplain").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )
    with zipfile.ZipFile(files["wheel"]) as wheel:
        for path in package:
            assert wheel.read(str(path.relative_to(ROOT))) == path.read_bytes(), path
    with tarfile.open(files["sdist"]) as sdist:
        top = files["sdist"].name.removesuffix(".tar.gz")
        for path in package:
            member = sdist.extractfile(f"{top}/{path.relative_to(ROOT)}")
            assert member.read() == path.read_bytes(), path
    # A click saves each file (Chromium shows no zip or wheel as a page).
    for kind in ("zip", "wheel"):
        with page.expect_download() as download:
            page.locator(f"#downloads a.download[href$='{files[kind].name}']").click()
        assert download.value.suggested_filename == files[kind].name


def test_the_page_names_no_repository_the_metadata_lacks(page: Page):
    _open(page, "run.html")
    hrefs = page.evaluate("[...document.querySelectorAll('article a')].map(a => a.href)")
    remote = [h for h in hrefs if h.startswith(("http:", "https:"))]
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert all(h in citation or h in pyproject for h in remote), remote


def _installed_closure(requirements: list[Requirement]) -> dict[str, Distribution]:
    """The distributions of this .venv that pip would install for `requirements`, following
    each one's own requirements (and the extras asked for), by canonical name."""
    found: dict[str, Distribution] = {}
    todo = [(r, {""}) for r in requirements]
    while todo:
        requirement, extras = todo.pop()
        if requirement.marker and not any(
            requirement.marker.evaluate({"extra": e}) for e in extras
        ):
            continue
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        try:
            found[name] = dist = distribution(requirement.name)
        except PackageNotFoundError:
            continue  # not in .venv: pip installs it for real in the fresh venv
        assert requirement.specifier.contains(dist.version, prereleases=True), (requirement, dist)
        asked = {"", *requirement.extras}
        todo += [(Requirement(r), asked) for r in dist.requires or []]
    return found


def _overlay(wheel: Path, folder: Path) -> Path:
    """A folder of links to the files of torch and of what the wheel requires with its
    `notebooks` extra, with everything these require in turn, as this .venv holds them; but
    not the two distributions whose commands the page runs (COMMANDS): pip installs those."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(name))
    requires = [Requirement(r) for r in metadata.get_all("Requires-Dist", [])]
    wanted = [r for r in requires if not r.marker or r.marker.evaluate({"extra": "notebooks"})]
    for requirement in wanted:
        requirement.marker = None  # chosen: base and `notebooks`
    closure = _installed_closure([Requirement(_torch_pin()), *wanted])
    assert {"torch", "numpy", "ipykernel", *COMMANDS} <= set(closure), sorted(closure)
    folder.mkdir()
    for dist in (d for name, d in closure.items() if name not in COMMANDS):
        site = Path(dist.locate_file(""))
        tops = {Path(str(f)).parts[0] for f in dist.files or []}
        for top in tops - {"..", "__pycache__"}:
            if (site / top).exists() and not (folder / top).exists():
                (folder / top).symlink_to(site / top)
    return folder


def _bash(script: str, cwd: Path, env: dict, timeout: float) -> subprocess.CompletedProcess:
    """Run ``script`` with bash, stopping at its first failing command; assert it succeeded."""
    result = subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{script}\n"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_three_commands_take_a_fresh_venv_from_the_sites_files_to_jupyterlab(
    page: Page, tmp_path: Path
):
    files = _downloads(page)
    setup = page.locator(".vx-setup pre").inner_text().strip().splitlines()
    commands = page.locator(".vx-commands pre").inner_text().strip().splitlines()
    wheel, unzipped = files["wheel"].name, files["zip"].name.removesuffix(".zip")
    assert commands == [
        f"pip install {_torch_pin()}{TORCH_INDEX_OPTION}",
        f'pip install "./{wheel}[notebooks]"',
        f"jupyter lab {unzipped}",
    ]
    for path in files.values():
        shutil.copy(path, tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.pop("VITEXPLAIN_FIGURES_DIR", None)
    env.pop("MPLBACKEND", None)
    env["PIP_COMPILE"] = "0"  # pip install --compile off: no .pyc written (see the docstring)
    # The set-up lines and the first two commands, in one shell (the venv stays active); torch's
    # index URL dropped, and what pip would download seen from .venv by a .pth file (see the
    # module's docstring).
    overlay = _overlay(files["wheel"], tmp_path / "from-this-machine")
    purelib = "python -c 'import sysconfig; print(sysconfig.get_path(\"purelib\"))'"
    pth = f'echo {overlay} > "$({purelib})/from-this-machine.pth"'
    install = [*setup, pth, commands[0].replace(TORCH_INDEX_OPTION, ""), commands[1]]
    imports = ", ".join(sorted(_notebook_imports()))
    check = (
        f"python -c 'import sys, {imports}; vitexplain.load_mountains(); "
        "print(torch.__version__, vitexplain.__version__, vitexplain.__file__, sys.prefix)'"
    )
    _bash("\n".join(install), tmp_path, env, timeout=900)
    # pip installed JupyterLab's command in the venv itself
    assert (tmp_path / "vx-env" / "bin" / "jupyter-lab").is_file()

    # The third command, with a headless test's options; while JupyterLab starts, the check of
    # what the environment imports (both import torch: on two cores, side by side).
    port, token = _free_port(), secrets.token_hex(16)
    lab_command = f"source vx-env/bin/activate && exec {commands[2]} --no-browser"
    lab_command += f" --ServerApp.ip=127.0.0.1 --ServerApp.port={port} --ServerApp.port_retries=0"
    lab_command += f" --IdentityProvider.token={token}"
    lab_command += " --allow-root" if os.geteuid() == 0 else ""
    log = (tmp_path / "lab.log").open("wb")
    lab = subprocess.Popen(
        ["bash", "-c", lab_command],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        result = _bash(f"source vx-env/bin/activate\n{check}", tmp_path, env, timeout=300)
        torch_version, version, location, prefix = result.stdout.split()[-4:]
        assert torch_version == _torch_pin().split("==")[1] + "+cpu"
        assert wheel.startswith(f"vitexplain-{version}-")
        venv = tmp_path / "vx-env"
        assert Path(location).is_relative_to(venv) and prefix == str(venv)
        notebooks = sorted(p.name for p in (tmp_path / unzipped).iterdir())
        assert notebooks == [p.name for p in NOTEBOOKS]

        listing = None
        deadline = time.monotonic() + 120
        while listing is None and time.monotonic() < deadline and lab.poll() is None:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/contents/",
                headers={"Authorization": f"token {token}"},
            )
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    listing = json.loads(response.read())
            except OSError:
                time.sleep(0.5)  # the server is not listening yet
        assert listing is not None, (tmp_path / "lab.log").read_text(errors="replace")[-3000:]
        names = sorted(item["name"] for item in listing["content"])
        assert names == [p.name for p in NOTEBOOKS]

        # A kernel the Lab starts runs the environment's own Python.
        def api(path: str, method: str, data: bytes | None = None):
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/{path}",
                data=data,
                method=method,
                headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=60) as response:
                body = response.read()
            return json.loads(body) if body else None

        kernel = api("kernels", "POST", b"{}")
        kernels = [
            p.cmdline()
            for p in psutil.Process(lab.pid).children(recursive=True)
            if "ipykernel_launcher" in " ".join(p.cmdline())
        ]
        api(f"kernels/{kernel['id']}", "DELETE")
        assert kernel["name"] == "python3" and kernels, (kernel, kernels)
        assert all(Path(k[0]).parent == tmp_path / "vx-env" / "bin" for k in kernels), kernels
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        try:
            lab.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(lab.pid, signal.SIGKILL)
            lab.wait(timeout=10)
        log.close()


def _notebook_imports() -> set[str]:
    """The top-level modules the notebooks' code cells import."""
    modules = set()
    for path in NOTEBOOKS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            code = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
            lines = [line for line in code.splitlines() if not line.lstrip().startswith("%")]
            for node in ast.walk(ast.parse("\n".join(lines))):
                if isinstance(node, ast.Import):
                    modules |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    modules.add(node.module.split(".")[0])
    return modules


@pytest.fixture(autouse=True)
def _no_pip_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
