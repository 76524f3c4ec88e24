"""vitexplain.plotting.files: deterministic PNG and GIF files, and where they are written."""

import imageio.v3 as iio
import numpy as np
import pytest

from vitexplain import (
    figure_to_array,
    figure_to_png,
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


def test_save_gif_rejects_bad_frames(tmp_path):
    with pytest.raises(ValueError, match="frames is empty"):
        save_gif([], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="shapes"):
        save_gif([np.zeros((4, 4, 3), np.uint8), np.zeros((5, 4, 3), np.uint8)], tmp_path / "x.gif")


def test_figure_to_png_gives_the_bytes_save_figure_writes(tmp_path):

    def draw():  # a fresh figure each time: a second render of one figure may lay out anew
        return show_image(load_mountains(), figsize=(3, 2))

    png = figure_to_png(draw())
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and b"Software" not in png
    assert png == save_figure(draw(), tmp_path / "fig.png").read_bytes()
    with pytest.raises(TypeError, match="ndarray"):
        figure_to_png(np.zeros((2, 2)))


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
