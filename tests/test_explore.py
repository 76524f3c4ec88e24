"""vitexplain.explore: controls that redraw a figure (the notebooks' Explore sections)."""

import pytest

from vitexplain import load_mountains


def test_interact_figure_redraws_when_a_control_changes():
    import ipywidgets as widgets

    from vitexplain import figure_to_png, interact_figure, show_tokenization

    image = load_mountains()
    slider = widgets.SelectionSlider(
        options=[1, 2, 4, 5, 10, 20], value=20, continuous_update=False
    )
    calls = []

    def draw(patch_size):
        calls.append(patch_size)
        return show_tokenization(image, patch_size)

    box = interact_figure(draw, patch_size=slider)
    assert box.children[0] is slider and isinstance(box.children[-1], widgets.Image)
    assert calls == [20]
    slider.value = 5
    assert calls == [20, 5]
    assert box.children[-1].value == figure_to_png(show_tokenization(image, 5))
    import io

    from PIL import Image

    width, height = Image.open(io.BytesIO(box.children[-1].value)).size
    layout = box.children[-1].layout
    assert (layout.width, layout.height) == (f"{width}px", f"{height}px")  # natural size
    with pytest.raises(TypeError, match="int"):
        interact_figure(draw, patch_size=20)
    with pytest.raises(ValueError, match="at least one control"):
        interact_figure(draw)
    with pytest.raises(TypeError, match="must return a matplotlib Figure, got str"):
        interact_figure(lambda p: "no figure", p=widgets.IntSlider())
