"""The common ground of the figures: axes, colours, images, matrices, annotated cells."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "annotate_cells",
    "ATTENTION_CMAP",
    "axes_grid",
    "fixed_figure",
    "outline_cells",
    "EMBEDDING_CMAP",
    "new_axes",
    "new_figure",
    "PICTURE_CMAP",
    "show_embedding",
    "show_image",
    "show_matrix",
    "SIMILARITY_CMAP",
    "text_colour",
]

# One colour convention per quantity, in every notebook.
PICTURE_CMAP = "Purples_r"  # the picture and its tokens: grey level 0 dark, 1 bright
EMBEDDING_CMAP = "RdBu_r"  # signed values (embeddings, logits): limits symmetric about 0
ATTENTION_CMAP = "magma"  # attention weights: bright = large, limits from 0
SIMILARITY_CMAP = "cividis"  # cosine similarity between position embeddings


def as_array(value) -> np.ndarray:
    """A tensor (detached, copied to the CPU) or anything NumPy reads, as a NumPy array."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _format(fmt: str, value: float) -> str:
    """``fmt`` applied to a value: "{:.2f}" style, or "%.2f" style (refused if it is neither)."""
    if "{" in fmt:
        return fmt.format(value)
    if "%" in fmt:
        return fmt % value
    raise ValueError(f"fmt must be a format string such as '{{:.2f}}' or '%.2f', got {fmt!r}")


def new_figure(
    figsize: tuple[float, float], layout: str | None = "constrained", **kwargs: object
) -> Figure:
    """An empty figure (``matplotlib.figure.Figure``, no pyplot state), laid out by ``layout``.

    matplotlib is imported here, when the first figure is drawn, not by ``import vitexplain``.
    """
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout=layout, **kwargs)


def new_axes(ax: Axes | None = None, figsize: tuple[float, float] = (6, 4)) -> tuple[Figure, Axes]:
    """Return ``(figure, axes)``: the given axes and their figure, or a new single-axes figure."""
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise TypeError(f"ax must be a matplotlib Axes (or None), got {type(ax).__name__}")
        return ax.figure, ax
    fig = new_figure(figsize)
    return fig, fig.add_subplot()


def text_colour(value: float, vmin: float, vmax: float, cmap: str = PICTURE_CMAP) -> str:
    """Black or white, whichever reads better on the colour ``cmap`` gives ``value``."""
    from matplotlib import colormaps

    t = 0.5 if vmax == vmin else (value - vmin) / (vmax - vmin)
    r, g, b, _ = colormaps[cmap](float(np.clip(t, 0, 1)))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def show_image(
    image,
    ax: Axes | None = None,
    title: str | None = None,
    cmap: str = PICTURE_CMAP,
    vmin: float = 0.0,
    vmax: float = 1.0,
    colorbar: bool = False,
    figsize: tuple[float, float] = (6, 3.8),
) -> Figure:
    """Draw a single-channel image with pixel coordinates on the axes.

    Args:
        image: array of shape (H, W).
        ax: axes to draw on; a new figure when None.
        title: axes title.
        cmap: colour map.
        vmin, vmax: colour limits.
        colorbar: add a colour bar.
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    image = as_array(image)
    fig, ax = new_axes(ax, figsize)
    im = ax.imshow(image, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    ax.set_xlabel("column (pixels)")
    ax.set_ylabel("row (pixels)")
    if title:
        ax.set_title(title)
    if colorbar:
        fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def show_matrix(
    matrix,
    ax: Axes | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    cmap: str = PICTURE_CMAP,
    vmin: float | None = None,
    vmax: float | None = None,
    annotate: bool = False,
    fmt: str = "{:.0f}",
    colorbar: bool = False,
    aspect: str | float = "auto",
    xticklabels: Sequence | None = None,
    yticklabels: Sequence | None = None,
    figsize: tuple[float, float] = (6, 4),
) -> Figure:
    """Draw a matrix as a heat map, optionally with its values written in the cells.

    Args:
        matrix: array of shape (R, C).
        ax: axes to draw on; a new figure when None.
        title, xlabel, ylabel: axes texts.
        cmap: colour map.
        vmin, vmax: colour limits; the data's range when None.
        annotate: write each value in its cell (text colour chosen by brightness).
        fmt: format of the written values.
        colorbar: add a colour bar.
        aspect: ``imshow`` aspect.
        xticklabels, yticklabels: a label for every column / row (ticks on every cell).
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    matrix = as_array(matrix)
    vmin = float(np.nanmin(matrix)) if vmin is None else vmin
    vmax = float(np.nanmax(matrix)) if vmax is None else vmax
    fig, ax = new_axes(ax, figsize)
    im = ax.imshow(matrix, cmap=cmap, vmin=vmin, vmax=vmax, aspect=aspect, interpolation="nearest")
    if annotate:
        annotate_cells(ax, matrix, fmt=fmt, cmap=cmap, vmin=vmin, vmax=vmax, fontsize=9)
    if xticklabels is not None:
        ax.set_xticks(range(matrix.shape[1]), xticklabels)
    if yticklabels is not None:
        ax.set_yticks(range(matrix.shape[0]), yticklabels)
    for setter, text in ((ax.set_title, title), (ax.set_xlabel, xlabel), (ax.set_ylabel, ylabel)):
        if text:
            setter(text)
    if colorbar:
        fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def show_embedding(table, ax: Axes | None = None, title: str | None = None, **kwargs) -> Figure:
    """Draw a position-embedding table (tokens x dimensions) with a diverging map, limits -1..1.

    Args:
        table: array of shape (N, D).
        ax: axes to draw on; a new figure when None.
        title: axes title.
        **kwargs: passed on to :func:`show_matrix`.

    Returns:
        The figure.
    """
    options = {
        "cmap": EMBEDDING_CMAP,
        "vmin": -1.0,
        "vmax": 1.0,
        "colorbar": True,
        "xlabel": "dimension",
        "ylabel": "position (token)",
        **kwargs,
    }
    return show_matrix(table, ax=ax, title=title, **options)


def axes_grid(
    count: int, ncols: int, figsize: tuple[float, float], **subplots_kw
) -> tuple[Figure, list[Axes]]:
    """A constrained-layout figure with ``count`` axes in rows of ``ncols``.

    Slots of the last row that are not needed are removed, so the caller gets exactly ``count``
    axes, row-major.

    Args:
        count: number of axes wanted.
        ncols: axes per row.
        figsize: figure size in inches.
        **subplots_kw: passed on to ``Figure.subplots`` (``sharex``, ``width_ratios`` ...).

    Returns:
        ``(figure, axes)`` with ``len(axes) == count``.
    """
    if count < 1 or ncols < 1:
        raise ValueError(f"axes_grid needs count >= 1 and ncols >= 1, got {count} and {ncols}")
    ncols = min(ncols, count)
    nrows = -(-count // ncols)  # ceil
    fig = new_figure(figsize)
    axes = list(fig.subplots(nrows, ncols, squeeze=False, **subplots_kw).ravel())
    for ax in axes[count:]:
        fig.delaxes(ax)
    return fig, axes[:count]


def fixed_figure(figsize: tuple[float, float], **margins: float) -> Figure:
    """A figure with fixed margins and no layout engine.

    For figures that are redrawn often (the Explore sliders, animation frames): a layout engine
    re-solves the layout at every draw and more than doubles the drawing time, and with fixed
    margins every frame has the same layout.

    Args:
        figsize: figure size in inches.
        **margins: ``left``, ``right``, ``bottom``, ``top``, ``wspace``, ``hspace`` as in
            ``Figure.subplots_adjust``.

    Returns:
        The empty figure.
    """
    fig = new_figure(figsize, layout=None)
    if margins:
        fig.subplots_adjust(**margins)
    return fig


def annotate_cells(
    ax: Axes,
    values,
    labels: Sequence[str] | None = None,
    fmt: str = "{:.2f}",
    cmap: str = PICTURE_CMAP,
    vmin: float | None = None,
    vmax: float | None = None,
    fontsize: float = 8,
) -> None:
    """Write a text in every cell of a heat map drawn with ``imshow`` (cell (r, c) at x=c, y=r).

    The text is black on light cells and white on dark ones (:func:`text_colour`).

    Args:
        ax: the axes of the heat map.
        values: array of shape (R, C): the values the colours show.
        labels: R·C texts, row-major; ``fmt.format(value)`` when None.
        fmt: format of a value when ``labels`` is None.
        cmap, vmin, vmax: the heat map's colour map and limits (the data's range when None).
        fontsize: text size.
    """
    values = as_array(values)
    if labels is not None and len(labels) != values.size:
        raise ValueError(f"labels has {len(labels)} entries for {values.size} cells")
    vmin = float(values.min()) if vmin is None else vmin
    vmax = float(values.max()) if vmax is None else vmax
    for n, ((r, c), value) in enumerate(np.ndenumerate(values)):
        text = _format(fmt, value) if labels is None else labels[n]
        colour = text_colour(value, vmin, vmax, cmap)
        ax.text(c, r, text, ha="center", va="center", fontsize=fontsize, color=colour)


def outline_cells(
    ax: Axes,
    row: float,
    col: float,
    height: float = 1,
    width: float = 1,
    colour: str = "orange",
    lw: float = 3,
    **kwargs,
):
    """Outline a block of cells of an ``imshow`` heat map (cell (r, c) centred at x=c, y=r).

    Args:
        ax: the axes.
        row, col: top-left cell of the block.
        height, width: size of the block in cells.
        colour: edge colour.
        lw: line width.
        **kwargs: passed on to ``matplotlib.patches.Rectangle`` (``linestyle``, ``zorder`` ...).

    Returns:
        The ``Rectangle`` added to the axes.
    """
    from matplotlib.patches import Rectangle

    corner = (col - 0.5, row - 0.5)
    box = Rectangle(corner, width, height, fill=False, edgecolor=colour, lw=lw, **kwargs)
    ax.add_patch(box)
    return box
