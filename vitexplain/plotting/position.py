"""Figures of notebook 03: sinusoidal position embeddings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..position import clock_pairs, clock_periods, sinusoid_encoding
from .core import (
    EMBEDDING_CMAP,
    PICTURE_CMAP,
    _as_array,
    new_axes,
    show_embedding,
    show_matrix,
    show_patch_grid,
    text_colour,
)

__all__ = [
    "POSITION_CMAP",
    "SIMILARITY_CMAP",
    "show_clock_explorer",
    "show_clocks",
    "show_columns",
    "show_embedding_bases",
    "show_frequencies",
    "show_grid_similarity",
    "show_resized_embedding",
    "show_similarity",
    "show_table_bands",
    "show_tokens_plus_embedding",
]

POSITION_CMAP = "viridis"  # the colour of a position along the sequence (the clocks)
SIMILARITY_CMAP = "cividis"  # cosine similarity, in every figure of notebook 03


def _base_label(base: float) -> str:
    """``$10^{4}$`` for a power of ten, else the number."""
    exponent = float(np.log10(base))
    return f"$10^{{{exponent:g}}}$" if exponent == round(exponent) else f"{base:.3g}"


def _period_label(period: float) -> str:
    return f"{period:.1f}" if period < 1000 else f"{period:,.0f}"


_DPI = 100  # the pixel layouts below are computed for this resolution (that of save_figure)


class _Band(NamedTuple):
    """One heat map of :func:`_heat_map_bands`; bands with the same ``colorbar`` label share one."""

    matrix: np.ndarray  # (R, C)
    title: str
    cmap: str
    vmin: float
    vmax: float
    colorbar: str
    first_column: int = 0  # index of the matrix's first column, for the ticks


def _heat_map_bands(
    bands: Sequence[_Band], column_px: float, row_px: float, xlabel: str, ylabel: str
) -> Figure:
    """Stack heat maps vertically, each at a fixed number of pixels per column and per row.

    A table of many columns drawn into fewer pixels aliases (columns are dropped or merged into
    moire patterns); here every column gets ``column_px`` >= 1 pixels at the figure's 100 dpi.

    Args:
        bands: the heat maps, top to bottom.
        column_px, row_px: pixels per column and per row.
        xlabel, ylabel: axis labels (the x label on the last band only).

    Returns:
        The figure, with a fixed layout (no layout engine).
    """
    left, right, top, gap, bottom, bar = 64, 110, 28, 56, 44, 14
    widths = [band.matrix.shape[1] * column_px for band in bands]
    heights = [band.matrix.shape[0] * row_px for band in bands]
    width = left + max(widths) + right
    height = top + sum(heights) + gap * (len(bands) - 1) + bottom
    fig = Figure(figsize=(width / _DPI, height / _DPI), dpi=_DPI)
    y = height - top
    groups: dict[str, list] = {}  # colour bar label -> [(image, bottom, height) of its bands]
    for band, w, h in zip(bands, widths, heights, strict=True):
        y -= h
        ax = fig.add_axes((left / width, y / height, w / width, h / height))
        (rows, cols), c0 = band.matrix.shape, band.first_column
        extent = (c0 - 0.5, c0 + cols - 0.5, rows - 0.5, -0.5)
        colours = {"cmap": band.cmap, "vmin": band.vmin, "vmax": band.vmax}
        im = ax.imshow(
            band.matrix, **colours, aspect="auto", interpolation="nearest", extent=extent
        )
        ax.set_title(band.title, fontsize=10)
        ax.set_ylabel(ylabel)
        groups.setdefault(band.colorbar, []).append((im, y, h))
        y -= gap
    ax.set_xlabel(xlabel)
    x0 = (left + max(widths) + 12) / width
    for label, members in groups.items():
        low, high = min(m[1] for m in members), max(m[1] + m[2] for m in members)
        cax = fig.add_axes((x0, low / height, bar / width, (high - low) / height))
        fig.colorbar(members[0][0], cax=cax, label=label)
    return fig


def show_table_bands(
    table: np.ndarray | torch.Tensor,
    parts: int = 2,
    title: str | None = None,
    column_px: float = 2,
    row_px: float = 2,
) -> Figure:
    """Draw a position-embedding table as ``parts`` bands of columns, every column visible.

    Args:
        table: array of shape (L, D), values in [-1, 1].
        parts: number of bands the D columns are split into (stacked top to bottom).
        title: a title for the first band (bands also say which columns they hold, when
            there are several).
        column_px: pixels per column at 100 dpi (at least 1, so no column is dropped).
        row_px: pixels per row (position).

    Returns:
        The figure: ``parts`` heat maps (diverging map, limits -1..1) sharing one colour bar.
    """
    table = _as_array(table)
    if table.ndim != 2:
        raise ValueError(f"table must have shape (L, D), got shape {table.shape}")
    if not 1 <= parts <= table.shape[1] or column_px < 1:
        raise ValueError(f"need 1 <= parts <= D and column_px >= 1, got {parts} and {column_px}")
    edges = np.linspace(0, table.shape[1], parts + 1).round().astype(int)
    bands = []
    for n, (c0, c1) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
        label = f"columns {c0}-{c1 - 1}"
        if title and n == 0:
            label = title if parts == 1 else f"{title}: {label}"
        band = _Band(table[:, c0:c1], label, EMBEDDING_CMAP, -1.0, 1.0, "value", int(c0))
        bands.append(band)
    return _heat_map_bands(bands, column_px, row_px, "dimension (column)", "position (token)")


def show_columns(
    table: np.ndarray | torch.Tensor,
    columns: Sequence[int],
    base: float = 10000.0,
    figsize: tuple[float, float] = (9, 3.2),
) -> Figure:
    """Plot chosen columns of a sinusoidal table against the position, one curve each.

    Args:
        table: array of shape (L, D), ``sinusoid_encoding(L, D, base)``.
        columns: the columns to plot.
        base: the base the table was made with (for the periods in the legend).
        figsize: size of the figure.

    Returns:
        The figure: one line per column, labelled with its pair and that pair's period in tokens.
    """
    table = _as_array(table)
    if table.ndim != 2 or not columns or not all(0 <= c < table.shape[1] for c in columns):
        raise ValueError(
            f"columns must be indices in [0, {table.shape[-1]}) of an (L, D) table, got {columns}"
        )
    periods = clock_periods(table.shape[1], base)
    fig, ax = new_axes(None, figsize)
    for n, column in enumerate(columns):
        kind = "sin" if column % 2 == 0 else "cos"
        ax.plot(
            np.arange(len(table)),
            table[:, column],
            lw=2.2 - 0.4 * (n % 3),
            marker="o",
            markersize=2.5,
            label=f"column {column} ({kind}, period {_period_label(periods[column // 2])})",
        )
    ax.set_xlabel("position (token)")
    ax.set_ylabel("value")
    ax.set_ylim(-1.1, 1.1)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return fig


def show_tokens_plus_embedding(
    tokens: np.ndarray | torch.Tensor,
    embedding: np.ndarray | torch.Tensor,
    column_px: float = 2,
    row_px: float = 8,
) -> Figure:
    """Draw the tokens, a position embedding of the same shape, and their sum, one above the other.

    Args:
        tokens: array of shape (N, D), values in [0, 1] (drawn in ``Purples_r``, limits 0..1).
        embedding: array of shape (N, D), values in [-1, 1] (diverging map, limits -1..1).
        column_px, row_px: pixels per column (at least 1) and per row, at 100 dpi.

    Returns:
        The figure: three heat maps, each with its colour bar; the sum is drawn with limits -1..2.
    """
    tokens, embedding = _as_array(tokens), _as_array(embedding)
    if tokens.ndim != 2 or tokens.shape != embedding.shape:
        raise ValueError(
            f"tokens and embedding must have the same shape (N, D), got {tokens.shape} "
            f"and {embedding.shape}"
        )
    bands = [
        _Band(tokens, "tokens", PICTURE_CMAP, 0, 1, "grey level"),
        _Band(embedding, "position embedding", EMBEDDING_CMAP, -1, 1, "value"),
        _Band(tokens + embedding, "tokens + embedding", PICTURE_CMAP, -1, 2, "sum"),
    ]
    fig = _heat_map_bands(bands, column_px, row_px, "element of the token", "token")
    ticks = sorted({0, *range(4, len(tokens), 5)})
    for ax in fig.axes[:3]:
        ax.set_yticks(ticks, [str(t + 1) for t in ticks])
    return fig


def show_embedding_bases(
    tables: Sequence[np.ndarray | torch.Tensor],
    bases: Sequence[float],
    figsize: tuple[float, float] = (9, 2.8),
) -> Figure:
    """Draw position-embedding tables made with different bases side by side, one colour bar.

    Args:
        tables: arrays of shape (N, D), one per base.
        bases: the base of each table (for the titles).
        figsize: size of the figure.

    Returns:
        The figure: one heat map per table (diverging map, limits -1..1) and a shared colour bar.
    """
    if len(tables) != len(bases) or not tables:
        raise ValueError(
            f"need one base per table, got {len(tables)} tables and {len(bases)} bases"
        )
    fig = Figure(figsize=figsize, layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(tables), sharey=True))
    for n, (ax, table, base) in enumerate(zip(axes, tables, bases, strict=True)):
        show_embedding(table, ax=ax, title=f"base {_base_label(base)}", colorbar=False,
                       ylabel="position (token)" if n == 0 else "")  # fmt: skip
    fig.colorbar(axes[0].images[0], ax=axes, shrink=0.8, label="value")
    return fig


def show_frequencies(
    frequencies: dict[float, np.ndarray],
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (6, 3.5),
) -> Figure:
    """Plot the angular frequency of each sin/cos pair against its index, on a log scale.

    Args:
        frequencies: ``{base: omega}`` with omega of shape (D / 2,) (see ``clock_frequencies``).
        ax: axes to draw on; a new figure when None.
        title: axes title.
        figsize: size of a new figure.

    Returns:
        The figure: one line per base, log y axis, labelled.
    """
    from matplotlib.ticker import NullLocator

    fig, ax = new_axes(ax, figsize)
    for base, omega in frequencies.items():
        omega = _as_array(omega)
        ax.plot(np.arange(len(omega)), omega, lw=2, label=f"base {_base_label(base)}")
    ax.set_yscale("log")
    ax.set_xlabel("pair index $i$")
    ax.set_ylabel(r"$\omega_i = \mathrm{base}^{-2i/d}$ (radians per token)")
    ax.yaxis.set_minor_locator(NullLocator())  # fewer ticks: faster to draw, easier to read
    ax.grid(True, alpha=0.3)
    ax.legend()
    if title:
        ax.set_title(title)
    return fig


def _draw_clocks(
    ax: Axes, cax: Axes, table: np.ndarray, base: float, pairs: Sequence[int], ncols: int = 3
) -> None:
    """Draw pair i of ``table`` as points (sin, cos) on a unit circle, one circle per pair.

    The circles sit on a grid of ``ncols`` columns inside one axes (one axes is much faster to
    draw than nine); the position colour bar goes into ``cax``.
    """
    from matplotlib.patches import Circle

    periods = clock_periods(table.shape[1], base)
    pairs = [int(p) for p in pairs]
    nrows = -(-len(pairs) // ncols)
    centres = np.array([(2.8 * (n % ncols), -3.3 * (n // ncols)) for n in range(len(pairs))])
    xs, ys = [], []
    for (x0, y0), i in zip(centres, pairs, strict=True):
        ax.add_patch(Circle((x0, y0), 1, fill=False, color="0.7", lw=1))
        ax.plot([x0, x0], [y0 + 0.85, y0 + 1.15], color="0.4", lw=1)  # 12 o'clock: position 0
        ax.text(x0, y0 + 1.25, f"pair {i}\nperiod {_period_label(periods[i])}", ha="center",
                va="bottom", fontsize=8, linespacing=1.1)  # fmt: skip
        xs.append(x0 + table[:, 2 * i])
        ys.append(y0 + table[:, 2 * i + 1])
    positions = np.tile(np.arange(len(table)), len(pairs))
    scatter = ax.scatter(np.concatenate(xs), np.concatenate(ys), c=positions, s=9,
                         cmap=POSITION_CMAP, vmin=0, vmax=max(len(table) - 1, 1))  # fmt: skip
    ax.set_xlim(-1.3, 2.8 * (ncols - 1) + 1.3)
    ax.set_ylim(-3.3 * (nrows - 1) - 1.15, 2.05)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.figure.colorbar(scatter, cax=cax, label="position (token)")


def show_clocks(
    table: np.ndarray | torch.Tensor,
    base: float = 10000.0,
    pairs: Sequence[int] | None = None,
    figsize: tuple[float, float] = (5.6, 5.0),
) -> Figure:
    """Draw chosen sin/cos pairs of an embedding table as clocks: points on unit circles.

    Position pos puts pair i at (sin(pos w_i), cos(pos w_i)): it starts at the top of the circle
    (12 o'clock, marked) and turns clockwise by w_i radians per position. Points are coloured by
    position, and each circle is titled with its pair's period in tokens.

    Args:
        table: array of shape (L, D), a sinusoidal table (``sinusoid_encoding(L, D, base)``).
        base: the base the table was made with (for the periods in the titles).
        pairs: indices of at most 9 pairs to draw; ``clock_pairs(D)`` when None.
        figsize: size of the figure.

    Returns:
        The figure: a 3 x 3 grid of unit circles (horizontal axis sin, vertical axis cos) in one
        axes, and a colour bar for the position.
    """

    table = _as_array(table)
    if table.ndim != 2 or table.shape[1] < 2:
        raise ValueError(f"table must have shape (L, D) with D >= 2, got shape {table.shape}")
    pairs = clock_pairs(table.shape[1]) if pairs is None else list(pairs)
    num_pairs = table.shape[1] // 2
    if not 0 < len(pairs) <= 9 or not all(0 <= p < num_pairs for p in pairs):
        raise ValueError(f"pairs must hold 1 to 9 indices in [0, {num_pairs}), got {pairs}")
    fig = Figure(figsize=figsize)
    ax = fig.add_axes((0.01, 0.05, 0.84, 0.94))
    _draw_clocks(ax, fig.add_axes((0.87, 0.15, 0.03, 0.7)), table, base, pairs)
    fig.text(0.43, 0.015, r"horizontal: $\sin(pos\,\omega_i)$, vertical: $\cos(pos\,\omega_i)$;"
             " the mark at 12 o'clock is position 0", ha="center", fontsize=8)  # fmt: skip
    return fig


def show_similarity(
    similarity: np.ndarray | torch.Tensor,
    starts: Sequence[int] = (0, 50, 100),
    figsize: tuple[float, float] = (9, 3.6),
) -> Figure:
    """Draw a position-similarity matrix, and its rows against the offset b - a.

    If the similarity depends only on the offset, the curves of the right panel lie on top of
    each other.

    Args:
        similarity: array of shape (N, N), e.g. ``embedding_similarity(table)``.
        starts: positions a whose rows are plotted against the offset.
        figsize: size of the figure.

    Returns:
        The figure: the matrix (``SIMILARITY_CMAP``, the data's range, colour bar) and one curve
        per start.
    """
    similarity = _as_array(similarity)
    n = similarity.shape[0]
    if similarity.ndim != 2 or similarity.shape[1] != n:
        raise ValueError(f"similarity must be a square matrix, got shape {similarity.shape}")
    if not starts or not all(0 <= a < n for a in starts):
        raise ValueError(f"starts must be positions in [0, {n}), got {starts}")
    fig = Figure(figsize=figsize, layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.3])
    show_matrix(
        similarity,
        ax=left,
        cmap=SIMILARITY_CMAP,
        aspect="equal",
        title="similarity of PE(a) and PE(b)",
        xlabel="position b",
        ylabel="position a",
    )
    fig.colorbar(left.images[0], ax=left, shrink=0.8, label="cosine similarity")
    styles = ["-", "--", ":", "-."]
    for n_curve, a in enumerate(starts):
        offsets = np.arange(-a, n - a)
        right.plot(offsets, similarity[a, a + offsets], styles[n_curve % 4],
                   lw=3 - 0.7 * (n_curve % 3), label=f"row a = {a}")  # fmt: skip
    right.set_xlabel("offset k = b - a (tokens)")
    right.set_ylabel("similarity")
    right.set_title("rows against the offset")
    right.grid(True, alpha=0.3)
    right.legend()
    return fig


def show_grid_similarity(
    maps: Sequence[np.ndarray | torch.Tensor],
    titles: Sequence[str],
    reference: int,
    image: np.ndarray | None = None,
    patch_size: int = 20,
    figsize: tuple[float, float] = (9.5, 2.5),
) -> Figure:
    """Draw similarity-to-one-patch maps over a patch grid, each cell labelled with patch and value.

    Args:
        maps: arrays of shape (H, W), the similarity of every patch to patch ``reference``.
        titles: one title per map.
        reference: 0-based index (row-major) of the patch compared with the others; outlined.
        image: optional picture of shape (H * P, W * P) drawn first with its patch grid.
        patch_size: side P of the patches of ``image``.
        figsize: size of the figure.

    Returns:
        The figure: (the picture and) one annotated map per entry of ``maps``, one colour bar.
    """
    from matplotlib.patches import Rectangle

    maps = [_as_array(m) for m in maps]
    shapes = {m.shape for m in maps}
    if not maps or len(titles) != len(maps) or len(shapes) != 1 or maps[0].ndim != 2:
        raise ValueError(
            f"maps must be one or more (H, W) arrays of one shape with one title each, got "
            f"shapes {sorted(shapes)} and {len(titles)} titles"
        )
    rows, cols = maps[0].shape
    if not 0 <= reference < rows * cols:
        raise ValueError(f"reference must be a patch index in [0, {rows * cols}), got {reference}")
    fig = Figure(figsize=figsize, layout="constrained")
    axes = list(fig.subplots(1, len(maps) + (image is not None)))
    if image is not None:
        show_patch_grid(image, patch_size, ax=axes.pop(0), highlight=reference, title="the patches")
    vmin, vmax = min(float(m.min()) for m in maps), max(float(m.max()) for m in maps)
    r0, c0 = divmod(reference, cols)
    for ax, values, title in zip(axes, maps, titles, strict=True):
        im = ax.imshow(values, cmap=SIMILARITY_CMAP, vmin=vmin, vmax=vmax, interpolation="nearest")
        for (r, c), v in np.ndenumerate(values):
            ax.text(c, r, f"{r * cols + c + 1}\n{v:.2f}", ha="center", va="center", fontsize=8,
                    color=text_colour(v, vmin, vmax, SIMILARITY_CMAP))  # fmt: skip
        ax.add_patch(Rectangle((c0 - 0.5, r0 - 0.5), 1, 1, fill=False, edgecolor="orange", lw=3))
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.set_xlabel("grid column")
        ax.set_ylabel("grid row")
        ax.set_title(title)
    fig.colorbar(im, ax=axes, shrink=0.9, label="cosine similarity")
    return fig


def show_resized_embedding(
    before: np.ndarray | torch.Tensor,
    after: np.ndarray | torch.Tensor,
    old_grid: tuple[int, int],
    new_grid: tuple[int, int],
    channels: Sequence[int],
    num_prefix_tokens: int = 0,
    figsize: tuple[float, float] = (7, 3.4),
) -> Figure:
    """Draw chosen channels of a position embedding on its grid, before and after resizing.

    Both grids are drawn over the same area (in units of the old grid), since the resized
    embedding covers the same picture with more, smaller patches.

    Args:
        before: shape (num_prefix_tokens + H * W, D), or with a leading 1.
        after: shape (num_prefix_tokens + H' * W', D), or with a leading 1.
        old_grid: (H, W).
        new_grid: (H', W').
        channels: the embedding dimensions to draw, one column of panels each.
        num_prefix_tokens: leading tokens (class token) that are not drawn.
        figsize: size of the figure.

    Returns:
        The figure: 2 rows (before, after) x one column per channel, limits -1..1, one colour bar.
    """
    panels = []
    for name, table, (h, w) in (("before", before, old_grid), ("after", after, new_grid)):
        table = _as_array(table)
        table = table.reshape(-1, table.shape[-1])[num_prefix_tokens:]  # (H*W, D)
        if table.shape[0] != h * w:
            raise ValueError(f"{name} holds {table.shape[0]} grid tokens, expected {h} x {w}")
        panels.append((table.reshape(h, w, -1), (h, w)))
    if not channels:
        raise ValueError("channels must name at least one embedding dimension")
    height, width = old_grid
    fig = Figure(figsize=figsize, layout="constrained")
    axes = np.atleast_2d(fig.subplots(2, len(channels), sharex=True, sharey=True))
    if len(channels) == 1:
        axes = axes.T
    for row, (grid, (h, w)) in enumerate(panels):
        for col, channel in enumerate(channels):
            ax = axes[row, col]
            im = ax.imshow(grid[:, :, channel], cmap=EMBEDDING_CMAP, vmin=-1, vmax=1,
                           interpolation="nearest", extent=(0, width, height, 0))  # fmt: skip
            ax.set_title(f"dim {channel}, {h} x {w}", fontsize=9)
            if row == 1:
                ax.set_xlabel("column (old cells)")
            if col == 0:
                ax.set_ylabel("row (old cells)")
    fig.colorbar(im, ax=axes, shrink=0.8, label="value")
    return fig


def show_clock_explorer(
    base: float = 10000.0,
    dim: int = 18,
    num_tokens: int = 100,
    figsize: tuple[float, float] = (9, 4),
) -> Figure:
    """The table and its clocks for one (base, dim): what the Explore sliders of notebook 03 redraw.

    Args:
        base: the wavelength scale.
        dim: embedding length D (at least 2).
        num_tokens: number of positions L.
        figsize: size of the figure.

    Returns:
        The figure: the (L, D) table on the left (diverging map, limits -1..1, colour bar), and on
        the right up to 9 pairs spread from fast to slow (``clock_pairs(D)``) drawn as clocks, with
        a position colour bar. Fixed layout (no layout engine), so that a redraw stays fast.
    """

    table = sinusoid_encoding(num_tokens, dim, base).numpy()  # (L, D)
    pairs = clock_pairs(dim)
    fig = Figure(figsize=figsize)
    left = fig.add_axes((0.07, 0.12, 0.31, 0.78))
    show_embedding(table, ax=left, colorbar=False,
                   title=f"{num_tokens} x {dim} table, base {_base_label(base)}")  # fmt: skip
    fig.colorbar(left.images[0], cax=fig.add_axes((0.39, 0.2, 0.012, 0.62)), label="value")
    right = fig.add_axes((0.47, 0.01, 0.44, 0.98))
    _draw_clocks(right, fig.add_axes((0.93, 0.2, 0.012, 0.62)), table, base, pairs)
    return fig
