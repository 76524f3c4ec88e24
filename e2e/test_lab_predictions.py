"""Predictions in JupyterLab: the learner's guess, typed into its cell and run, is graded in the
kernel by ``vx.exercises.check``. (That every reveal is folded until opened is checked in every
notebook by test_lab.py, which opens them all.)"""

from __future__ import annotations

import re

from conftest import shut_kernels_down
from playwright.sync_api import Page, expect
from test_lab import (
    CELL,
    NOTEBOOK_PATHS,
    RUN_ALL_TIMEOUT,
    close_notebook,
    load,
    open_notebook,
    wait_for_kernel_idle,
)

from vitexplain import exercises as ex


def _path(number: str):
    return next(p for p in NOTEBOOK_PATHS if p.name.startswith(f"{number}_"))


def test_a_guess_is_typed_run_and_graded_in_the_kernel(lab_page: Page, lab):
    page = lab_page
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
    close_notebook(page)  # Lab left with no notebook open for the next test
    shut_kernels_down(lab)
