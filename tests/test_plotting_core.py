"""vitexplain.plotting.core: images, matrices, embeddings, deterministic PNG and GIF files."""

import imageio.v3 as iio
import numpy as np
import pytest
from matplotlib.figure import Figure

import vitexplain as vx
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


def test_axes_grid_gives_exactly_count_axes_row_major():
    fig, axes = vx.plotting.axes_grid(5, 2, figsize=(4, 6))
    assert len(axes) == 5 and len(fig.axes) == 5
    rows = [ax.get_subplotspec().rowspan.start for ax in axes]
    cols = [ax.get_subplotspec().colspan.start for ax in axes]
    assert list(zip(rows, cols, strict=True)) == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]
    with pytest.raises(ValueError, match="count"):
        vx.plotting.axes_grid(0, 2, figsize=(4, 6))


def test_annotate_cells_writes_each_value_with_a_readable_colour():
    values = np.array([[0.0, 1.0], [0.25, 0.75]])
    fig = vx.show_matrix(values, vmin=0, vmax=1)
    ax = fig.axes[0]
    vx.plotting.annotate_cells(ax, values, vmin=0, vmax=1)
    texts = {(t.get_position(), t.get_text()): t.get_color() for t in ax.texts}
    assert set(k[1] for k in texts) == {"0.00", "1.00", "0.25", "0.75"}
    # Purples_r: 0 is dark (white text), 1 is light (black text)
    assert texts[((0, 0), "0.00")] == "white" and texts[((1, 0), "1.00")] == "black"
    with pytest.raises(ValueError, match="labels has 3 entries for 4 cells"):
        vx.plotting.annotate_cells(ax, values, labels=["a", "b", "c"])


def test_outline_cells_surrounds_the_block():
    fig = vx.show_matrix(np.zeros((3, 5)))
    box = vx.plotting.outline_cells(fig.axes[0], row=1, col=2, height=2, width=3, colour="red")
    assert box.get_xy() == (1.5, 0.5) and (box.get_width(), box.get_height()) == (3, 2)
    assert box in fig.axes[0].patches and not box.get_fill()


def test_fixed_figure_has_no_layout_engine():
    fig = vx.plotting.fixed_figure((4, 3), left=0.1, right=0.9)
    assert fig.get_layout_engine() is None
    assert fig.subplotpars.left == 0.1 and fig.subplotpars.right == 0.9


def test_figures_dir_variable_redirects_saving(tmp_path, monkeypatch):
    """Under `make test` the notebooks' figures go to VITEXPLAIN_FIGURES_DIR, not figures/."""
    monkeypatch.setenv("VITEXPLAIN_FIGURES_DIR", str(tmp_path / "fresh"))
    fig = show_image(np.zeros((4, 6)))
    written = save_figure(fig, tmp_path / "figures" / "01_x.png")
    assert written == tmp_path / "fresh" / "01_x.png" and written.is_file()
    assert not (tmp_path / "figures").exists()
    frames = [np.zeros((8, 8, 3), np.uint8)] * 2
    assert save_gif(frames, "figures/05_x.gif") == tmp_path / "fresh" / "05_x.gif"
    monkeypatch.delenv("VITEXPLAIN_FIGURES_DIR")
    assert save_figure(fig, tmp_path / "figures" / "01_x.png") == tmp_path / "figures" / "01_x.png"
