"""Figures of notebook 05: T2T soft split (the animation's frames are in ``t2t_animation``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..unfold import count_tokens, overlap_count, soft_split_boxes
from .core import as_array, new_figure, show_image

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "show_fold_reconstruction",
    "show_padded_token",
    "show_softsplit_coverage",
    "show_softsplit_explorer",
]


def padded_picture(image, padding: int) -> np.ndarray:
    """(H, W) -> (H + 2p, W + 2p): the picture with p zeros on every side, as ``nn.Unfold`` pads."""
    return np.pad(as_array(image), padding)  # zeros on every side: (H + 2p, W + 2p)


def padded_ticks(ax: Axes, shape: tuple[int, int], step: int, max_ticks: int) -> None:
    """Ticks at multiples of ``step`` pixels (the patch starts), doubled until few enough."""
    for axis, size in ((ax.xaxis, shape[1]), (ax.yaxis, shape[0])):
        every = step
        while size // every > max_ticks:
            every *= 2
        edges = np.arange(0, size + 1, every)
        axis.set_ticks(edges - 0.5, [str(e) for e in edges])
    ax.set_xlabel("column of the padded picture (pixels)")
    ax.set_ylabel("row (pixels)")


def picture_edge(ax: Axes, shape: tuple[int, int], padding: int) -> None:
    """Outline, dashed, where the picture ends and the zero padding begins."""
    from matplotlib.patches import Rectangle

    style = {"fill": False, "edgecolor": "orange", "lw": 1, "ls": "--"}
    ax.add_patch(Rectangle((padding - 0.5, padding - 0.5), shape[1], shape[0], **style))


def mask_path(mask: np.ndarray, top: int, left: int):
    """The pixels of a boolean (h, w) mask as one path of disjoint rectangles (runs per row).

    Offsets (top, left) place the mask in data coordinates; pixel (r, c) spans r - 0.5 .. r + 0.5.
    """
    from matplotlib.path import Path

    vertices, codes = [], []
    for r, row in enumerate(mask):
        edges = np.flatnonzero(np.diff(np.concatenate([[0], row.astype(int), [0]])))
        for start, stop in zip(edges[::2], edges[1::2], strict=True):
            x0, x1, y0, y1 = left + start - 0.5, left + stop - 0.5, top + r - 0.5, top + r + 0.5
            vertices += [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
            codes += [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY]
    return Path(vertices or np.zeros((0, 2)), codes or None)


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
    summed, counts, recovered = (as_array(a) for a in (summed, counts, recovered))  # (H, W)
    fig = new_figure(figsize)
    top, middle, bottom = fig.subplots(3, 1)
    title = "fold of the tokens: overlaps add up"
    show_image(summed, ax=top, vmax=float(counts.max()), colorbar=True, title=title)
    im = middle.imshow(
        counts, cmap="viridis", vmin=0, vmax=float(counts.max()), interpolation="nearest"
    )
    middle.set(title="overlap count: fold of tokens of ones", xlabel="column (pixels)")
    middle.set_ylabel("row (pixels)")
    fig.colorbar(im, ax=middle, shrink=0.8, ticks=np.unique(counts), label="patches")
    show_image(recovered, ax=bottom, colorbar=True, title="sum / count: the picture again")
    return fig


def show_softsplit_coverage(
    image,
    k: int,
    s: int,
    p: int,
    max_outlines: int = 1000,
    figsize: tuple[float, float] = (4.8, 5.4),
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

    image = as_array(image)  # (H, W)
    rows, cols, n = count_tokens(*image.shape, k, s, p)  # checks k, s and p
    padded = padded_picture(image, p)
    # "compressed": the two fixed-aspect panels take the figure's width, no empty margin
    fig = new_figure(figsize, layout="compressed")
    top, bottom = fig.subplots(2, 1)
    show_image(padded, ax=top, colorbar=True)
    if n <= max_outlines:
        outlines = [
            [(x0, y0), (x0 + k, y0), (x0 + k, y0 + k), (x0, y0 + k), (x0, y0)]
            for y0, x0 in ((t - 0.5, c - 0.5) for t, c in soft_split_boxes(*image.shape, k, s, p))
        ]
        dense = n > 300  # thinner lines when the outlines would cover the picture
        style = {"alpha": 0.4, "linewidths": 0.3} if dense else {"alpha": 0.7, "linewidths": 0.8}
        top.add_collection(LineCollection(outlines, colors="white", **style))
    else:
        top.set_title(f"{n} patches: too many to outline (the counts below show them)", fontsize=9)
    counts = overlap_count(*padded.shape, k, s, 0).numpy()  # (H + 2p, W + 2p)
    im = bottom.imshow(counts, cmap="viridis", vmin=0, interpolation="nearest")
    fig.colorbar(im, ax=bottom, shrink=0.8, label="patches", ticks=MaxNLocator(integer=True))
    for ax in (top, bottom):
        picture_edge(ax, image.shape, p)
        padded_ticks(ax, padded.shape, s, max_ticks=6)
    missed = int((counts[p : p + image.shape[0], p : p + image.shape[1]] == 0).sum())
    coverage = (
        f"{missed} pixels of the picture lie in no patch"
        if missed
        else ("every pixel of the picture lies in at least one patch")
    )
    fig.suptitle(
        f"k = {k}, s = {s}, p = {p}: {rows} x {cols} = {n} tokens of length {k * k}\n" + coverage
    )
    return fig


def show_softsplit_explorer(
    image, k: int, s: int, p: int, figsize: tuple[float, float] = (4.8, 5.4)
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

    image = as_array(image)
    try:
        return show_softsplit_coverage(image, k, s, p, figsize=figsize)
    except ValueError as error:
        fig = new_figure((figsize[0], 1.6))
        ax = fig.add_subplot()
        ax.set_axis_off()
        ax.set_title(f"no soft split with k = {k}, s = {s}, p = {p}", color="firebrick")
        style = {"ha": "center", "va": "center", "family": "monospace", "fontsize": 9}
        ax.text(
            0.5, 0.5, textwrap.fill(f"ValueError: {error}", 70), transform=ax.transAxes, **style
        )
        return fig


def show_padded_token(
    patch, from_picture, number: int = 1, figsize: tuple[float, float] = (4.8, 4.0)
) -> Figure:
    """A patch of the padded picture above its token, the padding hatched in both.

    Args:
        patch: the patch, shape (k, k), values in [0, 1].
        from_picture: same shape (or k * k values), True (1) where a value comes from the
            picture, False (0) where it comes from the zero padding.
        number: the patch's 1-based number, used in the titles.
        figsize: size of the figure.

    Returns:
        The figure of :func:`vitexplain.show_patch_and_token`, with the padding hatched and
        row labels on the token large enough to read.
    """
    patch, from_picture = as_array(patch), as_array(from_picture)  # (k, k), k * k values
    from matplotlib.patches import Patch, PathPatch

    from .patches import show_patch_and_token

    padding = ~from_picture.astype(bool).reshape(patch.shape)  # (k, k)
    fig = show_patch_and_token(patch, number=number, ncols=1, figsize=figsize)
    ax_patch, ax_strip = fig.axes[:2]
    hatch = {"facecolor": "none", "edgecolor": "orange", "hatch": "////", "lw": 0}
    ax_patch.add_patch(PathPatch(mask_path(padding, 0, 0), **hatch))
    ax_strip.add_patch(PathPatch(mask_path(padding.reshape(1, -1), 0, 0), **hatch))
    for axis in ax_strip.child_axes:  # the row numbers above the token
        axis.tick_params(labelsize=9)
    padding_key = [Patch(**hatch, label="zero padding")]
    fig.legend(handles=padding_key, loc="outside lower right", fontsize=9, frameon=False)
    return fig
