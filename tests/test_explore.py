"""vitexplain.explore: controls that redraw a figure (the notebooks' Explore sections)."""

import base64
import html
import re
import subprocess
import sys
import textwrap

import pytest

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


WITHOUT_IPYWIDGETS = textwrap.dedent(
    """
    import sys
    sys.modules["ipywidgets"] = None  # import ipywidgets now raises ImportError
    import vitexplain as vx
    result = vx.interact_figure(
        lambda p: vx.show_tokenization(vx.load_mountains(), p),
        patch_size=vx.Choice([1, 2, 4, 5, 10, 20], 20, "patch size P"),
    )
    assert result is None
    """
)


def test_without_ipywidgets_an_explore_cell_prints_one_line_naming_the_extra():
    from vitexplain.explore import MISSING_WIDGETS_MESSAGE

    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_IPYWIDGETS], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no traceback, no warning
    assert result.stdout == MISSING_WIDGETS_MESSAGE + "\n"
    assert 'pip install "vitexplain[notebooks]"' in MISSING_WIDGETS_MESSAGE
