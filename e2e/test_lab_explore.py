"""The Explore sections in JupyterLab (notebooks 01, 03, 05), as a reader with a keyboard and a
screen-reader user meet them. The reader trusts the notebook (the command palette's Trust
Notebook) and runs the cells the section needs in the venv's python3 kernel (no
`VITEXPLAIN_FIGURES_DIR`: no error may show): the imports and every earlier cell that defines a
name the section's cell reads, found from the code itself (`needed_cells`), not Run All: every
notebook runs whole, twice, elsewhere in CI (nbval here and from the wheel). (Run All trusts every
cell it runs; a partly run notebook stays untrusted when saved, and JupyterLab renders a widget
only in a trusted notebook: reopened, the cell would show the widget's text.) Then

* every control is a slider whose accessible name is its visible label and whose value is what
  the reader sees, in Chromium's own accessibility tree (the DevTools protocol's Accessibility
  domain), not only axe: a number's slider runs over the numbers themselves (stride 10 is 10), a
  list's over its positions; every slider's ``aria-valuetext`` says what its value means, as on
  the site (issue 38: a bare "20" or "10^4" before; now "patch size 20 pixels", "base 10^4 =
  10,000", "stride 10 pixels": Explore.says; Chromium's protocol does not report
  aria-valuetext, so that attribute is read from the DOM), and each slider is a target at least
  24 px tall (16 px before); the section has no Tab stop without a name (no readout box beside
  a slider);
* by keyboard alone, Tab reaches each control and an arrow key moves it: the value changes, the
  figure is redrawn with the package's alt text and caption (explore.texts), a polite live
  region announces the caption, the focus stays in the control and the notebook's cell selection
  does not move; every figure keeps its alt text (axe-core's `image-alt`);
* autosave and Ctrl+S write the working copy, and `git status --porcelain
  --untracked-files=all` is what it was before;
* in 01, a prediction: the learner's guess, typed into its cell and run, is graded in the
  kernel by ``vx.exercises.check`` (the kernel has imported the package already; that every
  reveal is folded until opened is checked in every notebook by test_lab.py);
* the kernels shut down and the notebooks opened again, each section shows its last figure with
  its alt text and caption, not "Error displaying widget: model not found" (the widget state is
  saved with the notebook: `make setup` sets JupyterLab's saveState).

The three sections are one test in one Lab page (conftest's `lab_page`): each notebook is opened
in the Lab already there (File > Open from Path), run, saved and closed (its kernel goes on, as
Lab leaves it); then the three kernels are shut down at once, and Lab is loaded again once to
reopen the three notebooks one after the other.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import psutil
from conftest import AUTOSAVE_INTERVAL, shut_kernels_down, start_kernels
from playwright.sync_api import Page, expect
from test_lab import (
    CELL,
    NOTEBOOKS_WITH_EXPLORE,
    RENDER_TIMEOUT,
    RUN_ALL_TIMEOUT,
    active_cell,
    active_cell_js,
    close_notebook,
    errors_per_cell,
    focused,
    git_status,
    image_alt_violations,
    images_without_alt,
    load,
    open_from_path,
    open_notebook,
    source,
    tab_to_next_slider,
    tags,
    unintended_errors,
    wait_for_kernel_idle,
)

import vitexplain as vx
from vitexplain import exercises as ex

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = {
    "01_patch_tokenization": lambda: vx.tokenization_explore(vx.load_mountains()),
    "03_sinusoidal_pe_clocks": vx.clock_explore,
    "05_t2t_soft_split": lambda: vx.softsplit_explore(vx.load_mountains()),
}
WIDGET = ".vx-explore-widget"
AUTOSAVE_TIMEOUT = (AUTOSAVE_INTERVAL + 25) * 1000  # ms: one interval, and a busy machine


def _names(code: str) -> tuple[set[str], set[str]]:
    """The names a cell's code assigns (imports, defs, targets) and the names it reads."""
    tree = ast.parse("\n".join(line for line in code.splitlines() if not line.startswith("%")))
    stored, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stored |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stored.add(node.name)
    return stored, read


def needed_cells(nb: dict, index: int) -> list[int]:
    """The code cells before `index` that cell `index` needs, in order: the first code cell
    (imports, `%matplotlib inline`) and, going back, the last cell that assigns each name still
    needed (and what that cell reads in turn)."""
    code = [i for i, c in enumerate(nb["cells"][:index]) if c["cell_type"] == "code"]
    needed, run = _names(source(nb["cells"][index]))[1], {code[0]}
    for i in reversed(code):
        stored, read = _names(source(nb["cells"][i]))
        if stored & needed:
            run.add(i)
            needed = (needed - stored) | read
    return sorted(run)


def ax_node(cdp, selector: str, index: int) -> dict:
    """Chromium's accessibility node of the index-th element matching selector."""
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]
    nodes = cdp.send(
        "Accessibility.getPartialAXTree", {"nodeId": ids[index], "fetchRelatives": False}
    )
    return nodes["nodes"][0]


def ax_property(node: dict, name: str):
    for prop in node.get("properties", []):
        if prop["name"] == name:
            return prop["value"].get("value")
    return None


def ax_text(node: dict, field: str) -> str:
    return (node.get(field) or {}).get("value", "")


@dataclass
class Section:
    """A notebook's Explore section: the stored notebook, its explore cell and the package's
    object behind it."""

    path: Path
    nb: dict
    index: int
    explore: object

    @classmethod
    def of(cls, path: Path) -> Section:
        nb = load(path)
        cells = [i for i, c in enumerate(nb["cells"]) if "explore" in tags(c)]
        assert len(cells) == 1, f"{path.name}: expected one cell tagged explore, found {cells}"
        return cls(path, nb, cells[0], SECTIONS[path.stem]())


def trust_and_run(page: Page, s: Section) -> None:
    """Trust Notebook from the command palette once the kernel has started (a kernel that starts
    meanwhile takes the focus back to the notebook), then send the needed cells and the Explore
    cell to the kernel (it runs them in the order sent); wait for the section's first figure."""
    wait_for_kernel_idle(page, RENDER_TIMEOUT)  # before the kernel exists, Lab runs nothing
    page.get_by_role("menuitem", name="View", exact=True).click()
    page.get_by_role("menuitem", name="Activate Command Palette").click()
    palette = page.locator(".lm-CommandPalette-input")
    expect(palette).to_be_focused()  # no keys may reach the notebook's command mode
    palette.fill("Trust Notebook")
    palette.press("Enter")
    page.get_by_role("button", name="Confirm Trusting this notebook").click()
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    needed = needed_cells(s.nb, s.index)
    for count, i in enumerate([*needed, s.index], start=1):
        page.locator(CELL).nth(i).locator(".cm-content").click()
        page.wait_for_function(f"() => ({active_cell_js()}) === {i}")
        page.keyboard.press("Control+Enter")
        # Sent to the kernel (queued or run: the count-th execution of a fresh kernel) before
        # the next cell is: the kernel runs them in that order.
        prompt = page.locator(CELL).nth(i).locator(".jp-InputPrompt")
        expect(prompt).to_have_text(re.compile(rf"^\s*\[(\*|{count})\]:\s*$"))
    figure = page.locator(CELL).nth(s.index).locator("figure img").last
    try:
        expect(figure).to_have_attribute(
            "src", re.compile(r"^data:image/png"), timeout=RUN_ALL_TIMEOUT
        )
    except AssertionError:
        errors = {i: t for i, t in enumerate(errors_per_cell(page)) if t}
        prompts = page.locator(".jp-NotebookPanel .jp-InputPrompt").all_inner_texts()
        raise AssertionError(
            f"{s.path.name}: the Explore cell (cell {s.index}) drew no figure after cells "
            f"{needed} and itself ran; errors: {errors}; prompts: {prompts}"
        ) from None
    wait_for_kernel_idle(page, RUN_ALL_TIMEOUT)
    errors = unintended_errors(page, s.nb)
    assert not errors, f"running {s.path.name}'s Explore section showed errors: {errors}"


def assert_venv_kernel(lab) -> None:
    """The kernel is the venv's python3 (started by the server from sys.executable)."""
    kernels = [
        p.cmdline()
        for p in psutil.Process(lab.process.pid).children(recursive=True)
        if "ipykernel_launcher" in " ".join(p.cmdline())
    ]
    assert kernels, "no kernel process found under JupyterLab"
    venv_bin = ROOT / ".venv" / "bin"
    assert all(Path(k[0]).parent == venv_bin for k in kernels), (kernels, venv_bin)


def assert_named_sliders(page: Page, s: Section, cdp) -> None:
    """Each control: a slider named by its label, valued as the reader sees it; no other Tab
    stop in the section."""
    cell = page.locator(CELL).nth(s.index)
    names = list(s.explore.controls)
    sliders = cell.locator(f"{WIDGET} input")
    assert sliders.count() == len(names), s.path.name
    for c, name in enumerate(names):
        node = ax_node(cdp, f"{WIDGET} input", c)
        spec = s.explore.controls[name]
        start = s.explore.says(name)[s.explore.values(name).index(spec.value)]
        assert ax_text(node, "role") == "slider", node
        assert ax_text(node, "name") == spec.description, node
        if isinstance(spec, vx.Number):  # the slider's own value is the number
            assert ax_text(node, "value") == spec.value, node
        else:  # a list's position
            assert ax_text(node, "value") == s.explore.values(name).index(spec.value), node
        # What the value means, which the protocol's Accessibility domain does not report
        assert sliders.nth(c).get_attribute("aria-valuetext") == start
        assert sliders.nth(c).bounding_box()["height"] >= 24
    # ipywidgets wrote title="null" on its labels; these have no title at all.
    assert cell.locator(f"{WIDGET} [title]").count() == 0
    # No Tab stop without a name in the section: the sliders are all of them.
    focusable = cell.locator(
        f"{WIDGET} input, {WIDGET} button, {WIDGET} select, {WIDGET} textarea, "
        f"{WIDGET} [tabindex]:not([tabindex='-1'])"
    )
    assert focusable.count() == len(names), s.path.name


def move_every_control_by_keyboard(page: Page, s: Section, cdp) -> tuple[str, str]:
    """From command mode: the cell selection onto the Explore cell, then Tab to each slider and
    one arrow key; return the last figure's alt text and caption."""
    index, names = s.index, list(s.explore.controls)
    cell = page.locator(CELL).nth(index)
    figure = cell.locator("figure img").last
    caption = cell.locator("figure figcaption").last
    page.keyboard.press("Escape")
    for _ in range(len(s.nb["cells"])):
        now = active_cell(page)
        if now == index:
            break
        page.keyboard.press("ArrowDown" if now < index else "ArrowUp")
    assert active_cell(page) == index
    values = {n: s.explore.controls[n].value for n in names}
    status = cell.locator(".vx-explore-status[role='status']")
    for control, name in enumerate(names):
        tab_to_next_slider(page, index)
        before = focused(page)
        src_before = figure.get_attribute("src")
        key = "ArrowLeft" if before["now"] == before["max"] else "ArrowRight"
        page.keyboard.press(key)
        where = f"{s.path.name}, control {control}: {key}"
        expect(figure, f"{where} did not redraw").not_to_have_attribute(
            "src", src_before, timeout=RUN_ALL_TIMEOUT
        )
        after = focused(page)
        assert after["role"] == "slider" and after["cell"] == index, (where, after)
        assert after["now"] != before["now"], f"{where} changed no value"
        assert active_cell(page) == index, f"{where} moved the cell selection"
        # The figure's alt text and caption, and the announcement, are the package's own.
        choices = s.explore.values(name)
        position = choices.index(values[name]) + (1 if key == "ArrowRight" else -1)
        values[name] = choices[position]
        alt, text = s.explore.texts(**values)
        expect(caption).to_have_text(text, timeout=RUN_ALL_TIMEOUT)
        says = s.explore.says(name)[position]
        assert page.evaluate("document.activeElement.getAttribute('aria-valuetext')") == says
        assert figure.get_attribute("alt") == alt, (where, values)
        expect(status).to_have_text(text, timeout=RUN_ALL_TIMEOUT)
    assert ax_property(ax_node(cdp, ".vx-explore-status", 0), "live") == "polite"
    assert ax_text(ax_node(cdp, f"{WIDGET} input", len(names) - 1), "name") == (
        s.explore.controls[names[-1]].description
    )
    return alt, text


def autosave_then_ctrl_s(page: Page, s: Section, writes_before: int) -> None:
    """Autosave (every AUTOSAVE_INTERVAL s: running cells made the notebook dirty) wrote the
    working copy during the section, and nothing is left unsaved (the tab's dirty mark gone);
    then Ctrl+S writes it. (Pressed while an autosave is in flight, Ctrl+S could find the file
    newer than Lab's copy and ask about the conflict: the clean tab rules that out.)"""
    api = f"/api/contents/{s.path.name}"
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    expect(tab).to_have_text(s.path.name)
    expect(tab).not_to_have_class(re.compile(r"\bjp-mod-dirty\b"), timeout=AUTOSAVE_TIMEOUT)
    assert any(w.endswith(api) for w in page.writes[writes_before:]), f"{api}: no autosave"
    saved = lambda r: (  # noqa: E731
        r.request.method == "PUT" and r.url.split("?")[0].endswith(api) and r.ok
    )
    with page.expect_response(saved):
        page.keyboard.press("Control+s")


def a_guess_is_typed_run_and_graded(page: Page, s: Section, exercise: str, guess: int) -> None:
    """The learner's guess, typed into its prediction cell (the kernel has run the imports)
    and run, is graded in the kernel by ``vx.exercises.check``: the package's own verdict."""
    index = next(
        i for i, c in enumerate(s.nb["cells"]) if f'vx.exercises.check("{exercise}"' in source(c)
    )
    page.locator(CELL).nth(index).locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.type(f'guess = {guess}\nvx.exercises.check("{exercise}", guess)')
    page.keyboard.press("Shift+Enter")
    expected = ex.verdict(exercise, ex.grade(exercise, guess), ex.exercise(exercise).why)
    output = page.locator(CELL).nth(index).locator(".jp-OutputArea-output")
    expect(output).to_have_text(re.compile(re.escape(expected)), timeout=RUN_ALL_TIMEOUT)


def test_explore_in_lab_by_keyboard_and_screen_reader_then_saved_and_reopened(lab_page: Page, lab):
    """The three sections in one Lab page, one after the other (a kernel each), then one reload
    of Lab in which all three reopen."""
    page = lab_page
    sections = [Section.of(path) for path in NOTEBOOKS_WITH_EXPLORE]
    assert [s.path.stem for s in sections] == list(SECTIONS)
    status_before = git_status()
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("Accessibility.enable")
    shown = {}
    for s in sections:
        cell_json = s.nb["cells"][s.index]
        assert "nbval-ignore-output" in tags(cell_json), tags(cell_json)
        assert ".widget()" in source(cell_json), "the Explore cell should show explore.widget()"
        assert not cell_json.get("outputs"), "the Explore cell's stored output should be stripped"
        writes_before = len(page.writes)
        open_notebook(page, lab, s.path, s.nb)
        trust_and_run(page, s)
        assert_venv_kernel(lab)
        assert_named_sliders(page, s, cdp)
        shown[s.path.name] = move_every_control_by_keyboard(page, s, cdp)
        wait_for_kernel_idle(page, RUN_ALL_TIMEOUT)
        errors = unintended_errors(page, s.nb)
        assert not errors, f"{s.path.name}: moving the controls showed errors: {errors}"
        assert not images_without_alt(page), f"{s.path.name}: images without alt text"
        assert not image_alt_violations(page), f"{s.path.name}: axe-core image-alt"
        if s is sections[0]:  # a prediction where the kernel has the package already
            a_guess_is_typed_run_and_graded(page, s, "01.p3", 12)
        autosave_then_ctrl_s(page, s, writes_before)
        copy = lab.notebooks / s.path.name
        assert copy.read_bytes() != s.path.read_bytes(), f"{s.path.name}: not saved"
        assert git_status() == status_before, (status_before, git_status())
        close_notebook(page)  # its kernel goes on (as Lab leaves it): all three stop at once

    # The kernels shut down, the three notebooks opened again in one freshly loaded Lab, as a
    # reader's next session opens them: the last figure with its alt text and caption, not
    # "Error displaying widget: model not found" (the widget state is saved with the notebook).
    # Each notebook's fresh kernel starts while Lab loads, before the notebook opens. Why: the
    # widget manager (jupyterlab_widgets 3.0) restores twice, once from the kernel alone when the
    # kernel connects and once from the kernel and then the notebook's saved state, and a widget
    # view waits 2 s (by the clock) for its model. A kernel still booting on a busy machine
    # (three at once, beside Lab's own loading) can make the kernel-only restore mark the
    # manager restored more than 2 s before the saved state's models exist: the view then gives
    # up with that error. A kernel that already runs answers both restores at once.
    shut_kernels_down(lab)
    start_kernels(lab, [s.path.name for s in sections])
    page.goto(lab.url("lab", "reset"))  # Lab loaded again while the kernels boot
    for s in sections:
        saved = load(lab.notebooks / s.path.name)
        assert saved["metadata"].get("widgets"), f"{s.path.name}: widget state not saved"
        open_from_path(page, s.path.name)
        expect(page.locator(CELL)).to_have_count(len(saved["cells"]), timeout=RENDER_TIMEOUT)
        cell = page.locator(CELL).nth(s.index)
        alt, text = shown[s.path.name]
        expect(cell.locator("figure figcaption").last).to_have_text(text, timeout=RENDER_TIMEOUT)
        assert cell.locator("figure img").last.get_attribute("alt") == alt, s.path.name
        assert "Error displaying widget" not in cell.inner_text(), s.path.name
        close_notebook(page)
    # Leave Lab with no notebook open and the working copies as the series' notebooks.
    shut_kernels_down(lab)
    for s in sections:
        (lab.notebooks / s.path.name).write_bytes(s.path.read_bytes())
