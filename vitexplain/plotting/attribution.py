"""Figures of notebook 09: six maps of one question, and the tests that tell them apart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .core import ATTENTION_CMAP, as_array, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "show_deletion_curves",
    "show_explanation_maps",
    "show_lens_accuracy",
    "show_marker_hits",
    "show_sanity_check",
]

_MARKER_COLOUR = "#ffb000"
_LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))


def _bare(ax) -> None:
    ax.set_xticks([])
    ax.set_yticks([])


def show_explanation_maps(
    images, maps: Mapping[str, object], grid_size: tuple[int, int], outline: int | None = None
) -> Figure:
    """A few pictures, each with every map beside it, each map scaled to its own largest score.

    Args:
        images: shape (n, 1, H, W) or (n, H, W), values in [0, 1].
        maps: {name: scores (n, rows * cols)}, one column of the figure per name, in order.
        grid_size: (rows, cols) of the patch grid.
        outline: a patch index to outline in every map (the marker's), or None.

    Returns:
        The figure: one row per picture; the picture, then each map divided by its largest
        score on that picture (negative scores drawn as 0), bright = high.
    """
    pictures = as_array(images)
    pictures = pictures[:, 0] if pictures.ndim == 4 else pictures  # (n, H, W)
    rows, cols = grid_size
    names = list(maps)
    n = len(pictures)
    fig = new_figure((4.8, 0.72 * n + 0.45))  # 4.8 inches: it fits a phone's width
    axes = fig.subplots(n, len(names) + 1, squeeze=False)

    from matplotlib.patches import Rectangle

    for i in range(n):
        axes[i, 0].imshow(pictures[i], cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
        _bare(axes[i, 0])
        for j, name in enumerate(names):
            scores = as_array(maps[name])[i].reshape(rows, cols)
            top = scores.max()
            shown = np.clip(scores / top, 0, 1) if top > 0 else np.zeros_like(scores)
            ax = axes[i, j + 1]
            ax.imshow(shown, cmap=ATTENTION_CMAP, vmin=0, vmax=1, interpolation="nearest")
            if outline is not None:
                r, c = divmod(outline, cols)
                ax.add_patch(
                    Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, ec=_MARKER_COLOUR, lw=2)
                )
            _bare(ax)
            if i == 0:
                ax.set_title(name.replace(" ", "\n", 1), fontsize=6.5)
    axes[0, 0].set_title("picture", fontsize=6.5)
    return fig


def show_marker_hits(
    names: Sequence[str], top1, top3, chance: tuple[float, float] = (1 / 16, 3 / 16)
) -> Figure:
    """How often each map puts the marker patch first and in its top 3, seed by seed.

    Args:
        names: the maps, one group of bars each.
        top1: shape (seeds, maps), the share of pictures whose marker patch ranks first.
        top3: shape (seeds, maps), the share whose marker patch is among the top 3.
        chance: the shares a map that ranks the patches at random gets (1/N and 3/N).

    Returns:
        The figure: per map, two bars (the mean over seeds, top 1 and top 3) with a dot per
        seed, and dashed lines at the two chance levels; the y axis fixed at 0 to 1.
    """
    top1, top3 = as_array(top1), as_array(top3)
    x = np.arange(len(names))
    fig = new_figure((4.8, 3.4))
    ax = fig.add_subplot()
    for shift, values, label, colour in (
        (-0.2, top1, "marker patch first", "#5e3c99"),
        (0.2, top3, "marker patch in the top 3", "#b2abd2"),
    ):
        ax.bar(x + shift, values.mean(0), 0.38, color=colour, label=label)
        for seed_values in values:
            ax.plot(x + shift, seed_values, "o", color="black", ms=3)
    ax.axhline(chance[0], color="#5e3c99", ls="--", lw=1, label="chance, first")
    ax.axhline(chance[1], color="#e66101", ls=":", lw=1.5, label="chance, top 3")
    ax.set_xticks(x, [name.replace(" ", "\n", 1) for name in names], fontsize=6.5)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("share of the marked test 3s")
    ax.legend(fontsize=6, loc="upper left", ncols=2)
    return fig


def show_deletion_curves(curves: Mapping[str, Mapping[str, Mapping[str, object]]]) -> Figure:
    """Deletion and insertion curves, mean over pictures, one panel per fill and kind.

    Args:
        curves: {fill: {kind: {map name: mean curve (N + 1,)}}}, kinds "deletion" and
            "insertion"; a map named "random" is drawn in grey.

    Returns:
        The figure: a fills x 2 grid; x the share of patches removed (deletion) or put back
        (insertion), y the probability of the predicted class, both axes fixed at 0 to 1.
    """
    fills = list(curves)
    fig = new_figure((4.8, 2.2 * len(fills) + 0.5))
    axes = fig.subplots(len(fills), 2, squeeze=False, sharex=True, sharey=True)
    for i, fill in enumerate(fills):
        for j, kind in enumerate(("deletion", "insertion")):
            ax = axes[i, j]
            for k, (name, curve) in enumerate(curves[fill][kind].items()):
                curve = as_array(curve)
                x = np.linspace(0, 1, len(curve))
                if name == "random":
                    ax.plot(x, curve, color="grey", lw=3, alpha=0.6, label=name)
                else:
                    ax.plot(x, curve, ls=_LINE_STYLES[k % len(_LINE_STYLES)], lw=1.3, label=name)
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_title(f"{kind}, {fill} fill", fontsize=8)
            if i == len(fills) - 1:
                ax.set_xlabel("share of patches " + ("removed" if j == 0 else "put back"))
            if j == 0:
                ax.set_ylabel("probability")
    axes[0, 1].legend(fontsize=5.5, loc="lower right")
    return fig


def show_sanity_check(steps: Sequence[str], correlation: Mapping[str, object]) -> Figure:
    """Each map's rank correlation with itself on the trained model, as the model is randomised.

    Args:
        steps: what is randomised at each step ("none", "head", "+ block 4", ...).
        correlation: {map name: mean rank correlation per step (len(steps),)}.

    Returns:
        The figure: one line per map against the steps, the y axis fixed at -0.5 to 1.05.
    """
    fig = new_figure((4.8, 3.4))
    ax = fig.add_subplot()
    x = np.arange(len(steps))
    for k, (name, values) in enumerate(correlation.items()):
        ls = _LINE_STYLES[k % len(_LINE_STYLES)]
        ax.plot(x, as_array(values), ls=ls, marker="os^vDP"[k % 6], ms=4, label=name)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(x, [s.replace("+ ", "+\n") for s in steps], fontsize=7)
    ax.set_xlabel("randomised, from the top down")
    ax.set_ylabel("rank correlation with the trained map")
    ax.set_ylim(-0.5, 1.05)
    ax.legend(fontsize=6, loc="lower left")
    return fig


def show_lens_accuracy(tuned, logit, chance: float = 0.1) -> Figure:
    """Test accuracy of the class token read after every block: tuned lens and logit lens.

    Args:
        tuned: shape (depth,), the tuned lens's accuracy after each block.
        logit: shape (depth,), the logit lens's.
        chance: the accuracy of guessing (dashed line).

    Returns:
        The figure: two lines over the blocks, the y axis fixed at 0 to 1.
    """
    tuned, logit = as_array(tuned), as_array(logit)
    x = np.arange(1, len(tuned) + 1)
    fig = new_figure((4.8, 3.0))
    ax = fig.add_subplot()
    ax.plot(x, tuned, "o-", color="#5e3c99", label="tuned lens")
    ax.plot(x, logit, "s--", color="#e66101", label="logit lens")
    ax.axhline(chance, color="grey", ls=":", label="chance")
    ax.set_xticks(x, [f"block {i}" for i in x])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=8, loc="lower right")
    return fig
