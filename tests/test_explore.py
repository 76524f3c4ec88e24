"""vitexplain.explore: controls that redraw a figure (the notebooks' Explore sections)."""

import base64
import html
import re
import sys
import warnings

import pytest

import vitexplain as vx
from vitexplain import load_mountains


def _figure_parts(markup: str) -> tuple[bytes, str, str]:
    """The PNG bytes, the alt text and the caption of the <figure> an Explore cell shows."""
    match = re.fullmatch(
        r'<figure class="vx-figure"><img src="data:image/png;base64,([A-Za-z0-9+/=]+)" '
        r'alt="([^"]*)"><figcaption>([^<]*)</figcaption></figure>',
        markup,
    )
    assert match, markup[:200]
    png, alt, caption = match.groups()
    return base64.b64decode(png), html.unescape(alt), html.unescape(caption)


def test_interact_figure_redraws_when_a_control_changes():
    import ipywidgets as widgets

    from vitexplain import Choice, figure_to_png, interact_figure, show_tokenization

    image = load_mountains()
    calls = []

    def draw(patch_size):
        calls.append(patch_size)
        return show_tokenization(image, patch_size)

    box = interact_figure(
        draw,
        alt="The picture cut into patches next to its token matrix",
        caption="Figure 1.9 — The patch grid and the tokens for one patch size.",
        patch_size=Choice([1, 2, 4, 5, 10, 20], 20, "patch size P"),
    )
    slider, shown = box.children
    assert isinstance(slider, widgets.SelectionSlider) and isinstance(shown, widgets.HTML)
    assert slider.description == "patch size P" and not slider.continuous_update
    assert calls == [20]
    png, alt, caption = _figure_parts(shown.value)
    assert png == figure_to_png(show_tokenization(image, 20))
    assert alt == (
        "The picture cut into patches next to its token matrix; shown for patch size P = 20."
    )
    assert caption == (
        "Figure 1.9 — The patch grid and the tokens for one patch size. (patch size P = 20)"
    )
    slider.value = 5
    assert calls == [20, 5]
    png, alt, caption = _figure_parts(shown.value)
    assert png == figure_to_png(show_tokenization(image, 5))
    assert alt.endswith("shown for patch size P = 5.") and caption.endswith("(patch size P = 5)")


def test_controls_are_sliders_whose_arrow_keys_stay_in_them():
    """A Dropdown or a bounded number field is shown as the slider with the same options, linked
    to it; Choice and Number become sliders; a slider is kept (redrawn on release)."""
    import ipywidgets as widgets

    from vitexplain import Number, interact_figure, show_clock_explorer

    base = widgets.Dropdown(options=[("10^3", 1e3), ("10^4", 1e4)], value=1e4, description="base")
    dim = widgets.BoundedIntText(value=18, min=8, max=64, step=2, description="d")
    seen = []

    def draw(base, dim, num_tokens):
        seen.append((base, dim, num_tokens))
        return show_clock_explorer(base, dim, num_tokens)

    given = widgets.IntSlider(value=20, min=10, max=40, description="L")
    box = interact_figure(draw, base=base, dim=dim, num_tokens=given)
    base_slider, dim_slider, tokens_slider, shown = box.children
    assert isinstance(base_slider, widgets.SelectionSlider)
    assert base_slider.options == (("10^3", 1e3), ("10^4", 1e4)) and base_slider.value == 1e4
    assert base_slider.label == "10^4"
    assert isinstance(dim_slider, widgets.IntSlider)
    assert (dim_slider.min, dim_slider.max, dim_slider.step, dim_slider.value) == (8, 64, 2, 18)
    assert tokens_slider is given and not given.continuous_update
    assert seen == [(1e4, 18, 20)]
    base_slider.value = 1e3
    assert base.value == 1e3 and seen[-1] == (1e3, 18, 20)  # the notebook's variable follows
    dim.value = 20  # and a change of the given control reaches the slider and the figure
    assert dim_slider.value == 20 and seen[-1] == (1e3, 20, 20)
    _, alt, caption = _figure_parts(shown.value)
    assert alt == "The figure of this Explore section, drawn for base = 10^3, d = 20, L = 20."
    assert caption == "Explore: base = 10^3, d = 20, L = 20."

    number = interact_figure(
        lambda k: show_clock_explorer(dim=k), k=Number(18, 8, 64, "d", step=2)
    ).children[0]
    assert isinstance(number, widgets.IntSlider)
    assert (number.value, number.min, number.max, number.step) == (18, 8, 64, 2)


def test_alt_may_be_a_function_of_the_values():
    from vitexplain import Number, interact_figure, show_clock_explorer

    box = interact_figure(
        lambda dim: show_clock_explorer(dim=dim),
        alt=lambda dim: f"Clocks of a {dim}-long sinusoidal position embedding",
        dim=Number(18, 8, 64, "d", step=2),
    )
    box.children[0].value = 30
    assert _figure_parts(box.children[-1].value)[1] == (
        "Clocks of a 30-long sinusoidal position embedding"
    )


def test_bad_arguments_are_refused_by_name():
    import ipywidgets as widgets

    from vitexplain import Choice, Number, interact_figure, show_clock_explorer

    def draw(dim=18):
        return show_clock_explorer(dim=dim)

    with pytest.raises(TypeError, match="control dim= must be a vitexplain Choice .* got int"):
        interact_figure(draw, dim=20)
    with pytest.raises(ValueError, match="at least one control"):
        interact_figure(draw)
    with pytest.raises(TypeError, match="draw must be a function"):
        interact_figure("draw", dim=Number(18, 8, 64, "d"))
    with pytest.raises(TypeError, match="must return a matplotlib Figure, got str"):
        interact_figure(lambda p: "no figure", p=widgets.IntSlider())
    # a control description is refused where it is made, naming the field
    with pytest.raises(ValueError, match=r"Choice: value must be one of \[1, 2\], got 3"):
        Choice([1, 2], 3, "p")
    with pytest.raises(TypeError, match="Choice: options must be a list of values, got 5"):
        Choice(5, 5, "p")
    with pytest.raises(ValueError, match=r"Number: value must lie in \[min, max\] = \[8, 64\]"):
        Number(4, 8, 64, "d")
    with pytest.raises(ValueError, match="Number: step must be at least 1, got 0"):
        Number(18, 8, 64, "d", step=0)
    with pytest.raises(TypeError, match="Number: max must be an int, got 64.0"):
        Number(18, 8, 64.0, "d")
    with pytest.raises(TypeError, match="Number: description must be a non-empty str"):
        Number(18, 8, 64, "")
    with pytest.raises(ValueError, match="alt must say what the figure shows"):
        interact_figure(draw, alt="clocks", dim=Number(18, 8, 64, "d"))
    with pytest.raises(ValueError, match="caption must read 'Figure <notebook>.<k> — "):
        interact_figure(draw, caption="clocks", dim=Number(18, 8, 64, "d"))


def test_number_takes_numpy_and_torch_integers_as_ints():
    import numpy as np
    import torch

    from vitexplain import Number

    number = Number(np.int64(2), np.int32(1), torch.tensor(5), "d", step=np.uint8(1))
    assert number == Number(2, 1, 5, "d")  # the same control as one made of Python ints
    assert all(type(getattr(number, f)) is int for f in ("value", "min", "max", "step"))
    with pytest.raises(TypeError, match="Number: value must be an int, got True"):
        Number(True, 1, 5, "d")
    with pytest.raises(TypeError, match="Number: min must be an int"):
        Number(2, np.float64(1.0), 5, "d")


@pytest.mark.cpu_independent  # no float of PyTorch or NumPy compared: not in make test-baseline
def test_without_ipywidgets_an_explore_cell_prints_one_line_naming_the_extra(monkeypatch, capsys):
    """In this process, ipywidgets made unimportable (test_api.py checks that importing the
    package imports no ipywidgets): one line, no traceback, no warning."""
    from vitexplain.explore import MISSING_WIDGETS_MESSAGE

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets raises ImportError
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = vx.interact_figure(
            lambda p: vx.show_tokenization(vx.load_mountains(), p),
            patch_size=vx.Choice([1, 2, 4, 5, 10, 20], 20, "patch size P"),
        )
    assert result is None
    assert capsys.readouterr() == (MISSING_WIDGETS_MESSAGE + "\n", "")
    assert 'pip install "vitexplain[notebooks]"' in MISSING_WIDGETS_MESSAGE


# --- the series' sections: typed values, what a value means, 03's caption -------------------------


def _brute_nearest(allowed: list[int], x: float) -> list[int]:
    gap = min(abs(v - x) for v in allowed)
    return [v for v in allowed if abs(v - x) == gap]


# The values typed into the site's calculators that issue 38 found clamped (d = 9 showed 10,
# d = 1000 showed 768, d = 0 showed 8, k = 81 showed 80), and their neighbours.
TYPED = {
    ("03", "dim"): ["9", "1000", "0", "-2", "7", "769", "770", "18.5", "2.5", "8", "768", "18"],
    ("05", "k"): ["81", "0", "-1", "2.5", "1", "80", "20"],
    ("05", "s"): ["0", "41", "1000", "4.5", "1", "40"],
    ("05", "p"): ["-1", "21", "0.5", "0", "20"],
}


@pytest.fixture(scope="module")
def sections():
    from vitexplain.explore import site_explores

    explores = site_explores()
    return {name[:2]: explore for name, explore in explores.items()}


@pytest.mark.parametrize(("section", "name"), list(TYPED))
def test_a_typed_value_outside_the_control_is_refused_with_the_range_and_the_nearest(
    sections, section, name
):
    """Never another setting in silence: the refusal names the range and the nearest values the
    control can show (brute force over all of them), and a value the control offers passes."""
    explore = sections[section]
    allowed = explore.values(name)
    for typed in TYPED[(section, name)]:
        x = float(typed)
        message = explore.refusal(name, typed)
        if x in allowed:
            assert message is None, (typed, message)
            continue
        assert message is not None, typed
        assert message.startswith(f"{explore.controls[name].description} = {typed} ")
        assert f"from {allowed[0]} to {allowed[-1]}" in message, message
        nearest = _brute_nearest(allowed, x)
        assert message.endswith(" and ".join(map(str, nearest)) + "."), (typed, message)
        outside = not allowed[0] <= x <= allowed[-1]
        assert ("is outside the range" in message) == outside, message
    assert explore.refusal(name, "") == explore.refusal(name, "abc")
    assert explore.refusal(name, "").endswith(f"from {allowed[0]} to {allowed[-1]}.")


def test_the_issue_inputs_say_what_they_show(sections):
    clocks, split = sections["03"], sections["05"]
    assert clocks.refusal("dim", "9") == (
        "d = 9 is not a setting: d takes the even numbers from 8 to 768; "
        "the nearest it can show are 8 and 10."
    )
    assert clocks.refusal("dim", "1000").endswith("the nearest it can show is 768.")
    assert clocks.refusal("dim", "0").endswith("the nearest it can show is 8.")
    assert split.refusal("k", "81") == (
        "kernel k = 81 is outside the range: kernel k takes the whole numbers from 1 to 80; "
        "the nearest it can show is 80."
    )
    with pytest.raises(TypeError, match="refusal needs a Number control, got 'base'"):
        clocks.refusal("base", "10")


def test_every_integer_typed_near_a_range_is_refused_exactly_when_it_is_not_offered(sections):
    for section, name in TYPED:
        explore = sections[section]
        allowed = explore.values(name)
        for x in range(allowed[0] - 5, allowed[-1] + 6):
            message = explore.refusal(name, str(x))
            assert (message is None) == (x in allowed), (name, x, message)
            if message:
                assert message.endswith(" and ".join(map(str, _brute_nearest(allowed, x))) + ".")


def test_each_value_says_what_it_means(sections):
    """The sliders' aria-valuetext (JupyterLab and the site): not a bare "20" or "10^4"."""
    tokens, clocks, split = sections["01"], sections["03"], sections["05"]
    assert tokens.says("patch_size")[-1] == "patch size 20 pixels"
    assert tokens.says("patch_size")[0] == "patch size 1 pixel"
    base = clocks.says("base")
    assert base[clocks.values("base").index(1e4)] == "base 10^4 = 10,000"
    assert base[-1] == "base 10^8 = 100,000,000" and base[2] == "base 10^1.5, about 31.6"
    assert clocks.says("dim")[5] == "length d = 18, 9 clocks"
    assert [
        split.says(n)[split.values(n).index(v)] for n, v in zip("ksp", (20, 10, 5), strict=True)
    ] == [
        "kernel 20 by 20 pixels",
        "stride 10 pixels",
        "padding 5 pixels",
    ]
    for explore in sections.values():
        for name in explore.controls:
            says = explore.says(name)
            assert len(set(says)) == len(says) == len(explore.values(name))
            assert all(not s.replace(".", "").isdigit() and len(s.split()) >= 2 for s in says)
    from vitexplain import Number

    with pytest.raises(TypeError, match="Number: says must be a function of the value"):
        Number(18, 8, 64, "d", says="d")


def test_03_caption_counts_the_clocks_it_shows(sections):
    """Issue 38: "nine clocks" in 30 of the site's 90 states, which show 4 (d = 8) or 8 (d = 16).
    Now every d of the notebook's control: the caption's count is vx.clock_pairs(d)'s."""
    from vitexplain import clock_pairs

    words = "zero one two three four five six seven eight nine".split()
    clocks = sections["03"]
    for dim in clocks.values("dim"):
        caption = clocks.texts(base=1e4, dim=dim)[1]
        shown = len(clock_pairs(dim))
        assert re.match(r"Figure 3\.11 — The table and (all )?(\w+) of its (\d+ )?clocks", caption)
        word = re.match(r"Figure 3\.11 — The table and (?:all )?(\w+)", caption)[1]
        assert words.index(word) == shown, (dim, caption)
        assert ("all " in caption) == (shown == dim // 2), caption
    assert clocks.texts(base=10.0, dim=8)[1].startswith(
        "Figure 3.11 — The table and all four of its clocks"
    )
    assert "nine of its 384 clocks" in clocks.texts(base=10.0, dim=768)[1]


def test_a_caption_may_be_a_function_of_the_values():
    from vitexplain import Number, interact_figure, show_clock_explorer

    box = interact_figure(
        lambda dim: show_clock_explorer(dim=dim),
        caption=lambda dim: f"Figure 3.9 — {dim // 2} pairs.",
        dim=Number(18, 8, 64, "d", step=2),
    )
    box.children[0].value = 30
    assert _figure_parts(box.children[-1].value)[2] == "Figure 3.9 — 15 pairs. (d = 30)"
    with pytest.raises(ValueError, match="caption must read"):
        interact_figure(
            lambda dim: show_clock_explorer(dim=dim),
            caption=lambda dim: "clocks",
            dim=Number(18, 8, 64, "d", step=2),
        )
