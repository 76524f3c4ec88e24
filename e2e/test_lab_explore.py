"""The Explore sections in JupyterLab, as a screen reader meets them: Chromium's own accessibility
tree (the DevTools protocol's Accessibility domain), not only axe.

After Run All (the venv's kernel) in each notebook with an Explore section:

* every control is a slider whose accessible name is its visible label and whose value is what
  the reader sees: a number's slider runs over the numbers themselves (stride 10 is 10), a list's
  over its positions with the label in ``aria-valuetext`` (patch size 20 reads "20", base 10^4
  "10^4"; Chromium's protocol does not report aria-valuetext, so that attribute is read from the
  DOM);
* the section has no Tab stop without a name (no readout box beside a slider);
* an arrow key redraws the figure and a polite live region announces the new caption;
* saved, the kernel shut down and the notebook opened again, the section shows the last figure
  with its alt text and caption, not "Error displaying widget: model not found" (the widget state
  is saved with the notebook: `make setup` sets JupyterLab's saveState).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from test_lab import (
    CELL,
    NOTEBOOKS_WITH_EXPLORE,
    RENDER_TIMEOUT,
    RUN_ALL_TIMEOUT,
    load,
    open_notebook,
    tags,
    wait_for_kernel_idle,
)

import vitexplain as vx

SECTIONS = {
    "01_patch_tokenization": lambda: vx.tokenization_explore(vx.load_mountains()),
    "03_sinusoidal_pe_clocks": vx.clock_explore,
    "05_t2t_soft_split": lambda: vx.softsplit_explore(vx.load_mountains()),
}
WIDGET = ".vx-explore-widget"


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


@pytest.mark.parametrize(
    "path", NOTEBOOKS_WITH_EXPLORE, ids=[p.stem for p in NOTEBOOKS_WITH_EXPLORE]
)
def test_explore_in_lab_is_named_valued_announced_and_survives_reopening(
    page: Page, lab, path: Path
):
    explore = SECTIONS[path.stem]()
    names = list(explore.controls)
    nb = load(path)
    index = next(i for i, c in enumerate(nb["cells"]) if "explore" in tags(c))
    open_notebook(page, lab, path, nb)
    wait_for_kernel_idle(page, RENDER_TIMEOUT)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    cell = page.locator(CELL).nth(index)
    figure = cell.locator("figure img").last
    expect(figure).to_have_attribute("src", re.compile(r"^data:image/png"), timeout=RUN_ALL_TIMEOUT)
    wait_for_kernel_idle(page, RUN_ALL_TIMEOUT)
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("Accessibility.enable")

    # Each control: a slider named by its label, valued as the reader sees it.
    sliders = cell.locator(f"{WIDGET} input")
    assert sliders.count() == len(names)
    for c, name in enumerate(names):
        node = ax_node(cdp, f"{WIDGET} input", c)
        spec = explore.controls[name]
        start = explore.labels(name)[explore.values(name).index(spec.value)]
        assert ax_text(node, "role") == "slider", node
        assert ax_text(node, "name") == spec.description, node
        if isinstance(spec, vx.Number):  # the slider's own value is the number
            assert ax_text(node, "value") == spec.value, node
        else:  # a list's position; the label is in aria-valuetext, which the protocol's
            # Accessibility domain does not report (its valuetext is the value's text)
            assert ax_text(node, "value") == explore.values(name).index(spec.value), node
            assert sliders.nth(c).get_attribute("aria-valuetext") == start

    # ipywidgets wrote title="null" on its labels; these have no title at all.
    assert cell.locator(f"{WIDGET} [title]").count() == 0

    # No Tab stop without a name in the section.
    focusable = cell.locator(
        f"{WIDGET} input, {WIDGET} button, {WIDGET} select, {WIDGET} textarea, "
        f"{WIDGET} [tabindex]:not([tabindex='-1'])"
    )
    assert focusable.count() == len(names)
    for c in range(focusable.count()):
        assert ax_text(ax_node(cdp, f"{WIDGET} input", c), "name"), c

    # An arrow key on the last control: the figure is redrawn, the caption announced politely.
    last = names[-1]
    caption_before = cell.locator("figure figcaption").last.inner_text()
    sliders.nth(len(names) - 1).focus()
    page.keyboard.press("ArrowLeft")
    expect(cell.locator("figure figcaption").last).not_to_have_text(
        caption_before, timeout=RUN_ALL_TIMEOUT
    )
    values = {n: explore.controls[n].value for n in names}
    position = explore.values(last).index(values[last])
    values[last] = explore.values(last)[max(position - 1, 0)]
    alt, caption = explore.texts(**values)
    assert figure.get_attribute("alt") == alt
    status = cell.locator(".vx-explore-status[role='status']")
    expect(status).to_have_text(caption, timeout=RUN_ALL_TIMEOUT)
    live = ax_node(cdp, ".vx-explore-status", 0)
    assert ax_property(live, "live") == "polite", live
    assert ax_text(ax_node(cdp, f"{WIDGET} input", len(names) - 1), "name") == (
        explore.controls[last].description
    )

    # Saved, kernel shut down, opened again: the last figure and caption, no widget error.
    with page.expect_request(lambda r: r.method == "PUT" and "/api/contents/" in r.url):
        page.keyboard.press("Control+s")
    for session in lab.api("sessions"):
        lab.api(f"sessions/{session['id']}", method="DELETE")
    saved = load(lab.notebooks / path.name)
    page.goto(lab.url(f"lab/tree/{path.name}", "reset"))
    expect(page.locator(CELL)).to_have_count(len(saved["cells"]), timeout=RENDER_TIMEOUT)
    cell = page.locator(CELL).nth(index)
    expect(cell.locator("figure figcaption").last).to_have_text(caption, timeout=RENDER_TIMEOUT)
    assert cell.locator("figure img").last.get_attribute("alt") == alt
    assert "Error displaying widget" not in cell.inner_text()
    # Leave the working copy as the next test expects it: the series' notebook.
    page.goto("about:blank")
    (lab.notebooks / path.name).write_bytes(path.read_bytes())
