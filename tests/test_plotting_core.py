"""vitexplain.plotting.core: images, matrices, embeddings, deterministic PNG and GIF files."""

import imageio.v3 as iio
import numpy as np
import pytest
from matplotlib.figure import Figure

from vitexplain import (
    figure_to_array,
    load_mountains,
    save_figure,
    save_gif,
    show_embedding,
    show_image,
    show_matrix,
    show_patch_grid,
    sinusoid_encoding,
)


def test_patch_grid_numbers_patches_and_picks_label_colour():
    fig = show_patch_grid(load_mountains(), 20)
    texts = {t.get_text(): t.get_color() for t in fig.axes[0].texts}
    assert list(texts) == [str(n) for n in range(1, 16)]
    assert texts["3"] == "black"  # the moon patch is bright: a dark label
    assert texts["15"] == "white"  # the dark foreground: a light label


def test_show_matrix_annotates_every_cell():
    matrix = np.arange(36).reshape(4, 9)
    fig = show_matrix(matrix, annotate=True)
    assert [t.get_text() for t in fig.axes[0].texts] == [str(v) for v in range(36)]
    assert isinstance(fig, Figure)


def test_embedding_uses_limits_minus_one_to_one():
    fig = show_embedding(sinusoid_encoding(176, 768))
    assert fig.axes[0].images[0].get_clim() == (-1.0, 1.0)
    assert len(fig.axes) == 2  # with a colour bar


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


def test_plotting_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
        show_image(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match="frames is empty"):
        save_gif([], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="shapes"):
        save_gif([np.zeros((4, 4, 3), np.uint8), np.zeros((5, 4, 3), np.uint8)], tmp_path / "x.gif")


def test_figure_to_png_gives_the_bytes_save_figure_writes(tmp_path):
    from vitexplain import figure_to_png

    def draw():  # a fresh figure each time: a second render of one figure may lay out anew
        return show_image(load_mountains(), figsize=(3, 2))

    png = figure_to_png(draw())
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and b"Software" not in png
    assert png == save_figure(draw(), tmp_path / "fig.png").read_bytes()
    with pytest.raises(TypeError, match="ndarray"):
        figure_to_png(np.zeros((2, 2)))
