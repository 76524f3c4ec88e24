"""Figures of notebook 05: T2T soft split."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .._checks import check_int
from ..patches import count_tokens, overlap_count, soft_split_boxes
from .core import _as_array, show_image

__all__ = [
    "show_fold_reconstruction",
    "show_padded_token",
    "show_softsplit_coverage",
    "show_softsplit_explorer",
    "show_softsplit_frame",
    "softsplit_frames",
]


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

    ax.add_patch(
        Rectangle(
            (padding - 0.5, padding - 0.5),
            shape[1],
            shape[0],
            fill=False,
            edgecolor="orange",
            lw=1,
            ls="--",
        )
    )


# Colours of the soft-split frames, chosen to read on every shade of the picture (dark purple to
# the white moon): a yellow outline with a black halo, a cyan tint for what earlier patches cover.
_CURRENT = "#ffd400"  # outline of the patch being cut
_EARLIER = (0.0, 0.85, 1.0, 0.1)  # tint per earlier patch: it adds up where patches overlap
_OVERLAP = (1.0, 0.2, 0.6, 0.6)  # the current patch's overlap with the earlier ones


def _mask_path(mask: np.ndarray, top: int, left: int):
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


def _softsplit_canvas(
    image, k: int, s: int, p: int, ax: Axes | None, figsize: tuple[float, float]
) -> tuple[Figure, Axes, dict, list[tuple[int, int]]]:
    """The padded picture with the artists the frames change, hidden until a frame styles them."""
    from matplotlib.patches import Patch, PathPatch, Rectangle

    image = _as_array(image)
    padded = _padded_picture(image, check_int("p", p, minimum=0))
    boxes = soft_split_boxes(*image.shape, k, s, p)  # validates k, s, p
    fig = show_image(padded, ax=ax, figsize=figsize)
    ax = ax or fig.axes[0]
    _picture_edge(ax, image.shape, p)
    ax.patches[0].set_zorder(0.55)  # under the tints: drawn once, into the frames' background
    _padded_ticks(ax, padded.shape, s, max_ticks=12)
    # Titles at a fixed height (y=1): no automatic placement, so frames can be blitted.
    ax.set_title(f"k = {k}, s = {s}, p = {p}", loc="right", y=1.0, fontsize=10)
    # Not antialiased: the tints of neighbouring patches then meet without a seam, and a pixel
    # covered by c patches is tinted exactly c times.
    # add_artist, not add_patch: the limits are the picture's, no need to update them per patch
    earlier = [
        ax.add_artist(
            Rectangle(
                (left - 0.5, top - 0.5),
                k,
                k,
                facecolor=_EARLIER,
                edgecolor="none",
                antialiased=False,
                visible=False,
                zorder=0.6,
            )
        )
        for top, left in boxes
    ]
    overlap = ax.add_patch(
        PathPatch(
            _mask_path(np.zeros((1, 1), bool), 0, 0),
            facecolor=_OVERLAP,
            edgecolor="none",
            antialiased=False,
            zorder=0.8,
        )
    )
    # A black halo under the yellow line: one of the two reads on any shade (cheaper to draw
    # as a second rectangle than as a path effect).
    outline = [
        ax.add_artist(
            Rectangle((-0.5, -0.5), k, k, fill=False, edgecolor=colour, lw=lw, zorder=zorder)
        )
        for colour, lw, zorder in (("black", 4.5, 2.7), (_CURRENT, 2.2, 2.8))
    ]
    legend = [
        Patch(facecolor="none", edgecolor=_CURRENT, lw=2, label="patch being cut"),
        Patch(color=_OVERLAP, label="its overlap with earlier ones"),
        Patch(color=(*_EARLIER[:3], 0.3), label="earlier patches (tints add up)"),
    ]
    ax.legend(
        handles=legend,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.2),
        ncols=3,
        fontsize=8,
        frameon=False,
        handlelength=1.2,
        columnspacing=1.0,
    )
    artists = {"earlier": earlier, "overlap": overlap, "outline": outline}
    return fig, ax, artists, boxes


def _style_softsplit_frame(ax: Axes, artists: dict, boxes: list, k: int, s: int, current: int):
    """Frame ``current``: earlier patches tinted, the current one outlined, its overlap shaded."""
    for n, rect in enumerate(artists["earlier"]):
        rect.set_visible(n < current)
    top, left = boxes[current]
    h, w = ax.images[0].get_array().shape
    before = overlap_count(h, w, k, s, 0, num_patches=current).numpy()  # (H + 2p, W + 2p)
    artists["overlap"].set_path(_mask_path(before[top : top + k, left : left + k] > 0, top, left))
    for rect in artists["outline"]:
        rect.set_xy((left - 0.5, top - 0.5))
    title = ax.set_title(f"patch {current + 1} of {len(boxes)}", loc="left", y=1.0, fontsize=10)
    # Out of the layout: the right-hand title (same font, fixed text) reserves the room, so the
    # layout does not depend on the frame.
    title.set_in_layout(False)
    return title


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

    Patch ``current`` is outlined in yellow with a black halo (readable on dark and white
    pixels); the part of it that earlier patches (token order, row-major) already cover is
    shaded pink: that is the overlap. Outside it, a cyan tint marks what the earlier patches
    cover, stronger where several overlap. A dashed orange line marks the picture's edge.

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
    fig, ax, artists, boxes = _softsplit_canvas(image, k, s, p, ax, figsize)
    current = check_int("current", current, minimum=0)
    if current >= len(boxes):
        raise ValueError(f"current={current} is out of range for {len(boxes)} patches")
    _style_softsplit_frame(ax, artists, boxes, k, s, current)
    return fig


def softsplit_frames(
    image, k: int, s: int, p: int, figsize: tuple[float, float] = (6, 4)
) -> list[np.ndarray]:
    """Every frame of the soft-split animation, rendered in memory from one reused figure.

    The figure is drawn once in full (``canvas.draw()``) without the artists that change (the
    overlap, the outline, the title) and the axes frame drawn above them; that render is kept.
    Each frame restores it and draws only those artists, in the order a full draw uses
    (Matplotlib's blitting); the tint of each earlier patch is drawn once, into the kept render.
    Frame n is pixel for pixel ``figure_to_array(show_softsplit_frame(image, k, s, p, n))``, at
    a fraction of the cost.

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

    fig, ax, artists, boxes = _softsplit_canvas(image, k, s, p, None, figsize)
    canvas = FigureCanvasAgg(fig)
    title = _style_softsplit_frame(ax, artists, boxes, k, s, 0)
    fig.get_layout_engine().execute(fig)  # lays the figure out around a real title ...
    fig.set_layout_engine("none")  # ... and keeps that layout for every frame
    # Drawn after the earlier patches' tints in a full draw, in this order (by zorder):
    on_top = [artists["overlap"], *ax.spines.values(), *artists["outline"], title]
    for artist in on_top:
        artist.set_visible(False)
    canvas.draw()
    background = canvas.copy_from_bbox(fig.bbox)  # picture, ticks, static texts, legend
    for artist in on_top:
        artist.set_visible(True)
    frames = []
    for current in range(len(boxes)):
        # The tint of patch `current - 1` joins every later frame: draw it once, into the saved
        # background, then put what changes on top.
        canvas.restore_region(background)
        on_top[-1] = _style_softsplit_frame(ax, artists, boxes, k, s, current)
        if current:
            ax.draw_artist(artists["earlier"][current - 1])
            background = canvas.copy_from_bbox(fig.bbox)
        for artist in on_top:
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
        )
    fig = Figure(figsize=figsize, layout="constrained")
    top, middle, bottom = fig.subplots(3, 1)
    show_image(
        summed,
        ax=top,
        vmax=float(counts.max()),
        colorbar=True,
        title="fold of the tokens: overlaps add up",
    )
    im = middle.imshow(
        counts, cmap="viridis", vmin=0, vmax=float(counts.max()), interpolation="nearest"
    )
    middle.set(
        title="overlap count: fold of tokens of ones",
        xlabel="column (pixels)",
        ylabel="row (pixels)",
    )
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
        ]
        dense = n > 300  # thinner lines when the outlines would cover the picture
        top.add_collection(
            LineCollection(
                outlines,
                colors="white",
                alpha=0.4 if dense else 0.7,
                linewidths=0.3 if dense else 0.8,
            )
        )
    else:
        top.set_title(f"{n} patches: too many to outline (the counts below show them)", fontsize=9)
    counts = overlap_count(*padded.shape, k, s, 0).numpy()  # (H + 2p, W + 2p)
    im = bottom.imshow(counts, cmap="viridis", vmin=0, interpolation="nearest")
    fig.colorbar(im, ax=bottom, shrink=0.8, label="patches", ticks=MaxNLocator(integer=True))
    for ax in (top, bottom):
        _picture_edge(ax, image.shape, p)
        _padded_ticks(ax, padded.shape, s, max_ticks=6)
    missed = int((counts[p : p + image.shape[0], p : p + image.shape[1]] == 0).sum())
    fig.suptitle(
        f"k = {k}, s = {s}, p = {p}: {rows} x {cols} = {n} tokens of length {k * k}\n"
        + (
            f"{missed} pixels of the picture lie in no patch"
            if missed
            else "every pixel of the picture lies in at least one patch"
        )
    )
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
        ax.text(
            0.5,
            0.5,
            textwrap.fill(f"ValueError: {error}", 70),
            ha="center",
            va="center",
            transform=ax.transAxes,
            family="monospace",
            fontsize=9,
        )
        return fig


def show_padded_token(
    patch, from_picture, number: int = 1, figsize: tuple[float, float] = (7.5, 2.5)
) -> Figure:
    """A patch of the padded picture next to its token, the padding hatched in both.

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
    from matplotlib.patches import Patch, PathPatch

    from .patches import show_patch_and_token

    patch = _as_array(patch)
    padding = ~_as_array(from_picture).astype(bool).reshape(patch.shape)  # (k, k)
    fig = show_patch_and_token(patch, number=number, figsize=figsize)
    ax_patch, ax_strip = fig.axes[:2]
    hatch = {"facecolor": "none", "edgecolor": "orange", "hatch": "////", "lw": 0}
    ax_patch.add_patch(PathPatch(_mask_path(padding, 0, 0), **hatch))
    ax_strip.add_patch(PathPatch(_mask_path(padding.reshape(1, -1), 0, 0), **hatch))
    for axis in ax_strip.child_axes:  # the row numbers above the token
        axis.tick_params(labelsize=9)
    fig.legend(
        handles=[Patch(**hatch, label="zero padding")],
        loc="outside lower right",
        fontsize=9,
        frameon=False,
    )
    return fig
