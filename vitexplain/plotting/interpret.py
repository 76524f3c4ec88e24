"""Figures of notebooks 06 and 08: where a trained ViT looks, and what it uses (probes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from .core import (
    ATTENTION_CMAP,
    EMBEDDING_CMAP,
    PICTURE_CMAP,
    SIMILARITY_CMAP,
    as_array,
    axes_grid,
    new_figure,
)
from .learned_position import position_similarity_mosaic

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "show_attention_locality",
    "show_class_token_maps",
    "show_digits",
    "show_logit_lens",
    "show_looks_and_uses",
    "show_probe_comparison",
    "show_vit_figure7",
]


def _bare(ax) -> None:
    ax.set_xticks([])
    ax.set_yticks([])


def show_digits(
    images, labels: Sequence[int], predictions: Sequence[int] | None = None, ncols: int = 10
) -> Figure:
    """Small digit pictures with their labels (and the model's answer, when given).

    Args:
        images: shape (n, 1, H, W) or (n, H, W), values in [0, 1].
        labels: the true digit of each picture.
        predictions: the model's digit of each picture, or None.
        ncols: pictures per row.

    Returns:
        The figure: one small axes per picture, titled "label" or "label -> prediction".
    """
    images = _pictures(images)  # (n, H, W)
    labels = as_array(labels).tolist()
    predictions = None if predictions is None else as_array(predictions).tolist()
    fig, axes = axes_grid(
        len(images), ncols, (1.0 * min(ncols, len(images)), 1.2 * -(-len(images) // ncols))
    )
    for i, ax in enumerate(axes):
        ax.imshow(images[i], cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
        title = f"{labels[i]}" if predictions is None else f"{labels[i]} → {predictions[i]}"
        ax.set_title(title, fontsize=9)
        _bare(ax)
    return fig


def _pictures(images) -> np.ndarray:
    """Grey pictures (n, H, W), given as (n, H, W) or (n, 1, H, W)."""
    images = as_array(images)
    return images[:, 0] if images.ndim == 4 else images


def show_class_token_maps(
    image, maps: torch.Tensor | Sequence[torch.Tensor], grid_size: tuple[int, int]
) -> Figure:
    """Where the class token looks in every block and head, for one picture.

    Args:
        image: shape (H, W) (or (1, H, W)), the picture.
        maps: shape (depth, h, N, N) with the class token first (the picture's attention maps),
            or the list :func:`vitexplain.attention_maps` returns for this one picture: depth
            tensors (1, h, N, N) (or (h, N, N)).
        grid_size: (rows, cols) of the patch grid, rows * cols = N - 1.

    Returns:
        The figure: the picture, then a depth x h grid of the class token's weights on the
        patches (one colour scale from 0, bright = large).
    """
    if isinstance(maps, list | tuple):  # attention_maps' list: (h, N, N) or (1, h, N, N) each
        layers = [as_array(m) for m in maps]
        for i, layer in enumerate(layers):
            if layer.ndim == 4 and layer.shape[0] != 1:
                raise ValueError(
                    f"maps[{i}] holds {layer.shape[0]} pictures (shape {layer.shape}); the figure "
                    "is of one picture: pass [m[j:j + 1] for m in maps] for picture j"
                )
        maps = np.stack([layer[0] if layer.ndim == 4 else layer for layer in layers])
    maps = as_array(maps)  # (depth, h, N, N)
    rows, cols = np.broadcast_to(grid_size, 2).tolist()  # an int: a square grid
    image = as_array(image)
    image = image[0] if image.ndim == 3 else image  # (H, W)
    depth, heads = maps.shape[:2]
    cls = maps[:, :, 0, 1:].reshape(depth, heads, rows, cols)  # (depth, h, rows, cols)
    fig = new_figure((0.85 * (heads + 1) + 0.55, 0.95 * depth + 0.3))  # 4.8 in for 4 heads
    grid = fig.add_gridspec(depth, heads + 1)
    ax = fig.add_subplot(grid[:, 0])
    ax.imshow(image, cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
    ax.set_title("picture", fontsize=9)
    _bare(ax)
    vmax = float(cls.max())
    for layer in range(depth):
        for head in range(heads):
            ax = fig.add_subplot(grid[layer, head + 1])
            im = ax.imshow(cls[layer, head], cmap=ATTENTION_CMAP, vmin=0, vmax=vmax)
            _bare(ax)
            if layer == 0:
                ax.set_title(f"head {head + 1}", fontsize=9)
            if head == 0:
                ax.set_ylabel(f"block {layer + 1}", fontsize=9)
    fig.colorbar(im, ax=fig.axes[1:], shrink=0.8, label="class token's weight")
    return fig


def show_looks_and_uses(images, rollout, occlusion, titles: Sequence[str]) -> Figure:
    """Pictures, where the model looks (rollout) and what it uses (occlusion), column by column.

    Args:
        images: shape (k, H, W) or (k, 1, H, W).
        rollout: shape (k, rows, cols), the class token's rollout weight on each patch.
        occlusion: shape (k, rows, cols), the probability lost when the patch is hidden.
        titles: one title per column.

    Returns:
        The figure: three rows (picture, rollout, occlusion) of k panels; rollout in the
        attention colours, occlusion diverging around 0 (red: the answer needs the patch).
    """
    images, rollout, occlusion = _pictures(images), as_array(rollout), as_array(occlusion)
    k = len(titles)
    fig, axes = axes_grid(3 * k, k, (0.95 * k + 1.0, 3.6))  # 4.8 in for 4 columns
    span = float(np.abs(occlusion).max()) or 1.0
    for i in range(k):
        top, middle, bottom = axes[i], axes[k + i], axes[2 * k + i]
        top.imshow(images[i], cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
        top.set_title(titles[i], fontsize=9)
        looks = middle.imshow(rollout[i], cmap=ATTENTION_CMAP, vmin=0, vmax=float(rollout.max()))
        uses = bottom.imshow(occlusion[i], cmap=EMBEDDING_CMAP, vmin=-span, vmax=span)
        for ax in (top, middle, bottom):
            _bare(ax)
    axes[k].set_ylabel("looks:\nrollout", fontsize=9)
    axes[2 * k].set_ylabel("uses:\nocclusion", fontsize=9)
    fig.colorbar(looks, ax=axes[k : 2 * k], shrink=0.8, label="weight")
    fig.colorbar(uses, ax=axes[2 * k :], shrink=0.8, label="probability lost")
    return fig


def show_logit_lens(probabilities, label: int) -> Figure:
    """The class token read after every block: how the answer forms, layer by layer.

    Args:
        probabilities: shape (depth, K), from :func:`vitexplain.logit_lens` for one picture.
        label: the picture's true class (outlined).

    Returns:
        The figure: a depth x K heat map of probabilities, the true class's column outlined.
    """
    probs = as_array(probabilities)
    if probs.ndim != 2:
        raise ValueError(
            f"probabilities must be one picture's (depth, K), got shape {probs.shape}: for "
            "picture i pass probabilities[i]"
        )
    label = int(label)
    if not 0 <= label < probs.shape[1]:
        raise ValueError(f"label must be a class in [0, {probs.shape[1]}), got {label}")
    depth, classes = probs.shape

    from matplotlib.patches import Rectangle

    fig = new_figure((4.8, 0.5 * depth + 1.2))  # 4.8 inches: it fits a phone's width
    ax = fig.add_subplot()
    im = ax.imshow(probs, cmap=PICTURE_CMAP, vmin=0, vmax=1, aspect="auto")
    ax.add_patch(Rectangle((label - 0.5, -0.5), 1, depth, fill=False, edgecolor="#ffb000", lw=2))
    ax.set_xticks(range(classes))
    ax.set_yticks(range(depth), [f"after block {i + 1}" for i in range(depth)])
    ax.set_xlabel("class")
    fig.colorbar(im, ax=ax, label="probability")
    return fig


def show_vit_figure7(
    components, explained, similarity, distances, uniform_distance: float
) -> Figure:
    """Figure 7 of the ViT paper, for the digits model: filters, position similarity, distances.

    Args:
        components: shape (k, C, P, P), principal components of the patch embedding's filters.
        explained: shape (k,), the share of variance each explains.
        similarity: shape (rows, cols, rows, cols), cosine similarity of the position vectors.
        distances: shape (depth, h), mean attention distance in pixels per block and head.
        uniform_distance: the mean distance of uniform attention over the patches (a reference).

    Returns:
        The figure, stacked in one column (it fits a phone's width): the components above, the
        similarity mosaic in the middle, distance vs depth below.
    """
    components, explained = as_array(components), as_array(explained)
    distances = as_array(distances)
    k = len(components)
    fig = new_figure((4.8, 9.4))
    outer = fig.add_gridspec(3, 1, height_ratios=[1, 2.6, 2.2])
    top = outer[0].subgridspec(-(-k // 4), min(k, 4))  # up to 4 components a row
    for i in range(k):
        ax = fig.add_subplot(top[i // 4, i % 4])
        span = float(np.abs(components[i]).max())
        ax.imshow(components[i, 0], cmap=EMBEDDING_CMAP, vmin=-span, vmax=span)
        ax.set_title(f"PC {i + 1}: {explained[i]:.0%}", fontsize=8)
        _bare(ax)
    centre = fig.add_subplot(outer[1])  # the middle panel
    mosaic = position_similarity_mosaic(similarity)
    im = centre.imshow(mosaic, cmap=SIMILARITY_CMAP, vmin=-1, vmax=1, interpolation="nearest")
    centre.set_title("position embedding similarity", fontsize=9)
    _bare(centre)
    fig.colorbar(im, ax=centre, shrink=0.8, label="cosine similarity")
    bottom = fig.add_subplot(outer[2])
    depth, heads = distances.shape
    for head in range(heads):
        bottom.scatter(np.arange(1, depth + 1), distances[:, head], s=18, label=f"head {head + 1}")
    bottom.axhline(uniform_distance, color="grey", ls="--", lw=1, label="uniform attention")
    bottom.set_xticks(range(1, depth + 1))
    bottom.set_xlabel("block")
    bottom.set_ylabel("mean attention distance (pixels)")
    bottom.set_ylim(0, None)
    bottom.legend(fontsize=7, loc="lower right")
    return fig


def show_attention_locality(
    distances,
    entropy,
    top_share,
    references: dict[str, tuple[float, float, float]],
) -> Figure:
    """Local or global: three measures of every head against the same attention of known reach.

    Args:
        distances: shape (depth, h), mean attention distance in pixels.
        entropy: shape (depth, h), entropy of a patch query's attention over the patches (nats).
        top_share: shape (depth, h), the weight of a patch query's most-attended patch.
        references: name -> (distance, entropy, top share) of a reference attention (e.g.
            ``"self only"``, ``"self + 4 neighbours"``, ``"uniform"``), drawn as labelled
            horizontal lines in all three panels.

    Returns:
        The figure: three panels one above the other (it fits a phone's width), each a point per
        head against the block (heads in separate colours, slightly offset), with the references
        as dashed lines, and one legend below.
    """
    values = [as_array(distances), as_array(entropy), as_array(top_share)]
    depth, heads = values[0].shape
    fig = new_figure((4.8, 9.4))
    axes = fig.subplots(3, 1)
    labels = (
        "mean attention distance (pixels)",
        "entropy of a query's attention (nats)",
        "weight on the top patch",
    )
    styles = ("--", "-.", ":", (0, (5, 1)))
    for i, (ax, value, label) in enumerate(zip(axes, values, labels, strict=True)):
        for head in range(heads):
            x = np.arange(1, depth + 1) + 0.08 * (head - (heads - 1) / 2)
            ax.scatter(x, value[:, head], s=20, label=f"head {head + 1}", zorder=3)
        for j, (name, reference) in enumerate(references.items()):
            ax.axhline(reference[i], color="grey", ls=styles[j % 4], lw=1, label=name)
        ax.set_xticks(range(1, depth + 1))
        ax.set_xlabel("block")
        ax.set_ylabel(label)
    axes[0].set_ylim(-0.2, None)
    axes[2].set_ylim(0, 1.05)
    handles, names = axes[2].get_legend_handles_labels()
    fig.legend(handles, names, fontsize=7, loc="outside lower center", ncols=2)
    return fig


def show_probe_comparison(black_share, moved_share) -> Figure:
    """Two probes of the same places, one above the other: a black patch, the picture's own patches.

    Args:
        black_share: shape (N,), the share of pictures whose verdict flips when the patch at
            place p is painted black (out of distribution).
        moved_share: shape (N, N), ``[k, p]`` the share that flips when patch k of the picture
            is copied to place p (in distribution; the diagonal, nothing moved, is left blank).

    Returns:
        The figure: a 1 x N strip for the black patch above the N x N table of moved patches,
        places along the same horizontal axis, on one 0..1 colour scale with its bar below.
    """
    black, moved = as_array(black_share), as_array(moved_share).copy()  # (N,), (N, N)
    count = len(black)
    np.fill_diagonal(moved, np.nan)
    fig = new_figure((4.8, 5.9))
    top, bottom = fig.subplots(2, 1, height_ratios=[1, count], sharex=True)
    style = {"cmap": "viridis", "vmin": 0, "vmax": 1, "aspect": "equal"}
    top.imshow(black[None], **style)
    image = bottom.imshow(moved, **style)
    top.set_yticks([0], ["black"])
    top.set_title("share of intact pictures called scrambled", fontsize=10)
    ticks = np.arange(count)
    bottom.set_xticks(ticks, [str(t + 1) for t in ticks])
    bottom.set_yticks(ticks, [str(t + 1) for t in ticks])
    bottom.set_xlabel("place p the patch is put at")
    bottom.set_ylabel("patch k of the same picture")
    fig.colorbar(
        image, ax=[top, bottom], location="bottom", shrink=0.6, aspect=30, label="share flipped"
    )
    return fig
