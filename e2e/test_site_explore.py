"""The Explore sections of the static site (notebooks 01, 03, 05), read offline in Chromium.

docs/_ext/vx_explore.py puts, in place of each Explore cell, the notebook's controls as labelled
range inputs, the frames that scripts/explore_frames.py drew with the package, and
docs/_js/explore.js. Checked here against the package and the stored manifests:

* by keyboard (Tab, arrow keys, Home/End), every state of the site grid shows its own frame,
  alt text and caption (the manifest's, written by the package for JupyterLab's Explore), and
  each change is drawn in under 50 ms;
* the numbers computed in JavaScript equal the package's for every setting JupyterLab's controls
  allow (token counts and the overlap of every soft split, refusals with the package's message;
  clock pairs, periods and table values);
* zero requests beyond the page's files, no JavaScript error, axe 0 in light and dark, no
  sideways scroll at 390 px (test_site_reader.py), and the starting figure with its caption
  without JavaScript.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from conftest import block_network
from playwright.sync_api import Browser, BrowserContext, Page

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "html"
DATA = ROOT / "docs" / "_data" / "explore"
SECTIONS = ["01_patch_tokenization", "03_sinusoidal_pe_clocks", "05_t2t_soft_split"]
REDRAW_LIMIT_MS = 50.0


def _manifest(notebook: str) -> dict:
    return json.loads((DATA / f"{notebook}.json").read_text(encoding="utf-8"))


def _start(manifest: dict) -> int:
    index = 0
    for control in manifest["controls"]:
        index = index * len(control["values"]) + control["start"]
    return index


pytestmark = pytest.mark.usefixtures("built_site")  # conftest.py: fails without `make html`


def _open(page: Page, notebook: str) -> list[str]:
    """Open a notebook's page with every request beyond local files blocked; return those."""
    attempted = block_network(page.context)
    page.goto((SITE / "notebooks" / f"{notebook}.html").as_uri(), wait_until="load")
    return attempted


@pytest.fixture
def page(context: BrowserContext) -> Page:
    fresh = context.new_page()
    fresh.set_default_timeout(30_000)
    fresh.errors = []
    fresh.on("pageerror", lambda error: fresh.errors.append(str(error)))
    return fresh


SHOWN_JS = """(section) => {
  const s = document.querySelector(section);
  const img = s.querySelector('.vx-explore-figure img');
  return {src: img.src, alt: img.alt,
          caption: s.querySelector('.vx-explore-figure figcaption').textContent,
          complete: img.complete && img.naturalWidth > 0,
          numbers: s.querySelector('.vx-explore-numbers').textContent};
}"""


@pytest.mark.parametrize("notebook", SECTIONS)
def test_every_state_by_keyboard_shows_its_frame_alt_and_caption(page: Page, notebook: str):
    manifest = _manifest(notebook)
    attempted = _open(page, notebook)
    section = f"#vx-explore-{notebook[:2]}"
    sliders = page.locator(f"{section} input.vx-explore-slider")
    assert sliders.count() == len(manifest["controls"])
    for control, slider in zip(manifest["controls"], sliders.all(), strict=True):
        # Its accessible name is the notebook's label; its value as the reader sees it.
        named = page.get_by_role("slider", name=control["label"], exact=True)
        assert named.count() == 1 and named.get_attribute("id") == slider.get_attribute("id")
        slider.focus()
        page.keyboard.press("End")
        assert slider.get_attribute("aria-valuetext") == control["labels"][-1]
        page.keyboard.press("Home")
        assert slider.get_attribute("aria-valuetext") == control["labels"][0]
    # Now at state 0; walk the grid in the states' order with the arrow keys (the last slider
    # moves fastest), checking each state against the manifest.
    sizes = [len(c["values"]) for c in manifest["controls"]]
    seen = []
    for index, state in enumerate(manifest["states"]):
        if index:
            position = np.unravel_index(index, sizes)
            previous = np.unravel_index(index - 1, sizes)
            for c, (now, before) in enumerate(zip(position, previous, strict=True)):
                if now != before:
                    sliders.nth(c).focus()
                    page.keyboard.press("ArrowRight" if now > before else "Home")
        shown = page.evaluate(SHOWN_JS, section)
        expected_src = (SITE / "_explore" / state["frame"]).as_uri()
        assert (shown["src"], shown["alt"], shown["caption"]) == (
            expected_src,
            state["alt"],
            state["caption"],
        ), state["values"]
        seen.append(shown["src"])
    assert len(set(seen)) == len(manifest["states"])
    # The files shown are the stored frames, byte for byte.
    for state in manifest["states"]:
        assert (SITE / "_explore" / state["frame"]).read_bytes() == (
            DATA / state["frame"]
        ).read_bytes()
    assert attempted == [] and page.errors == []


REDRAW_JS = """async (section) => {
  const s = document.querySelector(section);
  const sliders = [...s.querySelectorAll('input.vx-explore-slider')];
  const img = s.querySelector('.vx-explore-figure img');
  const times = [];
  for (const slider of sliders) {
    for (let v = 0; v <= Number(slider.max); v++) {
      const t0 = performance.now();
      slider.value = v;
      slider.dispatchEvent(new Event('input', {bubbles: true}));
      await img.decode();  // the new frame is decoded: ready to paint
      times.push(performance.now() - t0);
    }
  }
  return times;
}"""


@pytest.mark.parametrize("notebook", SECTIONS)
def test_a_state_change_is_drawn_in_under_50_ms(page: Page, notebook: str):
    """Each slider swept over its values (handler, caption, numbers, frame decoded), three
    times; a state's time is its fastest sweep, so a busy machine's pauses do not count."""
    _open(page, notebook)
    section = f"#vx-explore-{notebook[:2]}"
    sweeps = [page.evaluate(REDRAW_JS, section) for _ in range(3)]
    times = np.min(sweeps, axis=0)
    print(
        f"{notebook}: {len(times)} redraws, median {np.median(times):.1f} ms, max {max(times):.1f}"
    )
    assert max(times) < REDRAW_LIMIT_MS, f"slowest redraw {max(times):.1f} ms"


def test_01_numbers_equal_the_package_for_every_patch_size(page: Page):
    import vitexplain as vx

    _open(page, "01_patch_tokenization")
    h, w = vx.load_mountains().shape
    for size in [1, 2, 4, 5, 10, 20]:
        js = page.evaluate(f"vxExplore.countTokens({h}, {w}, {size}, {size}, 0)")
        assert (js["rows"], js["cols"], js["tokens"]) == vx.count_tokens(h, w, size, size, 0)
    shown = page.evaluate(SHOWN_JS, "#vx-explore-01")["numbers"]
    assert shown == "P = 20: 3 x 5 = 15 tokens of length 400."


SOFTSPLIT_JS = """([h, w]) => {
  const out = [];
  for (let k = 1; k <= 80; k++) for (let s = 1; s <= 40; s++) for (let p = 0; p <= 20; p++) {
    try {
      const n = vxExplore.softSplit(h, w, k, s, p);
      out.push([n.rows, n.cols, n.tokens, n.missed, n.most]);
    } catch (error) { out.push(error.message); }
  }
  return out;
}"""


def test_05_numbers_equal_the_package_for_all_67200_settings(page: Page):
    """Token counts, and refusals with the package's message, for every (k, s, p) of the
    notebook's sliders; and the overlap (pixels of the picture in no patch, most patches on one
    pixel) against the package's count (vx.overlap_count) on every one of the 62,800 valid
    settings."""
    import vitexplain as vx

    _open(page, "05_t2t_soft_split")
    h, w = vx.load_mountains().shape
    js = page.evaluate(SOFTSPLIT_JS, [h, w])
    settings = [(k, s, p) for k in range(1, 81) for s in range(1, 41) for p in range(21)]
    assert len(js) == len(settings) == 67_200
    valid = 0
    for (k, s, p), got in zip(settings, js, strict=True):
        try:
            rows, cols, tokens = vx.count_tokens(h, w, k, s, p)
        except ValueError as error:
            assert got == str(error), (k, s, p)
            continue
        assert got[:3] == [rows, cols, tokens], (k, s, p)
        counts = vx.overlap_count(h + 2 * p, w + 2 * p, k, s, 0)  # (H + 2p, W + 2p)
        missed = int((counts[p : p + h, p : p + w] == 0).sum())
        assert got[3:] == [missed, int(counts.max())], (k, s, p)
        valid += 1
    assert valid == 62_800


CLOCKS_JS = """() => {
  const out = [];
  for (let e = 4; e <= 32; e++) for (let d = 8; d <= 768; d += 2) {
    const base = Math.pow(10, e / 4);
    const pairs = vxExplore.clockPairs(d, 9);
    out.push([pairs, pairs.map(i => vxExplore.clockPeriod(i, d, base)),
              [vxExplore.sinusoid(1, 0, d, base), vxExplore.sinusoid(99, d - 1, d, base)]]);
  }
  return out;
}"""


def test_03_numbers_equal_the_package_for_all_11049_settings(page: Page):
    """The clocks shown and their periods (vx.clock_pairs, vx.clock_periods), and the two table
    values the page states (from vx.clock_frequencies), for every base and d of the notebook."""
    import vitexplain as vx

    _open(page, "03_sinusoidal_pe_clocks")
    js = page.evaluate(CLOCKS_JS)
    settings = [(10.0 ** (e / 4), d) for e in range(4, 33) for d in range(8, 769, 2)]
    assert len(js) == len(settings) == 11_049
    for (base, d), (pairs, periods, values) in zip(settings, js, strict=True):
        assert pairs == vx.clock_pairs(d).tolist(), (base, d)
        expected = vx.clock_periods(d, base)[pairs]
        np.testing.assert_allclose(periods, expected, rtol=1e-12, err_msg=f"{base}, {d}")
        omega = vx.clock_frequencies(d, base)  # one per pair
        table = [math.sin(1 * omega[0]), math.cos(99 * omega[(d - 1) // 2])]
        np.testing.assert_allclose(values, table, atol=1e-12, err_msg=f"{base}, {d}")


def test_03_whole_tables_equal_the_package_on_the_drawn_settings(page: Page):
    import torch

    import vitexplain as vx

    _open(page, "03_sinusoidal_pe_clocks")
    for state in _manifest("03_sinusoidal_pe_clocks")["states"]:
        base, d = state["values"]["base"], state["values"]["dim"]
        js = page.evaluate(
            """([d, base]) => Array.from({length: 100}, (_, pos) =>
                 Array.from({length: d}, (_, j) => vxExplore.sinusoid(pos, j, d, base)))""",
            [d, base],
        )
        with torch.inference_mode():
            expected = vx.sinusoid_encoding(100, d, base).double().numpy()
        np.testing.assert_allclose(np.array(js), expected, atol=1e-6, err_msg=f"{base}, {d}")


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_explore_pages_have_no_axe_violation(browser: Browser, browser_context_args, mode):
    context = browser.new_context(**browser_context_args, color_scheme=mode)
    try:
        page = context.new_page()
        for notebook in SECTIONS:
            attempted = _open(page, notebook)
            section = page.locator(f"#vx-explore-{notebook[:2]}")
            section.scroll_into_view_if_needed()
            assert section.locator("input.vx-explore-slider").first.is_visible()
            page.locator(f"#vx-explore-{notebook[:2]} input.vx-explore-slider").first.focus()
            page.keyboard.press("ArrowLeft")
            results = Axe().run(page, context=f"#vx-explore-{notebook[:2]}")
            violations = [
                f"{v['id']}: {v['help']} ({v['nodes'][0]['html'][:150]})"
                for v in results.response["violations"]
            ]
            assert violations == [], f"{notebook} ({mode}):\n" + "\n".join(violations)
            assert attempted == []
    finally:
        context.close()


def test_without_javascript_the_starting_figure_and_caption_stay(
    browser: Browser, browser_context_args: dict
):
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    try:
        page = context.new_page()
        for notebook in SECTIONS:
            manifest = _manifest(notebook)
            _open(page, notebook)
            state = manifest["states"][_start(manifest)]
            section = page.locator(f"#vx-explore-{notebook[:2]}")
            img = section.locator(".vx-explore-figure img")
            assert img.get_attribute("alt") == state["alt"]
            assert section.locator("figcaption").text_content() == state["caption"]
            assert page.evaluate("(i) => i.complete && i.naturalWidth > 0", img.element_handle())
            assert not section.locator("input.vx-explore-slider").first.is_visible()
    finally:
        context.close()


def test_the_explore_sections_fit_the_site_budget():
    """The frames next to the pages and the sections' markup (controls, data, script): <= 6 MB."""
    import re

    frames = sum(p.stat().st_size for p in (SITE / "_explore").rglob("*.png"))
    markup = 0
    for notebook in SECTIONS:
        page = (SITE / "notebooks" / f"{notebook}.html").read_text(encoding="utf-8")
        sections = re.findall(r'<div class="vx-explore".*?</script></div>', page, re.S)
        assert len(sections) == 1, notebook
        markup += len(sections[0].encode())
    assert frames + markup <= 6_000_000, (frames, markup)
