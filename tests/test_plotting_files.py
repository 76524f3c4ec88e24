"""vitexplain.plotting.files: deterministic PNG and GIF files, and where they are written."""

import imageio.v3 as iio
import numpy as np
import pytest

from vitexplain import (
    display_figure,
    display_gif,
    figure_to_array,
    figure_to_png,
    gif_bytes,
    load_mountains,
    save_figure,
    save_gif,
    show_image,
)


def test_save_figure_is_byte_for_byte_reproducible(tmp_path):
    paths = [save_figure(show_image(load_mountains()), tmp_path / f"sub/{n}.png") for n in range(2)]
    first, second = (p.read_bytes() for p in paths)
    assert first == second and first[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"Software" not in first and b"matplotlib" not in first
    with pytest.raises(ValueError, match="fig.jpg"):
        save_figure(show_image(load_mountains()), tmp_path / "fig.jpg")


def test_save_gif_writes_every_frame_with_one_palette(tmp_path):
    frames = []
    for step in range(5):
        fig = show_image(load_mountains(), title=f"frame {step}", figsize=(3, 2))
        frames.append(figure_to_array(fig))
    assert frames[0].shape == (200, 300, 3) and frames[0].dtype == np.uint8
    path = save_gif(frames, tmp_path / "anim.gif", fps=5)
    read = iio.imread(path, index=None)
    assert read.shape[0] == 5
    # colours survive the shared palette (flat figure colours, no dithering)
    assert np.abs(read[0][..., :3].astype(int) - frames[0]).mean() < 2
    save_gif(frames, tmp_path / "again.gif", fps=5)
    assert (tmp_path / "again.gif").read_bytes() == path.read_bytes()


def test_save_gif_refuses_frames_of_different_shapes(tmp_path):
    with pytest.raises(
        ValueError, match=r"one shape \(H, W, 3\), got \[\(4, 4, 3\), \(5, 4, 3\)\]"
    ):
        save_gif([np.zeros((4, 4, 3), np.uint8), np.zeros((5, 4, 3), np.uint8)], tmp_path / "x.gif")


def test_figure_to_png_gives_the_bytes_save_figure_writes(tmp_path):

    def draw():  # a fresh figure each time: a second render of one figure may lay out anew
        return show_image(load_mountains(), figsize=(3, 2))

    png = figure_to_png(draw())
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and b"Software" not in png
    assert png == save_figure(draw(), tmp_path / "fig.png").read_bytes()


def test_display_figure_shows_alt_text_and_caption_and_saves_only_when_asked(tmp_path, monkeypatch):
    """A reader's run writes nothing; with VITEXPLAIN_FIGURES_DIR set, files are written."""
    import base64

    published = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw: published.append(obj))
    monkeypatch.chdir(tmp_path)
    fig = show_image(np.zeros((4, 6)), figsize=(2, 2))
    figure_to_png(fig)  # a figure's first rendering lays it out; later ones give equal bytes
    alt, caption = 'A black image of four by six "pixels" & more.', "Figure 1.1 — All black."
    assert display_figure(fig, "01_x", alt=alt, caption=caption) is None
    assert list(tmp_path.iterdir()) == []  # nothing written without the variable
    bundle = published[-1]
    assert set(bundle) == {"text/html", "text/plain"} and bundle["text/plain"] == caption
    png = base64.b64encode(figure_to_png(fig)).decode()
    assert bundle["text/html"] == (
        f'<figure class="vx-figure"><img src="data:image/png;base64,{png}" '
        'alt="A black image of four by six &quot;pixels&quot; &amp; more.">'
        "<figcaption>Figure 1.1 — All black.</figcaption></figure>"
    )
    monkeypatch.setenv("VITEXPLAIN_FIGURES_DIR", str(tmp_path / "fresh"))
    display_figure(fig, "01_x", alt=alt, caption=caption)
    assert (tmp_path / "fresh" / "01_x.png").read_bytes() == figure_to_png(fig)
    frames = [np.zeros((8, 8, 3), np.uint8), np.full((8, 8, 3), 255, np.uint8)]
    display_figure(fig, None, alt="Shown only, never saved to any folder.")
    assert sorted(p.name for p in (tmp_path / "fresh").iterdir()) == ["01_x.png"]
    assert "<figcaption>" not in published[-1]["text/html"]  # no caption given, none shown
    display_gif(frames, "05_x", alt="Two frames: black, then white.", caption="Figure 5.1 — Two.")
    assert (tmp_path / "fresh" / "05_x.gif").read_bytes() == gif_bytes(frames, fps=10)
    assert "data:image/gif;base64," in published[-1]["text/html"]


def test_display_figure_refuses_bad_names_alt_and_captions():
    fig, alt = show_image(np.zeros((4, 6))), "A black image of four pixels."
    with pytest.raises(ValueError, match="bare file name"):
        display_figure(fig, "../figures/01_x", alt=alt)
    with pytest.raises(ValueError, match="alt must say what the figure shows in at least 4 words"):
        display_figure(fig, "01_x", alt="")
    with pytest.raises(ValueError, match="caption must read 'Figure <notebook>.<k> — "):
        display_figure(fig, "01_x", alt=alt, caption="All black.")


def test_gif_frames_as_floats_in_unit_range_or_bytes():
    floats = [np.zeros((4, 4, 3)), np.ones((4, 4, 3))]  # floats in [0, 1]: scaled, not black
    read = iio.imread(gif_bytes(floats, fps=2), index=None)
    assert read[1][..., :3].min() == 255
    # floats outside [0, 1] would wrap around in uint8: refused, not drawn in wrong colours
    with pytest.raises(ValueError, match=r"frames\[1\] must be uint8, floats in \[0, 1\]"):
        gif_bytes([floats[0], np.full((4, 4, 3), 2.0)])
    assert save_figure(show_image(np.zeros((2, 2))), "/tmp/vitexplain-test-X.PNG").is_file()
