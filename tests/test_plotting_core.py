"""vitexplain.plotting.core: images, matrices, embeddings, deterministic PNG and GIF files."""

import numpy as np
import pytest
from matplotlib.figure import Figure

import vitexplain as vx
from vitexplain import (
    show_embedding,
    show_matrix,
    sinusoid_encoding,
)


def test_show_matrix_annotates_every_cell():
    matrix = np.arange(36).reshape(4, 9)
    fig = show_matrix(matrix, annotate=True)
    assert [t.get_text() for t in fig.axes[0].texts] == [str(v) for v in range(36)]
    assert isinstance(fig, Figure)


def test_embedding_uses_limits_minus_one_to_one():
    fig = show_embedding(sinusoid_encoding(176, 768))
    assert fig.axes[0].images[0].get_clim() == (-1.0, 1.0)
    assert len(fig.axes) == 2  # with a colour bar


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


def test_cell_formats_in_both_styles():
    import numpy as np

    from vitexplain import show_matrix

    for fmt in ("{:.2f}", "%.2f"):
        fig = show_matrix(np.eye(2), annotate=True, fmt=fmt)
        assert fig.axes[0].texts[0].get_text() == "1.00"
    with pytest.raises(ValueError, match="fmt must be a format string"):
        show_matrix(np.eye(2), annotate=True, fmt="two decimals")
