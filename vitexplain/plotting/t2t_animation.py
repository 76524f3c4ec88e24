"""The soft-split animation of notebook 05: one frame per patch, rendered from one figure."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..unfold import count_tokens, overlap_count, soft_split_boxes
from .core import as_array, show_image
from .t2t import mask_path, padded_picture, padded_ticks, picture_edge

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Most frames softsplit_frames renders (about 20 ms each).
MAX_FRAMES = 400

__all__ = [
    "show_softsplit_frame",
    "softsplit_frames",
]


# Marks of the soft-split frames, chosen to read on every shade of the picture (dark purple to
# the white moon): a yellow outline with a black halo, a cyan tint for what earlier patches cover,
# and for the overlap a pink shade with dark hatching, so that it differs from the tint in texture
# too, not only in hue (under deuteranopia or protanopia pink and cyan look alike).
_CURRENT = "#ffd400"  # outline of the patch being cut
_EARLIER = (0.0, 0.85, 1.0, 0.1)  # tint per earlier patch: it adds up where patches overlap
_OVERLAP = (1.0, 0.2, 0.6, 0.6)  # the current patch's overlap with the earlier ones
_OVERLAP_HATCH = {"hatch": "////", "hatchcolor": "#202020", "hatch_linewidth": 1.5}


def _softsplit_canvas(
    image, k: int, s: int, p: int, ax: Axes | None, figsize: tuple[float, float]
) -> tuple[Figure, Axes, dict, list[tuple[int, int]]]:
    """The padded picture with the artists the frames change, hidden until a frame styles them."""
    from matplotlib.patches import Patch, PathPatch, Rectangle

    image = as_array(image)  # (H, W)
    boxes = soft_split_boxes(*image.shape, k, s, p)  # validates k, s, p
    padded = padded_picture(image, p)
    fig = show_image(padded, ax=ax, figsize=figsize)
    ax = ax or fig.axes[0]
    picture_edge(ax, image.shape, p)
    ax.patches[0].set_zorder(0.55)  # under the tints: drawn once, into the frames' background
    padded_ticks(ax, padded.shape, s, max_ticks=12)
    # Titles at a fixed height (y=1): no automatic placement, so frames can be blitted.
    ax.set_title(f"k = {k}, s = {s}, p = {p}", loc="right", y=1.0, fontsize=10)
    # Not antialiased: the tints of neighbouring patches then meet without a seam, and a pixel
    # covered by c patches is tinted exactly c times.
    # add_artist, not add_patch: the limits are the picture's, no need to update them per patch
    flat = {"edgecolor": "none", "antialiased": False}
    tint = {"facecolor": _EARLIER, "visible": False, "zorder": 0.6, **flat}
    earlier = [ax.add_artist(Rectangle((x - 0.5, y - 0.5), k, k, **tint)) for y, x in boxes]
    empty = mask_path(np.zeros((1, 1), bool), 0, 0)
    overlap = ax.add_patch(
        PathPatch(empty, facecolor=_OVERLAP, zorder=0.8, **_OVERLAP_HATCH, **flat)
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
        Patch(
            facecolor=_OVERLAP, edgecolor="none", label="its overlap (hatched)", **_OVERLAP_HATCH
        ),
        Patch(color=(*_EARLIER[:3], 0.3), label="earlier patches (tints add up)"),
    ]
    place = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "ncols": 2, "fontsize": 8}
    ax.legend(handles=legend, frameon=False, handlelength=1.2, columnspacing=1.0, **place)
    artists = {"earlier": earlier, "overlap": overlap, "outline": outline}
    return fig, ax, artists, boxes


def _style_softsplit_frame(ax: Axes, artists: dict, boxes: list, k: int, s: int, current: int):
    """Frame ``current``: earlier patches tinted, the current one outlined, its overlap shaded."""
    for n, rect in enumerate(artists["earlier"]):
        rect.set_visible(n < current)
    top, left = boxes[current]
    h, w = ax.images[0].get_array().shape
    before = overlap_count(h, w, k, s, 0, num_patches=current).numpy()  # (H + 2p, W + 2p)
    artists["overlap"].set_path(mask_path(before[top : top + k, left : left + k] > 0, top, left))
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
    figsize: tuple[float, float] = (4.8, 3.8),
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
    if not 0 <= current < len(boxes):
        raise ValueError(f"current must be a patch index in [0, {len(boxes)}), got {current}")
    _style_softsplit_frame(ax, artists, boxes, k, s, current)
    return fig


def softsplit_frames(
    image, k: int, s: int, p: int, figsize: tuple[float, float] = (4.8, 3.8)
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
    image = as_array(image)  # (H, W)
    count = count_tokens(*image.shape, k, s, p)[2]
    if count > MAX_FRAMES:
        raise ValueError(
            f"k={k}, s={s}, p={p} cut {count} patches: an animation of {count} frames would take "
            f"minutes; at most {MAX_FRAMES} (use a larger stride)"
        )
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
