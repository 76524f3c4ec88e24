"""Predictions in JupyterLab: a reveal cell's stored output is folded (cell metadata
``jupyter.outputs_hidden``), JupyterLab shows a bar in its place, and the learner's guess is
graded in the kernel; opening the bar shows the result."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from test_lab import CELL, NOTEBOOK_PATHS, RUN_ALL_TIMEOUT, load, open_notebook

from vitexplain import exercises as ex

PATH = next(p for p in NOTEBOOK_PATHS if p.name.startswith("02_"))


def _folded(nb: dict) -> list[int]:
    return [
        i
        for i, cell in enumerate(nb["cells"])
        if cell["metadata"].get("jupyter", {}).get("outputs_hidden")
    ]


def test_a_reveal_is_folded_until_opened_and_the_guess_is_graded(page: Page, lab):
    nb = load(PATH)
    folded = _folded(nb)
    assert len(folded) == 3
    open_notebook(page, lab, PATH, nb)
    cells = page.locator(CELL)
    for i in folded:
        cell = cells.nth(i)
        cell.scroll_into_view_if_needed()
        assert not cell.locator(".jp-OutputArea").is_visible(), i
        expect(cell.locator(".jp-OutputPlaceholder")).to_be_visible()
    shown = [i for i in range(len(nb["cells"])) if nb["cells"][i].get("outputs")]
    visible = [i for i in shown if i not in folded][:3]
    for i in visible:
        cells.nth(i).scroll_into_view_if_needed()
        assert cells.nth(i).locator(".jp-OutputArea").is_visible(), i

    # as a learner does: run the imports, then type a guess for 02.p2 and run it
    first_code = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
    cells.nth(first_code).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    guess = folded[1] - 1
    cells.nth(guess).locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.type('guess = 4\nvx.exercises.check("02.p2", guess)')
    page.keyboard.press("Shift+Enter")
    expected = ex.verdict("02.p2", ex.grade("02.p2", 4), ex.exercise("02.p2").why)
    output = cells.nth(guess).locator(".jp-OutputArea-output")
    expect(output).to_have_text(re.compile(re.escape(expected)), timeout=RUN_ALL_TIMEOUT)

    reveal = cells.nth(folded[1])
    reveal.locator(".jp-OutputPlaceholder").click()
    expect(reveal.locator(".jp-OutputArea")).to_be_visible()
    expect(reveal.locator(".jp-OutputArea-output").first).to_contain_text("unchanged rows 1 and 3")
