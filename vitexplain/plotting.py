"""Figures for the notebooks: pure functions, data in and a ``matplotlib.figure.Figure`` out.

Nothing here calls ``plt.show()`` or touches the global rcParams. Figures are built with
``matplotlib.figure.Figure`` (no pyplot state), so a notebook displays one by leaving it as the
cell's last value. Colour conventions: ``Purples_r`` for the picture and its tokens, a diverging
map with limits -1..1 for embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

PICTURE_CMAP = "Purples_r"
EMBEDDING_CMAP = "RdBu_r"


def _as_array(data) -> np.ndarray:
    if isinstance(data, torch.Tensor):
        return data.detach().cpu().numpy()
    return np.asarray(data)


def new_axes(ax: Axes | None = None, figsize: tuple[float, float] = (6, 4)) -> tuple[Figure, Axes]:
    """Return ``(figure, axes)``: the given axes and their figure, or a new single-axes figure."""
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=figsize, layout="constrained")
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
    image = _as_array(image)
    if image.ndim != 2:
        raise ValueError(f"image must have shape (H, W), got shape {image.shape}")
    fig, ax = new_axes(ax, figsize)
    im = ax.imshow(image, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    ax.set_xlabel("column (pixels)")
    ax.set_ylabel("row (pixels)")
    if title:
        ax.set_title(title)
    if colorbar:
        fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def show_patch_grid(
    image,
    patch_size: int,
    ax: Axes | None = None,
    labels: Sequence[int | str] | None = None,
    highlight: int | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (6, 3.8),
) -> Figure:
    """Draw an image cut into P x P patches, each labelled at its centre.

    A label is dark on a bright patch and light on a dark one (chosen from the patch's mean).

    Args:
        image: array of shape (H, W), values in [0, 1].
        patch_size: side P of the patches.
        ax: axes to draw on; a new figure when None.
        labels: one label per patch in row-major order; 1, 2, ..., N when None.
        highlight: 0-based index of a patch to outline in orange.
        title: axes title.
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    image = _as_array(image)
    fig = show_image(image, ax=ax, title=title, figsize=figsize)
    ax = ax or fig.axes[0]
    height, width = image.shape
    rows, cols = height // patch_size, width // patch_size
    if labels is None:
        labels = range(1, rows * cols + 1)
    if len(labels) != rows * cols:
        raise ValueError(f"labels has {len(labels)} entries for {rows * cols} patches")
    for edge in range(0, height + 1, patch_size):
        ax.axhline(edge - 0.5, color="white", lw=1)
    for edge in range(0, width + 1, patch_size):
        ax.axvline(edge - 0.5, color="white", lw=1)
    for n, label in enumerate(labels):
        r, c = divmod(n, cols)
        patch = image[r * patch_size : (r + 1) * patch_size, c * patch_size : (c + 1) * patch_size]
        y, x = (r + 0.5) * patch_size - 0.5, (c + 0.5) * patch_size - 0.5
        ax.text(x, y, str(label), ha="center", va="center", fontsize=12, fontweight="bold",
                color=text_colour(patch.mean(), 0, 1))  # fmt: skip
    if highlight is not None:
        from matplotlib.patches import Rectangle

        r, c = divmod(highlight, cols)
        ax.add_patch(Rectangle((c * patch_size - 0.5, r * patch_size - 0.5), patch_size, patch_size,
                               fill=False, edgecolor="orange", lw=3))  # fmt: skip
    ax.set_xticks(np.arange(0, width + 1, patch_size) - 0.5, np.arange(0, width + 1, patch_size))
    ax.set_yticks(np.arange(0, height + 1, patch_size) - 0.5, np.arange(0, height + 1, patch_size))
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
    matrix = _as_array(matrix)
    if matrix.ndim != 2:
        raise ValueError(f"matrix must have 2 dimensions, got shape {matrix.shape}")
    fig, ax = new_axes(ax, figsize)
    vmin = float(matrix.min()) if vmin is None else vmin
    vmax = float(matrix.max()) if vmax is None else vmax
    im = ax.imshow(matrix, cmap=cmap, vmin=vmin, vmax=vmax, aspect=aspect, interpolation="nearest")
    if annotate:
        for (r, c), value in np.ndenumerate(matrix):
            ax.text(c, r, fmt.format(value), ha="center", va="center", fontsize=9,
                    color=text_colour(value, vmin, vmax, cmap))  # fmt: skip
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
    options = {"cmap": EMBEDDING_CMAP, "vmin": -1.0, "vmax": 1.0, "colorbar": True,
               "xlabel": "dimension", "ylabel": "position (token)", **kwargs}  # fmt: skip
    return show_matrix(table, ax=ax, title=title, **options)


def figure_to_array(fig: Figure) -> np.ndarray:
    """Render a figure in memory and return its pixels.

    Args:
        fig: the figure.

    Returns:
        uint8 array of shape (height, width, 3), RGB.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def save_figure(fig: Figure, path: str | Path, dpi: int = 100) -> Path:
    """Write a figure as a PNG whose bytes depend only on the figure (no software/date stamps).

    Args:
        fig: the figure.
        path: file to write; parent folders are created.
        dpi: resolution.

    Returns:
        The path written.
    """
    path = Path(path)
    if path.suffix != ".png":
        raise ValueError(f"save_figure writes PNG files, got path {str(path)!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, metadata={"Software": None})
    return path


def save_gif(frames: Sequence[np.ndarray], path: str | Path, fps: float = 10.0) -> Path:
    """Write frames as a looping GIF with one shared palette.

    The palette is taken from the first frame (at most 256 colours, no dithering) and every frame is
    mapped onto it, so flat figure colours stay flat and the file stays small.

    Args:
        frames: uint8 arrays of shape (H, W, 3), all the same shape (e.g. from
            :func:`figure_to_array`).
        path: file to write; parent folders are created.
        fps: frames per second.

    Returns:
        The path written.
    """
    import imageio.v3 as iio
    from PIL import Image

    if len(frames) == 0:
        raise ValueError("frames is empty: a GIF needs at least one frame")
    shapes = {np.shape(f) for f in frames}
    if len(shapes) != 1 or len(next(iter(shapes))) != 3 or next(iter(shapes))[2] != 3:
        raise ValueError(f"frames must all have one shape (H, W, 3), got shapes {sorted(shapes)}")
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    first = Image.fromarray(np.asarray(frames[0], dtype=np.uint8))
    palette = first.quantize(colors=256, dither=Image.Dither.NONE)
    indexed = [
        np.asarray(Image.fromarray(np.asarray(f, dtype=np.uint8)).quantize(
            palette=palette, dither=Image.Dither.NONE).convert("RGB"))
        for f in frames
    ]  # fmt: skip
    iio.imwrite(path, np.stack(indexed), extension=".gif", duration=1000 / fps, loop=0)
    return path


# Figures of each notebook. Each notebook's figures live under its own heading, in notebook order.

# --- notebook 01: patch tokenization ---


def _one_based_ticks(count: int, max_ticks: int = 16) -> list[int]:
    """1-based labels for ``count`` items: all of them when few, else 1 and round multiples."""
    if count <= max_ticks:
        return list(range(1, count + 1))
    steps = (m * f for m in (1, 10, 100, 1000, 10_000, 100_000) for f in (1, 2, 5))
    step = next(s for s in steps if count // s < max_ticks)
    return [1, *range(step, count + 1, step)]


def show_patch_and_token(
    patch,
    number: int | None = None,
    highlight_row: int | None = None,
    axes: Sequence[Axes] | None = None,
    figsize: tuple[float, float] = (7, 2.2),
) -> Figure:
    """Draw a P x P patch next to the token it flattens into: a 1 x P² strip of P row segments.

    White lines in the strip separate the patch rows; the axis on top of the strip numbers them.

    Args:
        patch: array of shape (P, P), values in [0, 1].
        number: the patch's 1-based number, used in the titles.
        highlight_row: 0-based row of the patch to outline in orange, in the patch and in the strip.
        axes: two axes (patch, strip) to draw on; a new figure when None.
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    patch = _as_array(patch)
    if patch.ndim != 2 or patch.shape[0] != patch.shape[1]:
        raise ValueError(f"patch must be a square array of shape (P, P), got shape {patch.shape}")
    size = patch.shape[0]
    if highlight_row is not None and not 0 <= highlight_row < size:
        raise ValueError(f"highlight_row must be in 0..{size - 1}, got {highlight_row}")
    if axes is None:
        fig = Figure(figsize=figsize, layout="constrained")
        ax_patch, ax_strip = fig.subplots(1, 2, width_ratios=[1, 4])
    else:
        ax_patch, ax_strip = axes
        fig = ax_patch.figure
    name = "" if number is None else f" {number}"
    strip = patch.reshape(1, size * size)  # (1, P*P): row 0, then row 1, ...
    show_image(patch, ax=ax_patch, title=f"patch{name} ({size} x {size})")
    ax_patch.set_xlabel("column in patch")
    ax_patch.set_ylabel("row in patch")
    ax_strip.imshow(strip, cmap=PICTURE_CMAP, vmin=0, vmax=1, interpolation="nearest",
                    aspect=size * size / 12)  # fmt: skip
    for edge in range(size, size * size, size):
        ax_strip.axvline(edge - 0.5, color="white", lw=0.8)
    ax_strip.set_yticks([])
    ax_strip.set_xlabel(f"position in token{name} (0 ... {size * size - 1})")
    ax_strip.set_title(f"token{name}: 1 x {size * size}, the patch rows one after another")
    every = 1 if size <= 20 else 2
    top = ax_strip.secondary_xaxis("top")
    rows = range(0, size, every)
    top.set_ticks([r * size + size / 2 - 0.5 for r in rows], [str(r) for r in rows], fontsize=7)
    top.tick_params(length=0)
    if highlight_row is not None:
        from matplotlib.patches import Rectangle

        r, box = highlight_row, {"fill": False, "edgecolor": "orange", "lw": 2}
        ax_patch.add_patch(Rectangle((-0.5, r - 0.5), size, 1, **box))
        ax_strip.add_patch(Rectangle((r * size - 0.5, -0.5), size, 1, **box))
    return fig


def show_token_matrix(
    tokens,
    ax: Axes | None = None,
    title: str | None = None,
    colorbar: bool = True,
    figsize: tuple[float, float] = (6, 3.2),
) -> Figure:
    """Draw tokens as the rows of a matrix: token n (1-based) is row n, its values left to right.

    Args:
        tokens: array of shape (N, L), values in [0, 1] (colour limits 0..1).
        ax: axes to draw on; a new figure when None.
        title: axes title.
        colorbar: add a colour bar.
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    from matplotlib.ticker import MaxNLocator

    tokens = _as_array(tokens)
    if tokens.ndim != 2:
        raise ValueError(f"tokens must have shape (N, L), got shape {tokens.shape}")
    count, length = tokens.shape
    fig = show_matrix(tokens, ax=ax, title=title, vmin=0.0, vmax=1.0, colorbar=colorbar,
                      xlabel=f"position in the token (0 ... {length - 1})",
                      ylabel="token (patch number)", figsize=figsize)  # fmt: skip
    ax = ax or fig.axes[0]
    labels = _one_based_ticks(count)
    ax.set_yticks([n - 1 for n in labels], [str(n) for n in labels])
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True, min_n_ticks=1))
    return fig


def show_tokenization(
    image,
    patch_size: int,
    max_labels: int = 60,
    figsize: tuple[float, float] = (8, 3),
) -> Figure:
    """Draw an image cut into P x P patches next to the token matrix those patches make.

    Patches are numbered (1-based) only when there are at most ``max_labels`` of them, and grid
    lines are drawn only for patches of 4 pixels or more, so that P = 1 (one token per pixel)
    stays readable and quick to draw.

    Args:
        image: array of shape (H, W), values in [0, 1]; ``patch_size`` must divide H and W.
        patch_size: side P of the patches.
        max_labels: largest number of patches that get a number.
        figsize: size of the figure.

    Returns:
        The figure: the patch grid on the left, the (N, P*P) token matrix on the right.
    """
    from ._checks import check_int
    from .patches import patchify

    image = _as_array(image)
    if image.ndim != 2:
        raise ValueError(f"image must have shape (H, W), got shape {image.shape}")
    patch_size = check_int("patch_size", patch_size)
    max_labels = check_int("max_labels", max_labels, minimum=0)
    tokens = patchify(torch.as_tensor(image)[None, None], patch_size)[0]  # (N, P*P)
    count, length = tokens.shape
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    # fixed margins, no layout engine: this figure is redrawn at every move of a slider, and
    # constrained layout more than doubles the time of a redraw
    fig = Figure(figsize=figsize)
    margins = {"left": 0.07, "right": 0.97, "bottom": 0.15, "top": 0.9, "wspace": 0.3}
    ax_grid, ax_tokens = fig.subplots(1, 2, width_ratios=[5, 3], gridspec_kw=margins)
    grid_title = f"P = {patch_size}: {rows} x {cols} = {count} patches"
    if count <= max_labels:
        show_patch_grid(image, patch_size, ax=ax_grid, title=grid_title)
    else:
        show_image(image, ax=ax_grid, title=grid_title)
        if patch_size >= 4:
            for edge in range(patch_size, image.shape[0], patch_size):
                ax_grid.axhline(edge - 0.5, color="white", lw=0.5)
            for edge in range(patch_size, image.shape[1], patch_size):
                ax_grid.axvline(edge - 0.5, color="white", lw=0.5)
    show_token_matrix(tokens, ax=ax_tokens, title=f"{count} tokens of length {length}")
    return fig


def figure_to_png(fig: Figure, dpi: int = 100) -> bytes:
    """Render a figure to PNG bytes in memory, the same bytes :func:`save_figure` writes.

    Args:
        fig: the figure.
        dpi: resolution.

    Returns:
        The PNG file's bytes (no software/date stamps, so equal figures give equal bytes).
    """
    from io import BytesIO

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    buffer = BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()

# --- notebook 02: attention ---


def _per_matrix(name: str, value, count: int) -> list:
    """One entry per panel: ``value`` repeated if None or a string, else checked for length."""
    if value is None or isinstance(value, str):
        return [value] * count
    value = list(value)
    if len(value) != count:
        raise ValueError(f"{name} has {len(value)} entries for {count} matrices")
    return value


def _outline_cells(ax: Axes, x: float, y: float, width: float, height: float) -> None:
    """Outline in orange the block of cells whose top-left cell is (row y, column x)."""
    from matplotlib.patches import Rectangle

    outline = Rectangle((x - 0.5, y - 0.5), width, height, fill=False, edgecolor="orange", lw=2.5)
    ax.add_patch(outline)


def show_matrices(
    matrices: Sequence,
    titles: Sequence[str | None] | None = None,
    ncols: int | None = None,
    fmt: str = "{:.0f}",
    cmap: str = PICTURE_CMAP,
    highlight_rows: Sequence[Sequence[int] | None] | None = None,
    highlight_cols: Sequence[Sequence[int] | None] | None = None,
    xlabel: str | Sequence[str | None] | None = "channel",
    ylabel: str | Sequence[str | None] | None = "token",
    fontsize: float = 8,
    aspect: str | float = "equal",
    figsize: tuple[float, float] = (6, 4),
) -> Figure:
    """Draw several small matrices side by side, each with its values written in its cells.

    Every panel has its own colour limits (its data's range), 0-based row and column indices on
    the axes, and optionally some rows and columns outlined in orange (e.g. two swapped tokens).

    Args:
        matrices: a sequence of M arrays, each of shape (R_m, C_m).
        titles: one title per matrix.
        ncols: panels per row; all M in one row when None.
        fmt: format of the written values.
        cmap: colour map.
        highlight_rows: per matrix, the 0-based rows to outline (or None).
        highlight_cols: per matrix, the 0-based columns to outline (or None).
        xlabel, ylabel: one label for every panel, or one per panel.
        fontsize: size of the written values.
        aspect: ``imshow`` aspect: "equal" for square cells, "auto" to fill the panel.
        figsize: size of the figure.

    Returns:
        The figure, with M axes in a grid of ceil(M / ncols) rows.
    """
    from ._checks import check_int

    arrays = [_as_array(m) for m in matrices]
    if not arrays:
        raise ValueError("matrices is empty: nothing to draw")
    for n, array in enumerate(arrays):
        if array.ndim != 2:
            raise ValueError(f"matrices[{n}] must have 2 dimensions, got shape {array.shape}")
    count = len(arrays)
    ncols = count if ncols is None else check_int("ncols", ncols)
    titles = _per_matrix("titles", titles, count)
    rows_hl = _per_matrix("highlight_rows", highlight_rows, count)
    cols_hl = _per_matrix("highlight_cols", highlight_cols, count)
    xlabels = _per_matrix("xlabel", xlabel, count)
    ylabels = _per_matrix("ylabel", ylabel, count)
    for name, chosen, axis in (("highlight_rows", rows_hl, 0), ("highlight_cols", cols_hl, 1)):
        for n, indices in enumerate(chosen):
            size = arrays[n].shape[axis]
            if any(not 0 <= int(i) < size for i in indices or ()):
                raise ValueError(f"{name}[{n}] = {list(indices)} is out of range for {size} items")
    nrows = -(-count // ncols)
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for n, (ax, array) in enumerate(zip(axes[:count], arrays, strict=True)):
        height, width = array.shape  # (R, C)
        show_matrix(array, ax=ax, title=titles[n], xlabel=xlabels[n], ylabel=ylabels[n], cmap=cmap,
                    annotate=True, fmt=fmt, aspect=aspect, xticklabels=range(width),
                    yticklabels=range(height))  # fmt: skip
        for text in ax.texts:  # the values sit inside the axes: leave them out of layout passes
            text.set_fontsize(fontsize)
            text.set_in_layout(False)
        for r in rows_hl[n] or ():
            _outline_cells(ax, 0, int(r), width, 1)  # the whole row r
        for c in cols_hl[n] or ():
            _outline_cells(ax, int(c), 0, 1, height)  # the whole column c
    for ax in axes[count:]:
        fig.delaxes(ax)
    return fig


def show_scrambled_patches(
    image,
    patch_size: int,
    order: Sequence[int],
    titles: tuple[str, str] = ("original", "scrambled"),
    figsize: tuple[float, float] = (8, 2.8),
) -> Figure:
    """Draw an image next to a copy whose patches are rearranged, each patch labelled by origin.

    Left: the image with its patches numbered 1 ... N (row-major). Right: the result of
    :func:`~vitexplain.scramble_patches`, where every patch keeps the 1-based number it had in the
    original, so the label at position i is ``order[i] + 1``.

    Args:
        image: array of shape (H, W), values in [0, 1].
        patch_size: side P of the patches; must divide H and W.
        order: a permutation of range(N), 0-based: position i shows the original patch order[i].
        titles: titles of the two panels.
        figsize: size of the figure.

    Returns:
        The figure, with two axes.
    """
    from .patches import scramble_patches

    image = _as_array(image)
    scrambled = scramble_patches(image, patch_size, order)  # (H, W); validates order
    fig = Figure(figsize=figsize, layout="constrained")
    left, right = fig.subplots(1, 2)
    show_patch_grid(image, patch_size, ax=left, title=titles[0])
    show_patch_grid(scrambled, patch_size, ax=right, labels=[int(o) + 1 for o in order],
                    title=titles[1])  # fmt: skip
    for text in (*left.texts, *right.texts):  # patch numbers sit inside the axes
        text.set_in_layout(False)
    return fig


def show_attention_heads(
    weights,
    ncols: int = 2,
    labels: Sequence[int | str] | None = None,
    cmap: str = "Purples",
    title: str | None = None,
    figsize: tuple[float, float] = (6, 5),
) -> Figure:
    """Draw the attention map of every head in a grid, with one colour bar shared by all.

    Row i of a map is query token i, column j is key token j; each row sums to 1. All maps use
    the colour limits 0 .. (largest weight of any head), so the heads can be compared.

    Args:
        weights: attention weights of shape (h, N, N).
        ncols: maps per row of the grid.
        labels: tick label of each of the N tokens; 1, 2, ..., N when None.
        cmap: colour map.
        title: title of the whole figure.
        figsize: size of the figure.

    Returns:
        The figure: h heat-map axes, then the colour bar's axes.
    """
    from ._checks import check_int

    weights = _as_array(weights)
    if weights.ndim != 3 or weights.shape[1] != weights.shape[2]:
        raise ValueError(f"weights must have shape (h, N, N), got shape {weights.shape}")
    heads, n, _ = weights.shape
    ncols = check_int("ncols", ncols)
    labels = list(range(1, n + 1)) if labels is None else list(labels)
    if len(labels) != n:
        raise ValueError(f"labels has {len(labels)} entries for {n} tokens")
    vmax = float(weights.max())
    nrows = -(-heads // ncols)
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for head, ax in enumerate(axes[:heads]):
        show_matrix(weights[head], ax=ax, title=f"head {head + 1}", xlabel="key (patch)",
                    ylabel="query (patch)", cmap=cmap, vmin=0.0, vmax=vmax, aspect="equal",
                    xticklabels=labels, yticklabels=labels)  # fmt: skip
        ax.tick_params(labelsize=6)
        ax.label_outer()  # token numbers and axis names on the outer panels only
    for ax in axes[heads:]:
        fig.delaxes(ax)
    fig.colorbar(axes[0].images[0], ax=list(axes[:heads]), shrink=0.8, label="attention weight")
    if title:
        fig.suptitle(title)
    return fig

# --- notebook 03: sinusoidal position embeddings ---

POSITION_CMAP = "viridis"  # the colour of a position along the sequence (the clocks)


def _base_label(base: float) -> str:
    """``$10^{4}$`` for a power of ten, else the number."""
    exponent = float(np.log10(base))
    return f"$10^{{{exponent:g}}}$" if exponent == round(exponent) else f"{base:.3g}"


def _period_label(period: float) -> str:
    return f"{period:.1f}" if period < 1000 else f"{period:,.0f}"


def show_tokens_plus_embedding(
    tokens: np.ndarray | torch.Tensor,
    embedding: np.ndarray | torch.Tensor,
    figsize: tuple[float, float] = (9, 3),
) -> Figure:
    """Draw the tokens, a position embedding of the same shape, and their sum, side by side.

    Args:
        tokens: array of shape (N, D), values in [0, 1] (drawn in ``Purples_r``, limits 0..1).
        embedding: array of shape (N, D), values in [-1, 1] (diverging map, limits -1..1).
        figsize: size of the figure.

    Returns:
        The figure: three heat maps, each with its colour bar; the sum is drawn with limits -1..2.
    """
    tokens, embedding = _as_array(tokens), _as_array(embedding)
    if tokens.ndim != 2 or tokens.shape != embedding.shape:
        raise ValueError(
            f"tokens and embedding must have the same shape (N, D), got {tokens.shape} "
            f"and {embedding.shape}"
        )
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(1, 3, sharey=True)
    xlabel = "element of the token"
    show_matrix(tokens, ax=axes[0], title="tokens", xlabel=xlabel, ylabel="token (1-based)",
                vmin=0, vmax=1, colorbar=True)  # fmt: skip
    show_embedding(embedding, ax=axes[1], title="position embedding", xlabel=xlabel, ylabel="")
    show_matrix(tokens + embedding, ax=axes[2], title="tokens + embedding", xlabel=xlabel,
                vmin=-1, vmax=2, colorbar=True)  # fmt: skip
    ticks = sorted({0, *range(4, len(tokens), 5)})
    axes[0].set_yticks(ticks, [str(t + 1) for t in ticks])
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

    from .position import clock_periods

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
    from .position import clock_pairs

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
        The figure: the matrix (diverging map, limits -1..1, colour bar) and one curve per start.
    """
    similarity = _as_array(similarity)
    n = similarity.shape[0]
    if similarity.ndim != 2 or similarity.shape[1] != n:
        raise ValueError(f"similarity must be a square matrix, got shape {similarity.shape}")
    if not starts or not all(0 <= a < n for a in starts):
        raise ValueError(f"starts must be positions in [0, {n}), got {starts}")
    fig = Figure(figsize=figsize, layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.3])
    show_matrix(similarity, ax=left, cmap=EMBEDDING_CMAP, vmin=-1, vmax=1, colorbar=True,
                aspect="equal", title="similarity of PE(a) and PE(b)",
                xlabel="position b", ylabel="position a")  # fmt: skip
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
        im = ax.imshow(values, cmap=POSITION_CMAP, vmin=vmin, vmax=vmax, interpolation="nearest")
        for (r, c), v in np.ndenumerate(values):
            ax.text(c, r, f"{r * cols + c + 1}\n{v:.2f}", ha="center", va="center", fontsize=8,
                    color=text_colour(v, vmin, vmax, POSITION_CMAP))  # fmt: skip
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
    from .position import clock_pairs, sinusoid_encoding

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

# --- notebook 04: relative position embeddings ---


def _rel_cell_grid(ax: Axes, shape: tuple[int, int]) -> None:
    """Thin white lines between the cells of an imshow'ed (R, C) array (two line collections,
    much cheaper to draw than a minor-tick grid)."""
    rows, cols = shape
    ax.vlines(np.arange(1, cols) - 0.5, -0.5, rows - 0.5, color="white", lw=1.5)
    ax.hlines(np.arange(1, rows) - 0.5, -0.5, cols - 0.5, color="white", lw=1.5)


def _rel_outline_cell(ax: Axes, row: int, col: int, colour: str = "orange") -> None:
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, edgecolor=colour, lw=3))


def show_relative_distances(index, figsize: tuple[float, float] = (7, 3.4)) -> Figure:
    """The 2L - 1 offsets of a sequence of L tokens, and the (L, L) index into their table.

    Left: a table with one row per entry of the relative table -- index m, offset
    j - i = m - (L - 1) and the key it points to from query i. Right: ``relative_index(L)``, each
    cell (i, j) showing the index and the offset it stands for. Both coloured by offset (diverging
    map, limits +-(L - 1)).

    Args:
        index: LongTensor or int array of shape (L, L), ``[i, j] = j - i + L - 1``.
        figsize: figure size.

    Returns:
        The figure (two axes).
    """
    index = _as_array(index)
    if index.ndim != 2 or index.shape[0] != index.shape[1]:
        raise ValueError(f"index must have shape (L, L), got shape {index.shape}")
    length = index.shape[0]
    span = max(length - 1, 1)
    fig = Figure(figsize=figsize)  # fixed margins: a layout engine doubles the drawing time
    ax_table, ax_index = fig.subplots(1, 2, width_ratios=[1.0, 1.3], gridspec_kw=dict(
        left=0.02, right=0.97, top=0.86, bottom=0.13, wspace=0.25))  # fmt: skip
    offsets = np.arange(2 * length - 1) - (length - 1)  # (2L-1,)
    table = np.repeat(offsets[:, None], 3, axis=1)  # (2L-1, 3) coloured by offset
    ax_table.imshow(table, cmap=EMBEDDING_CMAP, vmin=-span, vmax=span, aspect="auto")
    for m, offset in enumerate(offsets):
        colour = text_colour(offset, -span, span, EMBEDDING_CMAP)
        key = "i" if offset == 0 else f"i{offset:+d}"
        for col, text in enumerate((str(m), f"{offset:+d}", key)):
            ax_table.text(col, m, text, ha="center", va="center", fontsize=10, color=colour)
    ax_table.set_xticks(range(3), ["index m", "offset j-i", "key j"])
    ax_table.xaxis.tick_top()
    ax_table.set_yticks([])
    ax_table.set_title(f"table of the {2 * length - 1} offsets (L = {length})")
    _rel_cell_grid(ax_table, table.shape)

    distance = index - (length - 1)  # (L, L)
    ax_index.imshow(distance, cmap=EMBEDDING_CMAP, vmin=-span, vmax=span)
    for (i, j), value in np.ndenumerate(index):
        colour = text_colour(distance[i, j], -span, span, EMBEDDING_CMAP)
        ax_index.text(j, i, f"{value}\n({distance[i, j]:+d})", ha="center", va="center",
                      fontsize=9, color=colour)  # fmt: skip
    ax_index.set_xticks(range(length))
    ax_index.set_yticks(range(length))
    ax_index.set_xlabel("key j")
    ax_index.set_ylabel("query i")
    ax_index.set_title(f"relative_index({length}): index (offset)")
    _rel_cell_grid(ax_index, index.shape)
    return fig


def _rel_draw_codes(ax: Axes, codes: np.ndarray, labels: Sequence[str], row_length: int) -> None:
    """Draw integer codes as cells: 0 is padding (grey), v > 0 shows ``labels[v - 1]`` on the
    colour of its source row ``(v - 1) // row_length``."""
    from matplotlib import colormaps

    palette = colormaps["Pastel1"]
    grid = np.atleast_2d(codes)
    rgb = np.empty((*grid.shape, 3))
    for (r, c), value in np.ndenumerate(grid):
        value = int(value)
        source_row = (value - 1) // row_length
        rgb[r, c] = (0.88, 0.88, 0.88) if value == 0 else palette(source_row % 9)[:3]
        text = "0" if value == 0 else labels[value - 1]
        ax.text(c, r, text, ha="center", va="center", fontsize=8,
                color="0.45" if value == 0 else "black")  # fmt: skip
    ax.imshow(rgb, aspect="equal")
    _rel_cell_grid(ax, grid.shape)
    ax.set_yticks(range(grid.shape[0]) if grid.shape[0] > 1 else [])
    ax.tick_params(labelsize=7)


def show_skew_steps(
    steps: Sequence[tuple[str, torch.Tensor]],
    labels: Sequence[str] | None = None,
    figsize: tuple[float, float] = (9, 6),
) -> Figure:
    """Every step of the skew on a labelled (L, 2L - 1) example, in one figure.

    The input should hold integer codes 1 .. L(2L - 1) (0 is reserved for the padding): a cell
    with code v shows ``labels[v - 1]`` and the colour of the row it came from, so one can follow
    each value through the pads, the flattening and the reshape. The flattened vectors are drawn
    as strips; thick lines mark where the rows of 2L (flatten) and of 2L - 1 (padded) end,
    and a dashed box the block the slice keeps.

    Args:
        steps: the six ``(name, tensor)`` pairs of :func:`vitexplain.skew_steps` on an (L, 2L - 1)
            tensor without leading dims: shapes (L, 2L-1), (L, 2L), (2L*L,), ((L+1)(2L-1),),
            (L+1, 2L-1), (L, L).
        labels: text of each code, ``labels[v - 1]`` for code v; the code itself when None.
        figsize: figure size.

    Returns:
        The figure (six axes, in the order of the steps).
    """
    if len(steps) != 6:
        raise ValueError(f"steps must hold the 6 steps of skew_steps, got {len(steps)}")
    arrays = [_as_array(t) for _, t in steps]
    expected_ndim = (2, 2, 1, 1, 2, 2)
    if [a.ndim for a in arrays] != list(expected_ndim):
        raise ValueError(
            f"steps must come from skew_steps on an (L, 2L-1) tensor without leading dims, got "
            f"shapes {[a.shape for a in arrays]}"
        )
    length, num_offsets = arrays[0].shape
    if labels is None:
        labels = [str(v) for v in range(1, length * num_offsets + 1)]
    if len(labels) < int(arrays[0].max()):
        raise ValueError(f"labels has {len(labels)} entries, the codes go up to {arrays[0].max()}")
    # fixed margins instead of a layout engine: this figure is drawn often and the engine
    # doubled its drawing time
    fig = Figure(figsize=figsize)
    grid = fig.add_gridspec(4, 2, height_ratios=[length, 1.4, 1.4, length + 1], left=0.03,
                            right=0.99, top=0.95, bottom=0.08, hspace=0.55,
                            wspace=0.15)  # fmt: skip
    cells = (grid[0, 0], grid[0, 1], grid[1, :], grid[2, :], grid[3, 0], grid[3, 1])
    axes = [fig.add_subplot(cell) for cell in cells]
    for n, (ax, (name, _), array) in enumerate(zip(axes, steps, arrays, strict=True)):
        _rel_draw_codes(ax, array, labels, num_offsets)
        ax.set_title(f"{n}. {name}", fontsize=10)
    # where rows end: every 2L in the flat vector, every 2L - 1 in the padded one
    strips = ((axes[2], arrays[2].size, 2 * length), (axes[3], arrays[3].size, num_offsets))
    for ax, size, every in strips:
        ax.set_xticks(np.arange(0, size + 1, every) - 0.5, np.arange(0, size + 1, every))
        for edge in np.arange(every, size, every):
            ax.axvline(edge - 0.5, color="black", lw=2.5)
    for ax, array in ((axes[0], arrays[0]), (axes[1], arrays[1]), (axes[4], arrays[4])):
        ax.set_xticks(range(array.shape[1]))
    axes[5].set_xticks(range(length))
    axes[5].set_xlabel("key j")
    axes[5].set_ylabel("query i")
    axes[4].add_patch(_rel_slice_box(length))
    return fig


def _rel_slice_box(length: int):
    from matplotlib.patches import Rectangle

    # the kept block of the (L+1, 2L-1) view: rows :L, columns L-1:
    return Rectangle((length - 1.5, -0.5), length, length, fill=False, edgecolor="black",
                     lw=2.5, ls="--", clip_on=False)  # fmt: skip


def show_grid_offsets(
    image,
    patch_size: int,
    row_offsets,
    col_offsets,
    highlight: int,
    figsize: tuple[float, float] = (4.6, 6.4),
) -> Figure:
    """The picture cut into patches with one highlighted, and the row and column offsets of every
    patch from it, drawn as two grids of the same shape.

    Args:
        image: array of shape (H, W), values in [0, 1].
        patch_size: side P of the patches.
        row_offsets: array of shape (H/P, W/P), ``row_b - row_a`` (see ``grid_offsets``).
        col_offsets: array of shape (H/P, W/P), ``col_b - col_a``.
        highlight: 0-based index a of the reference patch (outlined in orange on all panels).
        figsize: figure size.

    Returns:
        The figure (three axes: picture, row offsets, column offsets).
    """
    image, row_offsets, col_offsets = (_as_array(a) for a in (image, row_offsets, col_offsets))
    grid_shape = (image.shape[0] // patch_size, image.shape[1] // patch_size)
    for name, offsets in (("row_offsets", row_offsets), ("col_offsets", col_offsets)):
        if offsets.shape != grid_shape:
            raise ValueError(
                f"{name} must have the grid's shape {grid_shape}, got {offsets.shape}"
            )
    if not 0 <= highlight < grid_shape[0] * grid_shape[1]:
        last = grid_shape[0] * grid_shape[1] - 1
        raise ValueError(f"highlight must be a patch index 0 .. {last}, got {highlight}")
    fig = Figure(figsize=figsize)  # fixed margins: a layout engine doubles the drawing time
    ax_image, ax_rows, ax_cols = fig.subplots(3, 1, gridspec_kw=dict(
        left=0.14, right=0.97, top=0.945, bottom=0.07, hspace=0.5))  # fmt: skip
    show_patch_grid(image, patch_size, ax=ax_image, highlight=highlight,
                    title=f"patch {highlight + 1} (index {highlight}) is the query")  # fmt: skip
    span = max(grid_shape) - 1
    r, c = divmod(highlight, grid_shape[1])
    panels = ((ax_rows, row_offsets, "row", "r_h", grid_shape[0]),
              (ax_cols, col_offsets, "column", "r_w", grid_shape[1]))  # fmt: skip
    for ax, offsets, what, table, size in panels:
        show_matrix(offsets, ax=ax, cmap=EMBEDDING_CMAP, vmin=-span, vmax=span, aspect="equal",
                    xlabel="patch column", ylabel="patch row",
                    title=f"{what} offset -> {table}[offset + {size - 1}]")  # fmt: skip
        for (i, j), offset in np.ndenumerate(offsets):
            ax.text(j, i, f"{offset:+d}\n{table}[{offset + size - 1}]", ha="center", va="center",
                    fontsize=8, color=text_colour(offset, -span, span, EMBEDDING_CMAP))  # fmt: skip
        ax.set_xticks(range(grid_shape[1]))
        ax.set_yticks(range(grid_shape[0]))
        _rel_outline_cell(ax, r, c)
    return fig


def show_logit_matrices(
    matrices: Sequence,
    titles: Sequence[str],
    fmt: str = "{:.2f}",
    figsize: tuple[float, float] = (8, 3.6),
) -> Figure:
    """Position logits side by side (query i down, key j across), annotated, one shared
    symmetric colour scale.

    Args:
        matrices: arrays of shape (L, L).
        titles: one title per matrix.
        fmt: format of the values written in the cells.
        figsize: figure size.

    Returns:
        The figure (one axes per matrix and a colour bar).
    """
    arrays = [_as_array(m) for m in matrices]
    if len(titles) != len(arrays) or not arrays:
        raise ValueError(
            f"need one title per matrix, got {len(titles)} titles for {len(arrays)} matrices"
        )
    for array in arrays:
        if array.ndim != 2:
            raise ValueError(f"each matrix must have 2 dimensions, got shape {array.shape}")
    vmax = float(max(np.abs(a).max() for a in arrays)) or 1.0
    fig = Figure(figsize=figsize)  # fixed margins: a layout engine doubles the drawing time
    axes = np.atleast_1d(fig.subplots(1, len(arrays), gridspec_kw=dict(
        left=0.06, right=0.86, top=0.9, bottom=0.13, wspace=0.25)))  # fmt: skip
    for ax, array, title in zip(axes, arrays, titles, strict=True):
        show_matrix(array, ax=ax, cmap=EMBEDDING_CMAP, vmin=-vmax, vmax=vmax, annotate=True,
                    fmt=fmt, aspect="equal", title=title, xlabel="key j",
                    ylabel="query i")  # fmt: skip
        ax.set_xticks(range(array.shape[1]))
        ax.set_yticks(range(array.shape[0]))
        for text in ax.texts:
            text.set_fontsize(7)
    fig.colorbar(axes[0].images[0], cax=fig.add_axes((0.885, 0.2, 0.02, 0.62)), label="logit")
    return fig

# --- notebook 05: T2T soft split ---


def _padded_picture(image, padding: int) -> np.ndarray:
    """(H, W) -> (H + 2p, W + 2p): the picture with p zeros on every side, as ``nn.Unfold`` pads."""
    image = _as_array(image)
    if image.ndim != 2:
        raise ValueError(f"image must have shape (H, W), got shape {image.shape}")
    return np.pad(image, padding)  # zeros on every side: (H + 2p, W + 2p)


def _padded_ticks(ax: Axes, shape: tuple[int, int], step: int, max_ticks: int) -> None:
    """Ticks at multiples of ``step`` pixels (the patch starts), doubled until few enough."""
    for axis, size in ((ax.xaxis, shape[1]), (ax.yaxis, shape[0])):
        every = step
        while size // every > max_ticks:
            every *= 2
        edges = np.arange(0, size + 1, every)
        axis.set_ticks(edges - 0.5, [str(e) for e in edges])
    ax.set_xlabel("column of the padded picture (pixels)")
    ax.set_ylabel("row (pixels)")


def _picture_edge(ax: Axes, shape: tuple[int, int], padding: int) -> None:
    """Outline, dashed, where the picture ends and the zero padding begins."""
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((padding - 0.5, padding - 0.5), shape[1], shape[0], fill=False,
                           edgecolor="orange", lw=1, ls="--"))  # fmt: skip


def _softsplit_canvas(
    image, k: int, s: int, p: int, ax: Axes | None, figsize: tuple[float, float]
) -> tuple[Figure, Axes, list, tuple[int, int]]:
    """The padded picture with one (hidden) rectangle per patch, ready to be styled per frame."""
    from matplotlib.patches import Rectangle

    from ._checks import check_int
    from .patches import count_tokens
    from .t2t import soft_split_boxes

    image = _as_array(image)
    padded = _padded_picture(image, check_int("p", p, minimum=0))
    rows, cols, _ = count_tokens(*image.shape, k, s, p)  # validates k, s, p
    fig = show_image(padded, ax=ax, figsize=figsize)
    ax = ax or fig.axes[0]
    _picture_edge(ax, image.shape, p)
    _padded_ticks(ax, padded.shape, s, max_ticks=12)
    # Titles at a fixed height (y=1): no automatic placement, so frames can be blitted.
    ax.set_title(f"k = {k}, s = {s}, p = {p}", loc="right", y=1.0, fontsize=10)
    rects = []
    for top, left in soft_split_boxes(*image.shape, k, s, p):
        rect = Rectangle((left - 0.5, top - 0.5), k, k, fill=False, edgecolor="white",
                         visible=False)  # fmt: skip
        rects.append(ax.add_patch(rect))
    return fig, ax, rects, (rows, cols)


def _style_softsplit_frame(ax: Axes, rects: list, current: int, grid: tuple[int, int]) -> None:
    """Frame ``current``: that patch solid, the earlier ones dotted, the later ones hidden."""
    for n, rect in enumerate(rects):
        rect.set_visible(n <= current)
        if n < current:
            rect.set(linestyle=":", linewidth=1.2, alpha=0.7)
        elif n == current:
            rect.set(linestyle="-", linewidth=2.5, alpha=1.0)
    row, col = divmod(current, grid[1])
    title = ax.set_title(f"patch {current + 1} of {len(rects)} (row {row + 1}, column {col + 1})",
                         loc="left", y=1.0, fontsize=10)  # fmt: skip
    # Out of the layout: the right-hand title (same font, fixed text) reserves the room, so the
    # layout does not depend on the frame.
    title.set_in_layout(False)


def show_softsplit_frame(
    image,
    k: int,
    s: int,
    p: int,
    current: int,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6, 4),
) -> Figure:
    """One frame of the soft-split animation: the zero-padded picture and the patches so far.

    Patch ``current`` is outlined solid, the patches before it dotted (token order, row-major);
    a dashed orange line marks the picture's edge inside the padding.

    Args:
        image: array of shape (H, W), values in [0, 1].
        k: kernel (patch) size.
        s: stride.
        p: zero padding on every side.
        current: 0-based index of the patch being cut, 0 <= current < N.
        ax: axes to draw on; a new figure when None.
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    from ._checks import check_int

    fig, ax, rects, grid = _softsplit_canvas(image, k, s, p, ax, figsize)
    current = check_int("current", current, minimum=0)
    if current >= len(rects):
        raise ValueError(f"current={current} is out of range for {len(rects)} patches")
    _style_softsplit_frame(ax, rects, current, grid)
    return fig


def softsplit_frames(
    image, k: int, s: int, p: int, figsize: tuple[float, float] = (6, 4)
) -> list[np.ndarray]:
    """Every frame of the soft-split animation, rendered in memory from one reused figure.

    The figure is drawn once in full (``canvas.draw()``) without the rectangles, the changing
    title and the axes frame; that render is kept, and each frame restores it and draws only
    what changes on top (Matplotlib's blitting), in the order a full draw uses. Frame n is pixel
    for pixel ``figure_to_array(show_softsplit_frame(image, k, s, p, n))``, at a fraction of
    the cost.

    Args:
        image: array of shape (H, W), values in [0, 1].
        k: kernel (patch) size.
        s: stride.
        p: zero padding on every side.
        figsize: size of the figure.

    Returns:
        N uint8 arrays of shape (height, width, 3), one per patch, for :func:`save_gif`.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, ax, rects, grid = _softsplit_canvas(image, k, s, p, None, figsize)
    canvas = FigureCanvasAgg(fig)
    _style_softsplit_frame(ax, rects, 0, grid)
    title = ax.set_title(ax.get_title(loc="left"), loc="left", y=1.0, fontsize=10)  # it changes
    canvas.draw()  # lays the figure out around a real title ...
    fig.set_layout_engine("none")  # ... and keeps that layout for every frame
    on_top = [*ax.spines.values(), title]  # drawn after the rectangles in a full draw
    for artist in [*rects, *on_top]:
        artist.set_visible(False)
    canvas.draw()
    background = canvas.copy_from_bbox(fig.bbox)  # picture, padding edge, ticks, static texts
    for artist in on_top:
        artist.set_visible(True)
    frames = []
    for current in range(len(rects)):
        # Patches before `current` are dotted in every later frame: draw each one once, into
        # the saved background, then put the solid current patch and what lies above it on top.
        canvas.restore_region(background)
        _style_softsplit_frame(ax, rects, current, grid)
        if current:
            ax.draw_artist(rects[current - 1])  # now dotted
            background = canvas.copy_from_bbox(fig.bbox)
        for artist in [rects[current], *on_top]:
            ax.draw_artist(artist)
        frames.append(np.asarray(canvas.buffer_rgba())[..., :3].copy())  # (height, width, 3)
    return frames


def show_fold_reconstruction(
    summed, counts, recovered, figsize: tuple[float, float] = (4.4, 6.3)
) -> Figure:
    """Folding tokens back: the sum of the overlapping patches, the overlap count, their ratio.

    Args:
        summed: ``nn.Fold`` of the tokens, shape (H, W).
        counts: how many patches cover each pixel, shape (H, W).
        recovered: ``summed / counts``, shape (H, W).
        figsize: size of the figure.

    Returns:
        The figure: three panels, each with a colour bar.
    """
    summed, counts, recovered = (_as_array(a) for a in (summed, counts, recovered))
    if not summed.ndim == 2 or not summed.shape == counts.shape == recovered.shape:
        raise ValueError(
            f"summed, counts and recovered must share one (H, W) shape, got {summed.shape}, "
            f"{counts.shape} and {recovered.shape}"
        )  # fmt: skip
    fig = Figure(figsize=figsize, layout="constrained")
    top, middle, bottom = fig.subplots(3, 1)
    show_image(summed, ax=top, vmax=float(counts.max()), colorbar=True,
               title="fold of the tokens: overlaps add up")  # fmt: skip
    im = middle.imshow(counts, cmap="viridis", vmin=0, vmax=float(counts.max()),
                       interpolation="nearest")  # fmt: skip
    middle.set(title="overlap count: fold of tokens of ones", xlabel="column (pixels)",
               ylabel="row (pixels)")  # fmt: skip
    fig.colorbar(im, ax=middle, shrink=0.8, ticks=np.unique(counts), label="patches")
    show_image(recovered, ax=bottom, colorbar=True, title="sum / count: the picture again")
    return fig


def show_softsplit_coverage(
    image,
    k: int,
    s: int,
    p: int,
    max_outlines: int = 1000,
    figsize: tuple[float, float] = (6, 5.4),
) -> Figure:
    """All patches of a soft split at once, and how many of them cover each pixel.

    Args:
        image: array of shape (H, W), values in [0, 1].
        k: kernel (patch) size.
        s: stride.
        p: zero padding on every side.
        max_outlines: outline the patches only when there are at most this many (thousands of
            outlines hide the picture and slow a slider down); the counts are always drawn.
        figsize: size of the figure.

    Returns:
        The figure: the padded picture with every patch outlined (top) and the overlap count on
        the padded grid (bottom), the token count in the title. Pixels of count 0 lie in no patch.
    """
    from matplotlib.collections import LineCollection
    from matplotlib.ticker import MaxNLocator

    from ._checks import check_int
    from .patches import count_tokens
    from .t2t import overlap_count, soft_split_boxes

    image = _as_array(image)
    padded = _padded_picture(image, check_int("p", p, minimum=0))
    rows, cols, n = count_tokens(*image.shape, k, s, p)  # validates k, s, p
    fig = Figure(figsize=figsize, layout="constrained")
    top, bottom = fig.subplots(2, 1)
    show_image(padded, ax=top, colorbar=True)
    if n <= max_outlines:
        outlines = [
            [(x0, y0), (x0 + k, y0), (x0 + k, y0 + k), (x0, y0 + k), (x0, y0)]
            for y0, x0 in ((t - 0.5, c - 0.5) for t, c in soft_split_boxes(*image.shape, k, s, p))
        ]  # fmt: skip
        dense = n > 300  # thinner lines when the outlines would cover the picture
        top.add_collection(LineCollection(outlines, colors="white", alpha=0.4 if dense else 0.7,
                                          linewidths=0.3 if dense else 0.8))  # fmt: skip
    else:
        top.set_title(f"{n} patches: too many to outline (the counts below show them)",
                      fontsize=9)  # fmt: skip
    counts = overlap_count(padded.shape, k, s, 0).numpy()  # (H + 2p, W + 2p)
    im = bottom.imshow(counts, cmap="viridis", vmin=0, interpolation="nearest")
    fig.colorbar(im, ax=bottom, shrink=0.8, label="patches", ticks=MaxNLocator(integer=True))
    for ax in (top, bottom):
        _picture_edge(ax, image.shape, p)
        _padded_ticks(ax, padded.shape, s, max_ticks=6)
    missed = int((counts[p : p + image.shape[0], p : p + image.shape[1]] == 0).sum())
    fig.suptitle(f"k = {k}, s = {s}, p = {p}: {rows} x {cols} = {n} tokens of length {k * k}\n"
                 + (f"{missed} pixels of the picture lie in no patch" if missed
                    else "every pixel of the picture lies in at least one patch"))  # fmt: skip
    return fig


def show_softsplit_explorer(
    image, k: int, s: int, p: int, figsize: tuple[float, float] = (6, 5.4)
) -> Figure:
    """:func:`show_softsplit_coverage`, or the reason a split is impossible, as a figure.

    Made for sliders (:func:`vitexplain.interact_figure` needs a figure for every setting): when
    the kernel does not fit into the padded picture, the figure shows the ``ValueError`` message
    of :func:`vitexplain.count_tokens` instead of the patches.

    Args:
        image: array of shape (H, W), values in [0, 1].
        k: kernel (patch) size.
        s: stride.
        p: zero padding on every side.
        figsize: size of the figure.

    Returns:
        The figure: the coverage, or one empty axes titled "no soft split" with the message.
    """
    import textwrap

    try:
        return show_softsplit_coverage(image, k, s, p, figsize=figsize)
    except ValueError as error:
        fig = Figure(figsize=(figsize[0], 1.6), layout="constrained")
        ax = fig.add_subplot()
        ax.set_axis_off()
        ax.set_title(f"no soft split with k = {k}, s = {s}, p = {p}", color="firebrick")
        ax.text(0.5, 0.5, textwrap.fill(f"ValueError: {error}", 70), ha="center", va="center",
                transform=ax.transAxes, family="monospace", fontsize=9)  # fmt: skip
        return fig

# --- notebook 06: the full ViT ---


def show_scramble_examples(
    images,
    labels: Sequence[int],
    orders,
    patch_size: int = 20,
    ncols: int = 3,
    class_names: Sequence[str] = ("intact", "scrambled"),
    figsize: tuple[float, float] = (6.6, 3.1),
) -> Figure:
    """Draw examples of a scramble data set, each patch labelled with its original 1-based number.

    Args:
        images: shape (n, H, W) or (n, 1, H, W), values in [0, 1].
        labels: class of each example (an index into ``class_names``), length n.
        orders: shape (n, N): patch i of example j is the original patch ``orders[j, i]`` (0-based),
            so the label drawn at position i is ``orders[j, i] + 1``.
        patch_size: side P of the patches.
        ncols: examples per row.
        class_names: name of each class, shown in the titles.
        figsize: size of the figure.

    Returns:
        The figure, with one axes per example, titled "example k: <class> (label c)".
    """
    from ._checks import check_int

    images, orders = _as_array(images), _as_array(orders)
    labels = [int(c) for c in _as_array(labels)]
    if images.ndim == 4 and images.shape[1] == 1:
        images = images[:, 0]  # (n, H, W)
    if images.ndim != 3:
        raise ValueError(f"images must have shape (n, H, W) or (n, 1, H, W), got {images.shape}")
    n = len(images)
    if len(labels) != n or len(orders) != n:
        raise ValueError(
            f"{n} images need {n} labels and orders, got {len(labels)} and {len(orders)}"
        )
    if any(not 0 <= c < len(class_names) for c in labels):
        raise ValueError(f"labels must index class_names {list(class_names)}, got {labels}")
    ncols = check_int("ncols", ncols)
    nrows = -(-n // ncols)
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for k, ax in enumerate(axes[:n]):
        title = f"example {k + 1}: {class_names[labels[k]]} (label {labels[k]})"
        show_patch_grid(images[k], patch_size, ax=ax, labels=[int(o) + 1 for o in orders[k]],
                        title=title)  # fmt: skip
        ax.title.set_fontsize(9)
        ax.set_xlabel("")
        ax.set_ylabel("")
        ax.set_xticks([])
        ax.set_yticks([])
    for ax in axes[n:]:
        fig.delaxes(ax)
    return fig


def show_training_curves(
    histories: dict[str, dict[str, Sequence[float]]],
    chance: float = 0.5,
    figsize: tuple[float, float] = (8, 3.2),
) -> Figure:
    """Loss and accuracy per epoch of several training runs, side by side.

    Left: the mean training loss per epoch of each run, with the loss of a coin flip,
    ln 2, dashed. Right: the test accuracy (solid) and the training accuracy (dotted) of each
    run, with the chance level dashed.

    Args:
        histories: ``{run name: history}``, each history as returned by
            :func:`~vitexplain.training.train_classifier` with a test set (keys ``"epoch"``,
            ``"loss"``, ``"train_accuracy"``, ``"test_accuracy"``).
        chance: accuracy of guessing, drawn as a dashed line.
        figsize: size of the figure.

    Returns:
        The figure, with two axes: loss, then accuracy.
    """
    if not histories:
        raise ValueError("histories is empty: give at least one training run")
    needed = ("epoch", "loss", "train_accuracy", "test_accuracy")
    for name, history in histories.items():
        missing = [key for key in needed if key not in history]
        if missing:
            raise ValueError(f"history {name!r} lacks {missing}")
    fig = Figure(figsize=figsize, layout="constrained")
    loss_ax, acc_ax = fig.subplots(1, 2)
    for n, (name, history) in enumerate(histories.items()):
        colour = f"C{n}"
        epochs = list(history["epoch"])
        loss_ax.plot(epochs, history["loss"], color=colour, marker="o", ms=3, label=name)
        acc_ax.plot(epochs, history["test_accuracy"], color=colour, marker="o", ms=3,
                    label=f"{name}: test")  # fmt: skip
        acc_ax.plot(epochs, history["train_accuracy"], color=colour, ls=":",
                    label=f"{name}: train")  # fmt: skip
    loss_ax.axhline(np.log(2), color="grey", ls="--", lw=1, label="coin flip (ln 2)")
    acc_ax.axhline(chance, color="grey", ls="--", lw=1, label=f"chance ({chance:.0%})")
    loss_ax.set(xlabel="epoch", ylabel="training loss (binary cross-entropy)", title="loss")
    acc_ax.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(0.0, 1.05))
    for ax in (loss_ax, acc_ax):
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    return fig


def show_class_token_attention(
    image,
    weights,
    patch_size: int = 20,
    cmap: str = "Purples",
    figsize: tuple[float, float] = (6.4, 3.8),
) -> Figure:
    """Where the class token looks: its attention to every patch, drawn on the patch grid.

    The first panel is the image with its patches numbered 1 ... N; the next shows the weights
    averaged over the heads, then one panel per head. Each map is the (rows, cols) patch grid,
    every cell labelled "#patch" and its weight; all maps share the colour limits 0 .. largest
    weight, with one colour bar.

    Args:
        image: array of shape (H, W), values in [0, 1].
        weights: the class token's attention to the N patch tokens, shape (h, N) (or (N,) for one
            head), e.g. the mean over examples of
            :func:`~vitexplain.training.class_token_attention`.
        patch_size: side P of the patches; N must equal (H / P) * (W / P).
        cmap: colour map of the weights.
        figsize: size of the figure.

    Returns:
        The figure: the image's axes, the mean's, one per head (only the mean for a single
        head), then the colour bar's axes.
    """
    image, weights = _as_array(image), _as_array(weights).astype(np.float64)
    if image.ndim != 2:
        raise ValueError(f"image must have shape (H, W), got shape {image.shape}")
    if weights.ndim == 1:
        weights = weights[None]  # (1, N)
    if weights.ndim != 2:
        raise ValueError(f"weights must have shape (h, N) or (N,), got shape {weights.shape}")
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    heads, n = weights.shape
    if n != rows * cols:
        raise ValueError(
            f"weights hold {n} patches, but a {image.shape[0]} x {image.shape[1]} image has "
            f"{rows} x {cols} = {rows * cols} patches of side {patch_size}"
        )
    maps = [("mean over heads" if heads > 1 else "class token", weights.mean(0))]
    if heads > 1:
        maps += [(f"head {h + 1}", weights[h]) for h in range(heads)]
    vmax = float(weights.max())
    ncols = 2
    nrows = -(-(len(maps) + 1) // ncols)
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    show_patch_grid(image, patch_size, ax=axes[0], title=f"the picture, patches 1-{n}")
    for ax, (title, values) in zip(axes[1 : len(maps) + 1], maps, strict=True):
        grid = values.reshape(rows, cols)  # (rows, cols), row-major like the patches
        show_matrix(grid, ax=ax, title=title, cmap=cmap, vmin=0.0, vmax=vmax, aspect="equal")
        for (r, c), value in np.ndenumerate(grid):
            ax.text(c, r, f"#{r * cols + c + 1}\n{value:.2f}", ha="center", va="center",
                    fontsize=7, color=text_colour(value, 0.0, vmax, cmap))  # fmt: skip
        ax.set_xticks(range(cols), [str(c + 1) for c in range(cols)])
        ax.set_yticks(range(rows), [str(r + 1) for r in range(rows)])
        ax.set(xlabel="patch column", ylabel="patch row")
    for ax in axes[len(maps) + 1 :]:
        fig.delaxes(ax)
    fig.colorbar(axes[1].images[0], ax=list(axes[1 : len(maps) + 1]), shrink=0.8,
                 label="attention weight")  # fmt: skip
    return fig
