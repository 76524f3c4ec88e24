"""scripts/explore_frames.py and docs/_data/explore/: the site's Explore frames are what the
package draws now, with the alt text, caption and numbers JupyterLab's Explore gives each state."""

import json
import os
from pathlib import Path

import chapter_time
import compare_figures
import explore_frames
import pytest
from conftest import approx_json

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "_data" / "explore"


TOL = 1.0  # scripts/compare_figures.py's default: RMS of the pixel values (0-255)
NOTEBOOKS = ["01_patch_tokenization", "03_sinusoidal_pe_clocks", "05_t2t_soft_split"]


@pytest.fixture(scope="module")
def explores():
    from vitexplain.explore import site_explores

    return site_explores()


def _stored(notebook: str) -> dict:
    return json.loads((DATA / f"{notebook}.json").read_text(encoding="utf-8"))


def test_every_notebook_with_an_explore_cell_has_a_section():
    with_cell = sorted(
        p.stem
        for p in chapter_time.NOTEBOOKS
        if any("explore" in c.metadata.get("tags", []) for c in chapter_time.read(p).cells)
    )
    assert with_cell == NOTEBOOKS
    assert sorted(p.stem for p in DATA.glob("*.json")) == NOTEBOOKS


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_stored_manifest_is_what_the_package_says_now(notebook, explores, monkeypatch):
    """Every state's alt text, caption and numbers, the controls and the frame names: drawing
    is skipped here (the next test compares the pictures)."""
    explore = explores[notebook]
    monkeypatch.setattr(type(explore), "state", lambda self, **v: (b"", *self.texts(**v)))
    fresh, _ = explore_frames.manifest_and_frames(notebook, explore)
    assert fresh == approx_json(_stored(notebook))  # floats within 1e-12: computed per CPU
    names = {s["frame"] for s in fresh["states"]}
    assert {f"{notebook}/{p.name}" for p in (DATA / notebook).glob("*.png")} == names


def _sample(manifest: dict, start: int) -> list[int]:
    """Which frames to redraw: all when VITEXPLAIN_ALL_FRAMES=1 (the whole check takes minutes),
    else the starting state and a diagonal through the grid that draws every value of every
    control at least once (draw j sets control c to its value (j + c) mod its count, for as
    many draws as the longest control has values): 16 of 03's 90 frames, 6 of 05's 80, all 6
    of 01's. The test above checks every state's alt text, caption and numbers, and every
    frame's name."""
    sizes = [len(control["values"]) for control in manifest["controls"]]
    if os.environ.get("VITEXPLAIN_ALL_FRAMES") == "1":
        return list(range(len(manifest["states"])))
    picked = {start}
    for j in range(max(sizes)):
        index = 0
        for c, size in enumerate(sizes):  # the states run over the controls' product in order
            index = index * size + (j + c) % size
        picked.add(index)
    return sorted(picked)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_stored_frames_are_what_the_package_draws_now(notebook, explores, tmp_path):
    explore = explores[notebook]
    manifest = _stored(notebook)
    start = 0
    for control in manifest["controls"]:
        start = start * len(control["values"]) + control["start"]
    for index in _sample(manifest, start):
        state = manifest["states"][index]
        png, alt, caption = explore.state(**state["values"])
        assert (alt, caption) == (state["alt"], state["caption"])
        fresh = tmp_path / f"{index:03d}.png"
        fresh.write_bytes(png)
        message = compare_figures.compare_png(fresh, DATA / state["frame"], TOL)
        assert message is None, f"{state['frame']} ({state['values']}): {message}"


def test_the_site_grids_keep_the_teaching_points(explores):
    """The states the notebooks' text points at are drawn on the site."""
    clocks = explores["03_sinusoidal_pe_clocks"]
    assert {10.0, 1e4, 1e8} <= set(clocks.grid("base"))
    assert {16, 18, 256} <= set(clocks.grid("dim"))
    split = explores["05_t2t_soft_split"]
    grid = {name: set(split.grid(name)) for name in "ksp"}
    for k, s, p in [(20, 10, 5), (7, 4, 2), (3, 2, 1), (16, 16, 0), (3, 10, 0), (80, 2, 0)]:
        assert k in grid["k"] and s in grid["s"] and p in grid["p"], (k, s, p)
    numbers = split.numbers
    assert numbers(3, 10, 0)["missed"] > 0  # s > k: pixels in no patch
    assert numbers(16, 16, 0)["missed"] > 0  # ViT's split with k = 16 leaves pixels out
    assert "error" in numbers(80, 2, 5)  # a kernel larger than the padded picture
    tokens = explores["01_patch_tokenization"]
    assert tokens.grid("patch_size") == tokens.values("patch_size")  # all of 01's sizes


STATES = [
    ("01_patch_tokenization", [{"patch_size": 5}, {"patch_size": 1}]),
    ("03_sinusoidal_pe_clocks", [{"base": 10.0**4.5, "dim": 256}]),
    ("05_t2t_soft_split", [{"k": 7, "s": 4, "p": 2}, {"k": 80, "s": 2, "p": 0}]),
]


def _alt_and_caption(markup: str) -> tuple[str, str]:
    import html
    import re

    alt, caption = re.search(r'alt="([^"]*)"><figcaption>([^<]*)<', markup).groups()
    return html.unescape(alt), html.unescape(caption)


@pytest.mark.parametrize(("notebook", "states"), STATES)
def test_lab_shows_the_same_alt_text_and_caption_as_the_site(notebook, states, explores):
    """JupyterLab's widget (anywidget), the ipywidgets fallback (interact_figure) and
    Explore.texts (the site's manifest) agree, state by state."""
    from vitexplain import figure_to_png, interact_figure

    explore = explores[notebook]
    widget = explore.widget()
    assert type(widget).__name__ == "ExploreWidget"
    box = interact_figure(
        explore.draw, alt=explore.alt, caption=explore.caption, **explore.controls
    )
    *sliders, shown = box.children
    for values in states:
        for slider, name in zip(sliders, explore.controls, strict=True):
            slider.value = values[name]
        widget.positions = [explore.values(n).index(values[n]) for n in explore.controls]
        assert _alt_and_caption(shown.value) == explore.texts(**values)
        assert _alt_and_caption(widget.figure) == explore.texts(**values)
        assert widget.caption == explore.texts(**values)[1]
        png = figure_to_png(explore.draw(**values))
        assert png in (_png(widget.figure), _png(shown.value))


def _png(markup: str) -> bytes:
    import base64
    import re

    return base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", markup)[1])


def test_the_widget_offers_every_value_of_the_notebooks_controls(explores):
    """Its sliders run over all of JupyterLab's values (not the site's grid), with their labels."""
    for explore in explores.values():
        widget = explore.widget()
        for control, name in zip(widget.controls, explore.controls, strict=True):
            assert control["label"] == explore.controls[name].description
            assert control["labels"] == explore.labels(name)
            assert len(control["labels"]) == len(explore.values(name))
    clocks = explores["03_sinusoidal_pe_clocks"].widget()
    assert clocks.controls[0]["labels"][12] == "10^4" and clocks.positions == [12, 5]


def test_the_frames_fit_the_repository_budget():
    """At most 4 MB in git for the site's Explore frames and manifests (8-bit palette PNGs)."""
    files = [p for p in DATA.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) <= 4_000_000
    assert all(p.read_bytes()[25] == 3 for p in files if p.suffix == ".png")  # colour type 3
