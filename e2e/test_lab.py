"""A reader's path through JupyterLab, in a real browser (Debian's Chromium via Playwright).

The Lab serves a working copy of notebooks/ as `make lab` does, with autosave on (conftest.py).
Here, without running anything (the stored outputs render without a kernel's help):

* every notebook opens untrusted (as from a fresh clone) and shows its stored figures (as many
  <img> as stored figures), each with its alt text (axe-core's `image-alt` rule on the notebook
  panel) and, for the HTML <figure> of vx.display_figure, its caption; no error output except
  the intentional ones of `raises-exception` cells; notebook 05 shows the GIF;
* every prediction's reveal is folded until the reader clicks its bar, then shows its figures
  with alt text (the alt-text checks above run with every reveal open);
* notebook 01 opens with no notification pop-up over it; a screenshot goes to lab_01.png in
  $VITEXPLAIN_FIGURES_DIR (`make e2e` sets it to a temporary folder), else figures/.

The notebooks share one page (conftest's `lab_page`): each is opened in the Lab already there
(File > Open from Path) and closed again, not by loading Lab anew. The Explore sections, which
need a live kernel, are checked in test_lab_explore.py (with these helpers). The Lab runs with
windowingMode "none" (see conftest.py), so every cell is in the DOM.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from conftest import AXE_SCRIPT, shut_kernels_down
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
FIGURES = ROOT / "figures"
NOTEBOOK_PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
IMAGE_MIMES = ("image/png", "image/gif")
# The HTML <figure> of vx.display_figure / display_gif: its image is inline, with its alt text.
FIGURE_IMG = re.compile(r'<figure class="vx-figure"><img src="data:(image/(?:png|gif));base64,')
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# An output shows an error when its text holds a traceback (error outputs are rendered as
# stderr too, as "ValueError    Traceback (most recent call last) ...").
TRACEBACK_JS = r"/Traceback \(most recent call last\)|^\s*\w*(Error|Exception)\b/m"
RENDER_TIMEOUT = 60_000  # ms: a notebook's page and its stored outputs
RUN_ALL_TIMEOUT = 180_000  # ms: Run All of notebook 03 in a live kernel (~25 s on a busy machine)
NO_POPUP_WINDOW = 5.0  # s after the notebook has rendered in which no pop-up may appear

CELL = ".jp-NotebookPanel .jp-Notebook .jp-Cell"
LAB_BUSY = ".jp-NotebookPanel, .jp-Dialog"  # a notebook open, or a dialog
OUTPUT_IMG = ".jp-OutputArea-output img"


# --- what the .ipynb stores ---------------------------------------------------------------------


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return text if isinstance(text, str) else "".join(text)


def folded(cell: dict) -> bool:
    """A prediction's reveal: its outputs are stored folded (`jupyter.outputs_hidden`), and Lab
    renders them only when the reader opens them (reveals_fold_until_opened below does)."""
    return bool(cell.get("metadata", {}).get("jupyter", {}).get("outputs_hidden"))


def stored_images(nb: dict) -> dict[str, int]:
    """Stored figures by image type: HTML <figure>s (what Lab renders of a bundle holding both
    is the HTML), else bare image outputs; folded cells left out."""
    counts = dict.fromkeys(IMAGE_MIMES, 0)
    for cell in (c for c in nb["cells"] if not folded(c)):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            html = data.get("text/html", "")
            html = html if isinstance(html, str) else "".join(html)
            figures = FIGURE_IMG.findall(html)
            for mime in figures:
                counts[mime] += 1
            if not figures:
                for mime in IMAGE_MIMES:
                    if mime in data:
                        counts[mime] += 1
                        break
    return counts


def stored_captions(nb: dict) -> list[str]:
    """The captions of the stored HTML figures, in order (folded cells left out)."""
    captions = []
    for cell in (c for c in nb["cells"] if not folded(c)):
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            html = html if isinstance(html, str) else "".join(html)
            captions += re.findall(r"<figcaption>(.*?)</figcaption>", html)
    return captions


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
    """Open the series' version of a notebook (written into the working copy: an earlier test
    may have saved it there changed): in the Lab already on the page when nothing is open there,
    else in a fresh Lab workspace (?reset: no tab restored from a previous test); wait until
    every cell is attached and every stored figure has loaded; return the time."""
    (lab.notebooks / path.name).write_bytes(path.read_bytes())  # the series' notebook
    if page.url.startswith(lab.base_url) and not page.locator(LAB_BUSY).count():
        # Lab is up with nothing open (close_notebook): File > Open from Path, as a reader can,
        # and Lab is not loaded again.
        open_from_path(page, path.name)
    else:
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


def open_from_path(page: Page, name: str) -> None:
    """File > Open from Path, as a reader can, in the Lab already on the page."""
    file_menu(page, "Open from Path…")
    page.locator(".jp-Dialog input").fill(name)
    page.keyboard.press("Enter")


def file_menu(page: Page, item: str) -> None:
    page.get_by_role("menuitem", name="File", exact=True).click()
    page.get_by_role("menuitem", name=item, exact=True).click()


def close_notebook(page: Page) -> None:
    """Close every tab (File > Close All Tabs), discarding what the test changed
    (opened reveals): the next open_notebook opens its notebook in the same Lab."""
    file_menu(page, "Close All Tabs")
    discard = page.locator(".jp-Dialog button", has_text="Discard")
    page.wait_for_function(  # the notebook closed, or Lab asking whether to save it
        """() => !document.querySelector('.jp-NotebookPanel') || [...document.querySelectorAll(
            '.jp-Dialog button')].some((b) => b.textContent.trim() === 'Discard')"""
    )
    if discard.count():
        discard.click()
    expect(page.locator(LAB_BUSY)).to_have_count(0)


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


def image_alt_violations(page: Page) -> list[str]:
    """axe-core's `image-alt` violations on the notebook panel (that rule alone: the others
    judge JupyterLab's own markup, which is not this test's business). axe-core is injected once
    per page load, and only the failing elements' markup comes back from the page."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    return page.evaluate(
        """async () => {
            const results = await axe.run('.jp-NotebookPanel', {
                runOnly: {type: 'rule', values: ['image-alt']}, resultTypes: ['violations'],
            });
            return results.violations.filter((v) => v.id === 'image-alt')
                .flatMap((v) => v.nodes.map((node) => node.html.slice(0, 200)));
        }"""
    )


def images_without_alt(page: Page) -> list[str]:
    """Output images whose alt text is missing or shorter than four words."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output img')]
            .filter((img) => (img.getAttribute('alt') || '').trim().split(/\\s+/).length < 4)
            .map((img) => img.outerHTML.slice(0, 120))"""
    )


NOTEBOOKS_WITH_EXPLORE = [
    p for p in NOTEBOOK_PATHS if any("explore" in tags(c) for c in load(p)["cells"])
]


def test_the_notebooks_are_numbered_from_01():
    prefixes = [p.name[:2] for p in NOTEBOOK_PATHS]
    assert len(prefixes) >= 6, [p.name for p in NOTEBOOK_PATHS]
    assert prefixes == [f"{i:02d}" for i in range(1, len(prefixes) + 1)], prefixes


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=[p.stem for p in NOTEBOOK_PATHS])
def test_notebook_shows_its_stored_outputs(lab_page: Page, lab, path: Path):
    page = lab_page
    nb = load(path)
    images = stored_images(nb)
    assert sum(images.values()) > 0, f"{path.name} stores no figure (was it saved executed?)"
    stray = [
        i
        for i, cell in enumerate(nb["cells"])
        if stored_errors(cell) and "raises-exception" not in tags(cell)
    ]
    assert not stray, f"{path.name} stores error outputs in cells {stray} (not raises-exception)"
    status_before = git_status()

    # Untrusted (the Lab's trust database is empty): JupyterLab sanitizes the stored HTML, and
    # the <figure>s must come through it with their inline images, alt texts and captions.
    rendered = open_notebook(page, lab, path, nb)

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

    # Every figure's caption under it.
    captions = page.locator(".jp-NotebookPanel .jp-OutputArea-output figure figcaption")
    expect(captions).to_have_text([html.unescape(c) for c in stored_captions(nb)])
    if path == NOTEBOOK_PATHS[0]:
        screenshot(page)

    # The predictions' reveals are folded until the reader opens them.
    reveals_fold_until_opened(page, nb)

    # Every figure, the opened reveals' included, carries its alt text into Lab's page.
    assert not images_without_alt(page), f"{path.name}: images without alt text"
    assert not image_alt_violations(page), f"{path.name}: axe-core image-alt violations"
    if path == NOTEBOOK_PATHS[0]:
        no_popup(page, rendered)

    assert git_status() == status_before, (status_before, git_status())
    close_notebook(page)
    shut_kernels_down(lab)


def reveals_fold_until_opened(page: Page, nb: dict) -> None:
    """A prediction's reveal is stored folded (cell metadata ``jupyter.outputs_hidden``):
    JupyterLab shows a bar in its place and renders it when the reader clicks the bar, figures
    with alt text and caption included. The mechanism is Lab's own, read from the cell's
    metadata, so it is the same in every notebook; the stored reveals differ, and each notebook
    is open here anyway: every reveal of every notebook is opened. (What each reveal shows
    before and after its click is read from the page in one call each, not element by element.)"""
    reveals = [i for i, cell in enumerate(nb["cells"]) if folded(cell)]
    assert len(reveals) >= 3, reveals
    state = f"""(reveals) => {{
        const visible = (el) => !!el && el.checkVisibility({{visibilityProperty: true}})
            && el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().height > 0;
        const cells = document.querySelectorAll('{CELL}');
        return reveals.map((i) => ({{
            bar: visible(cells[i].querySelector('.jp-OutputPlaceholder')),
            output: visible(cells[i].querySelector('.jp-OutputArea-output')),
            figures: [...cells[i].querySelectorAll('figure')].map((f) => [
                f.querySelector('figcaption')?.textContent ?? '',
                f.querySelector('img')?.getAttribute('alt') ?? '',
            ]),
        }}));
    }}"""
    folded_now = page.evaluate(state, reveals)
    shown = {i: r for i, r in zip(reveals, folded_now, strict=True) if r["output"] or not r["bar"]}
    assert not shown, f"reveals not folded (cell: bar visible, output visible): {shown}"
    cells = page.locator(CELL)
    for i in reveals:
        cells.nth(i).locator(".jp-OutputPlaceholder").click()  # scrolled into view, clicked
    page.wait_for_function(f"(reveals) => ({state})(reveals).every((r) => r.output)", arg=reveals)
    opened = page.evaluate(state, reveals)
    for i, now in zip(reveals, opened, strict=True):
        alts = {" ".join(c.split()): alt for c, alt in now["figures"]}  # caption -> alt text
        for output in nb["cells"][i]["outputs"]:  # its figures, with alt text and caption
            stored = "".join(output.get("data", {}).get("text/html", ""))
            for caption in re.findall(r"<figcaption>(.*?)</figcaption>", stored):
                caption = " ".join(html.unescape(caption).split())
                assert caption in alts, (i, caption, list(alts))
                assert re.search(r"\w+ \w+ \w+", alts[caption]), (i, caption, alts[caption])


def screenshot(page: Page) -> None:
    """What a reader sees on opening notebook 01: the figures (lab_01.png)."""
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


def no_popup(page: Page, rendered: float) -> None:
    """No toast or dialog over notebook 01 (the news and update checks are off in the overrides
    `make setup` writes). JupyterLab asks about its news feed ~3 s after start-up when
    `fetchNews` is not set: any pop-up gets NO_POPUP_WINDOW seconds after the notebook rendered
    to show up."""
    toast = page.locator(".Toastify__toast, .jp-Dialog")
    remaining = max(1.0, NO_POPUP_WINDOW - (time.monotonic() - rendered))
    try:
        toast.first.wait_for(state="attached", timeout=remaining * 1000)
    except PlaywrightError:
        pass  # timed out: nothing popped up
    else:
        pytest.fail(f"a pop-up appeared over notebook 01: {toast.first.inner_text()!r}")


def unintended_errors(page: Page, nb: dict) -> dict[int, list[str]]:
    """Tracebacks shown in cells not tagged raises-exception (Run All runs on past those)."""
    return {
        i: texts
        for i, texts in enumerate(errors_per_cell(page))
        if texts and "raises-exception" not in tags(nb["cells"][i])
    }


def active_cell_js() -> str:
    """A JavaScript expression: the index of the active cell."""
    return (
        f"[...document.querySelectorAll('{CELL}')]"
        ".findIndex((c) => c.classList.contains('jp-mod-active'))"
    )


def active_cell(page: Page) -> int:
    return page.evaluate(f"() => {active_cell_js()}")


def focused(page: Page) -> dict:
    """The focused element: its role, its value (a slider's) and the cell it sits in."""
    return page.evaluate(
        f"""() => {{
            const el = document.activeElement;
            const cell = el && el.closest('{CELL}');
            const range = el && el.type === 'range';  // a native slider has no role attribute
            return {{
                role: el ? el.getAttribute('role') || (range ? 'slider' : null) : null,
                now: el ? (range ? el.value : el.getAttribute('aria-valuenow')) : null,
                max: el ? (range ? el.max : el.getAttribute('aria-valuemax')) : null,
                cell: cell ? [...document.querySelectorAll('{CELL}')].indexOf(cell) : -1,
            }};
        }}"""
    )


def tab_to_next_slider(page: Page, index: int, max_presses: int = 60) -> int:
    """Press Tab until a slider of cell `index` has the focus; return the presses it took."""
    for presses in range(1, max_presses + 1):
        page.keyboard.press("Tab")
        now = focused(page)
        if now["role"] == "slider" and now["cell"] == index:
            return presses
    raise AssertionError(f"{max_presses} Tab presses never reached a slider of cell {index}")
