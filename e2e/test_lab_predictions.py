"""Predictions in JupyterLab: a reveal cell's stored output is folded (cell metadata
``jupyter.outputs_hidden``): JupyterLab shows a bar in its place and renders it when the reader
clicks the bar, figure, alt text and caption included; the learner's guess, typed into its cell
and run, is graded in the kernel by ``vx.exercises.check``."""

from __future__ import annotations

import html
import re

import pytest
from playwright.sync_api import Page, expect
from test_lab import (
    CELL,
    NOTEBOOK_PATHS,
    RUN_ALL_TIMEOUT,
    folded,
    load,
    open_notebook,
    wait_for_kernel_idle,
)

from vitexplain import exercises as ex


def _path(number: str):
    return next(p for p in NOTEBOOK_PATHS if p.name.startswith(f"{number}_"))


@pytest.mark.parametrize("number", ["02", "05", "07"])
def test_a_reveal_is_folded_until_opened(page: Page, lab, number: str):
    path = _path(number)
    nb = load(path)
    reveals = [i for i, cell in enumerate(nb["cells"]) if folded(cell)]
    assert len(reveals) >= 3
    open_notebook(page, lab, path, nb)
    cells = page.locator(CELL)
    for i in reveals:
        cell = cells.nth(i)
        cell.scroll_into_view_if_needed()
        expect(cell.locator(".jp-OutputPlaceholder")).to_be_visible()
        assert not cell.locator(".jp-OutputArea-output").first.is_visible(), i
        cell.locator(".jp-OutputPlaceholder").click()
        expect(cell.locator(".jp-OutputArea-output").first).to_be_visible()
        for output in nb["cells"][i]["outputs"]:  # its figures, with alt text and caption
            stored = "".join(output.get("data", {}).get("text/html", ""))
            for caption in re.findall(r"<figcaption>(.*?)</figcaption>", stored):
                figure = cell.locator("figure", has_text=html.unescape(caption))
                expect(figure.locator("img")).to_have_attribute("alt", re.compile(r"\w+ \w+ \w+"))


def test_a_guess_is_typed_run_and_graded_in_the_kernel(page: Page, lab):
    path = _path("02")
    nb = load(path)
    open_notebook(page, lab, path, nb)
    cells = page.locator(CELL)
    first_code = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
    wait_for_kernel_idle(page, RUN_ALL_TIMEOUT)  # before the kernel exists, Lab runs nothing
    cells.nth(first_code).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")  # the imports; the kernel runs cells in the order sent
    guess = next(
        i for i, c in enumerate(nb["cells"]) if 'vx.exercises.check("02.p2"' in "".join(c["source"])
    )
    cells.nth(guess).locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.type('guess = 4\nvx.exercises.check("02.p2", guess)')
    page.keyboard.press("Shift+Enter")
    expected = ex.verdict("02.p2", ex.grade("02.p2", 4), ex.exercise("02.p2").why)
    output = cells.nth(guess).locator(".jp-OutputArea-output")
    expect(output).to_have_text(re.compile(re.escape(expected)), timeout=RUN_ALL_TIMEOUT)
