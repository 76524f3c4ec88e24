"""A reader's path through JupyterLab, in a real browser (Debian's Chromium via Playwright).

* every notebook opens and shows its stored figures (as many <img> as stored image/png and
  image/gif outputs), and no error output except the intentional ones of `raises-exception`
  cells; notebook 05 shows the soft-split GIF;
* notebook 01 opens with no notification pop-up over it; a screenshot goes to lab_01.png in
  $VITEXPLAIN_FIGURES_DIR (`make e2e` sets it to a temporary folder), else figures/;
* in notebook 03, Run All in the venv's python3 kernel, then moving a slider of the Explore
  section redraws its figure.

The Lab runs with windowingMode "none" (see conftest.py), so every cell is in the DOM.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
FIGURES = ROOT / "figures"
NOTEBOOK_PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
IMAGE_MIMES = ("image/png", "image/gif")
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# An output shows an error when its text holds a traceback (error outputs are rendered as
# stderr too, as "ValueError    Traceback (most recent call last) ...").
TRACEBACK_JS = r"/Traceback \(most recent call last\)|^\s*\w*(Error|Exception)\b/m"
RENDER_TIMEOUT = 60_000  # ms: a notebook's page and its stored outputs
RUN_ALL_TIMEOUT = 180_000  # ms: Run All of notebook 03 in a live kernel (~25 s on a busy machine)
NO_POPUP_WINDOW = 5.0  # s after the notebook has rendered in which no pop-up may appear

CELL = ".jp-NotebookPanel .jp-Notebook .jp-Cell"
OUTPUT_IMG = ".jp-OutputArea-output img"


# --- what the .ipynb stores ---------------------------------------------------------------------


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return text if isinstance(text, str) else "".join(text)


def stored_images(nb: dict) -> dict[str, int]:
    counts = dict.fromkeys(IMAGE_MIMES, 0)
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            for mime in IMAGE_MIMES:
                if mime in output.get("data", {}):
                    counts[mime] += 1
                    break
    return counts


def stored_errors(cell: dict) -> int:
    """Error outputs, and stderr streams holding a traceback, stored in one cell."""
    count = 0
    for output in cell.get("outputs", []):
        if output["output_type"] == "error":
            count += 1
        elif output["output_type"] == "stream" and output.get("name") == "stderr":
            text = output.get("text", "")
            text = text if isinstance(text, str) else "".join(text)
            if re.search(r"Traceback \(most recent call last\)", text):
                count += 1
    return count


# --- what the page shows ------------------------------------------------------------------------


def open_notebook(page: Page, lab, path: Path, nb: dict) -> float:
    """Open a notebook in a fresh Lab workspace (?reset: no tab restored from a previous test),
    wait until every cell is attached and every stored figure has loaded; return the time."""
    page.goto(lab.url(f"lab/tree/{path.name}", "reset"))
    expect(page.locator(".jp-NotebookPanel")).to_have_count(1, timeout=RENDER_TIMEOUT)
    expect(page.locator(CELL)).to_have_count(len(nb["cells"]), timeout=RENDER_TIMEOUT)
    expected = sum(stored_images(nb).values())
    images = page.locator(f".jp-NotebookPanel {OUTPUT_IMG}")
    expect(images, f"{path.name}: <img> in the output areas").to_have_count(
        expected, timeout=RENDER_TIMEOUT
    )
    page.wait_for_function(
        """(n) => {
            const imgs = document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output img');
            return imgs.length === n && [...imgs].every((i) => i.complete && i.naturalWidth > 0);
        }""",
        arg=expected,
        timeout=RENDER_TIMEOUT,
    )
    return time.monotonic()


def errors_per_cell(page: Page) -> list[list[str]]:
    """For every cell in DOM order, the texts of its outputs that show a traceback."""
    return page.evaluate(
        f"""() => [...document.querySelectorAll('{CELL}')].map((cell) =>
            [...cell.querySelectorAll('{STDERR}')]
                .map((o) => o.textContent)
                .filter((t) => {TRACEBACK_JS}.test(t)))"""
    )


def wait_for_kernel_idle(page: Page, timeout: float) -> None:
    """The status bar says "Python 3 (ipykernel) | Idle". (The toolbar's execution indicator
    already reads "idle" while the session has no kernel yet; a Run All then does nothing.)"""
    expect(
        page.locator(".jp-StatusBar-Widget").get_by_text(re.compile(r"^Python 3.*\|\s*Idle$"))
    ).to_have_count(1, timeout=timeout)


# --- tests --------------------------------------------------------------------------------------


def git_status() -> str:
    """Every changed or new file of the checkout (ignored ones excepted)."""
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_the_notebooks_are_numbered_from_01():
    prefixes = [p.name[:2] for p in NOTEBOOK_PATHS]
    assert len(prefixes) >= 6, [p.name for p in NOTEBOOK_PATHS]
    assert prefixes == [f"{i:02d}" for i in range(1, len(prefixes) + 1)], prefixes


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=[p.stem for p in NOTEBOOK_PATHS])
def test_notebook_shows_its_stored_outputs(page: Page, lab, path: Path):
    nb = load(path)
    images = stored_images(nb)
    assert sum(images.values()) > 0, f"{path.name} stores no figure (was it saved executed?)"
    stray = [
        i
        for i, cell in enumerate(nb["cells"])
        if stored_errors(cell) and "raises-exception" not in tags(cell)
    ]
    assert not stray, f"{path.name} stores error outputs in cells {stray} (not raises-exception)"

    open_notebook(page, lab, path, nb)

    # Errors on the page: exactly the stored ones of raises-exception cells, none elsewhere.
    shown = errors_per_cell(page)
    expected = [stored_errors(c) if "raises-exception" in tags(c) else 0 for c in nb["cells"]]
    wrong = {
        i: (len(texts), expected[i], [t[:300] for t in texts])
        for i, texts in enumerate(shown)
        if len(texts) != expected[i]
    }
    assert not wrong, f"{path.name}: cell -> (errors shown, expected, texts): {wrong}"

    # GIFs are <img src="data:image/gif...">; notebook 05 must show its soft-split animation.
    gifs = page.locator(f'.jp-NotebookPanel {OUTPUT_IMG}[src^="data:image/gif"]')
    expect(gifs).to_have_count(images["image/gif"])
    if path.name.startswith("05_"):
        assert images["image/gif"] >= 1, f"{path.name} stores no GIF (the soft-split animation)"

    assert not page.writes, f"the page wrote to the notebooks: {page.writes}"


def test_notebook_01_opens_without_popups(page: Page, lab):
    """What a reader sees on opening notebook 01: the figures, no toast or dialog over them (the
    news and update checks are off in the overrides `make setup` writes). Saves the screenshot."""
    path = NOTEBOOK_PATHS[0]
    nb = load(path)
    rendered = open_notebook(page, lab, path, nb)
    wait_for_kernel_idle(page, RENDER_TIMEOUT)

    # Collapse the file browser: its "Modified: 3m ago" column would change the screenshot's
    # bytes on every run (and dirty the committed figures/lab_01.png).
    open_tab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if open_tab.count():
        open_tab.click()
        expect(open_tab).to_have_count(0)
    first_figure = page.locator(f".jp-NotebookPanel {OUTPUT_IMG}").first
    first_figure.evaluate("(img) => img.scrollIntoView({block: 'center'})")
    folder = Path(os.environ.get("VITEXPLAIN_FIGURES_DIR") or FIGURES)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "lab_01.png"))

    # JupyterLab asks about its news feed ~3 s after start-up when `fetchNews` is not set;
    # give any pop-up NO_POPUP_WINDOW seconds after the notebook rendered to show up.
    toast = page.locator(".Toastify__toast, .jp-Dialog")
    remaining = max(1.0, NO_POPUP_WINDOW - (time.monotonic() - rendered))
    try:
        toast.first.wait_for(state="attached", timeout=remaining * 1000)
    except PlaywrightError:
        pass  # timed out: nothing popped up
    else:
        pytest.fail(f"a pop-up appeared over notebook 01: {toast.first.inner_text()!r}")


def test_notebook_03_explore_slider_redraws(page: Page, lab):
    """Run All in the live Lab (the venv's python3 kernel), then move the Explore section's
    dimension slider with the keyboard: the figure's <img> must change."""
    path = next(p for p in NOTEBOOK_PATHS if p.name.startswith("03_"))
    nb = load(path)
    explore = [i for i, c in enumerate(nb["cells"]) if "explore" in tags(c)]
    assert len(explore) == 1, f"{path.name}: expected one cell tagged explore, found {explore}"
    index = explore[0]
    cell_json = nb["cells"][index]
    assert "nbval-ignore-output" in tags(cell_json), tags(cell_json)
    assert "interact" in source(cell_json), "the Explore cell should use ipywidgets' interact"
    assert not cell_json.get("outputs"), "the Explore cell's stored output should be stripped"

    status_before = git_status()
    open_notebook(page, lab, path, nb)
    wait_for_kernel_idle(page, RENDER_TIMEOUT)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()

    cell = page.locator(CELL).nth(index)
    figure = cell.locator(OUTPUT_IMG).last
    try:
        expect(figure).to_have_attribute("src", re.compile(r"\S"), timeout=RUN_ALL_TIMEOUT)
    except AssertionError:
        errors = {i: t for i, t in enumerate(errors_per_cell(page)) if t}
        prompts = page.locator(".jp-NotebookPanel .jp-InputPrompt").all_inner_texts()
        raise AssertionError(
            f"the Explore cell (cell {index}) drew no figure after Run All; "
            f"errors: {errors}; prompts: {prompts}"
        ) from None
    wait_for_kernel_idle(page, RUN_ALL_TIMEOUT)
    errors = {i: t for i, t in enumerate(errors_per_cell(page)) if t}
    assert not errors, f"Run All of {path.name} showed errors: {errors}"

    # The kernel is the venv's python3 (started by the server from sys.executable).
    kernels = [
        p.cmdline()
        for p in psutil.Process(lab.process.pid).children(recursive=True)
        if "ipykernel_launcher" in " ".join(p.cmdline())
    ]
    assert kernels, "no kernel process found under JupyterLab"
    venv_bin = ROOT / ".venv" / "bin"
    assert all(Path(k[0]).parent == venv_bin for k in kernels), (kernels, venv_bin)

    # The controls are labelled form fields: found by their accessible names, as a screen
    # reader finds them. The dimension d is a number field.
    expect(cell.get_by_label("base", exact=True)).to_be_visible()
    field = cell.get_by_label("d", exact=True)
    expect(field).to_be_visible()
    value = int(field.input_value())

    digest = """async (img) => {
        const bytes = await (await fetch(img.src)).arrayBuffer();
        const hash = await crypto.subtle.digest('SHA-256', bytes);
        const hex = [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, '0'));
        return [img.src, hex.join('')];
    }"""
    src_before, hash_before = figure.evaluate(digest)

    field.focus()
    field.press("ArrowUp")
    field.press("Enter")
    expect(field).to_have_value(str(value + 2))
    expect(figure).not_to_have_attribute("src", src_before, timeout=RUN_ALL_TIMEOUT)
    src_after, hash_after = figure.evaluate(digest)
    assert hash_after != hash_before, "the slider moved but the figure's image did not change"
    wait_for_kernel_idle(page, RUN_ALL_TIMEOUT)
    errors = {i: t for i, t in enumerate(errors_per_cell(page)) if t}
    assert not errors, f"moving the slider showed errors: {errors}"

    assert not page.writes, f"the page wrote to the notebooks: {page.writes}"
    # A reader's run writes nothing: no figure, no file, tracked or not.
    assert git_status() == status_before, (status_before, git_status())
