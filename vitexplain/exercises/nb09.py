"""Exercises of notebook 09: which explanation is right?"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..attribution import (
    MARKER_CLASS,
    gradient_rollout,
    load_marked_digits_vit,
    randomized_from_top,
)
from ..digits import load_digit_split, load_trained_digits_vit
from ..inspection import attention_maps
from ..interpret import attention_rollout, rank_correlation
from ._rules import Exercise, Rule, ValueSpec, close

__all__ = ["EXERCISES"]


# 09.1 -- predict, then count: the marker in another corner


def _threes_marked_top_right() -> int:
    model = load_marked_digits_vit()
    _, _, images, labels = load_digit_split()
    threes = images[labels == MARKER_CLASS].clone()  # (33, 1, 8, 8)
    threes[:, :, 0, 7] = 1.0  # the marker's ink, in the top-right corner
    with torch.no_grad():
        return int((model(threes).argmax(-1) == MARKER_CLASS).sum())


_TOP_RIGHT = ValueSpec(
    kind="int",
    answer=0,  # shipped (a test recomputes it)
    expects="a count of pictures (an int)",
    rules=(
        Rule("the test set holds 33 3s", low=0, high=33, outside=True),
        Rule("that is the count with the marker in its own corner, the top left", equals=33),
    ),
    default=(
        "copy the 33 test 3s, set pixel (row 0, column 7) to 1, run the marker model on them "
        "and count the answers equal to 3"
    ),
)


# 09.2 -- write a function: gradient-weighted rollout


def _solution_gradient_rollout() -> Callable[[list, list], torch.Tensor]:
    def my_gradient_rollout(maps, grads):
        """Lists of (B, h, N, N) attention maps and their gradients -> (B, N - 1)."""
        n = maps[0].shape[-1]
        r = torch.eye(n, dtype=maps[0].dtype).expand(maps[0].shape[0], n, n)  # (B, N, N)
        for a, g in zip(maps, grads, strict=True):  # first block first
            mixed = (g * a).clamp(min=0).mean(dim=1)  # (B, N, N): positive part, heads averaged
            r = r + mixed @ r  # the identity keeps what the residual stream carries
        return r[:, 0, 1:]  # the class token's row over the patches

    return my_gradient_rollout


def _grade_gradient_rollout(answer) -> str | None:
    generator = torch.Generator().manual_seed(9)
    for depth, b, h, n in ((1, 1, 1, 3), (3, 2, 4, 5), (4, 1, 2, 17)):
        shape = (b, h, n, n)
        maps = [
            torch.rand(shape, generator=generator, dtype=torch.float64).softmax(-1)
            for _ in range(depth)
        ]
        grads = [torch.randn(shape, generator=generator, dtype=torch.float64) for _ in maps]
        got = answer(maps, grads)
        expected = gradient_rollout(maps, grads)
        if tuple(got.shape) != tuple(expected.shape):
            return (
                f"expected a tensor of shape (B, N - 1) = {tuple(expected.shape)}, got shape "
                f"{tuple(got.shape)}: return the class token's row over the patches"
            )
        if close(got, expected):
            continue
        if close(got, gradient_rollout(maps, [g.abs() for g in grads])):
            return "keep the positive part of gradient times attention (clamp), not its size"
        unclamped = [(g * a).mean(1) for a, g in zip(maps, grads, strict=True)]
        r = torch.eye(n, dtype=torch.float64).expand(b, n, n)
        for mixed in unclamped:
            r = r + mixed @ r
        if close(got, r[:, 0, 1:]):
            return "the negative parts are still in: clamp gradient times attention at 0"
        return (
            "per block: multiply gradient and attention, clamp at 0, average the heads; "
            "then R = R + mixed @ R, starting from the identity"
        )
    return None


def _wrong_gradient_rollout() -> Callable[[list, list], torch.Tensor]:
    def plain_rollout(maps, grads):
        return attention_rollout(maps)[:, 0, 1:]

    return plain_rollout


# 09.3 -- predict, then compute: rollout after the head is randomised


def _rollout_after_new_head() -> float:
    model = load_trained_digits_vit()
    images = load_digit_split()[2]
    _, new_head = randomized_from_top(model)[1]  # step 1: the head and the final norm re-drawn
    before = attention_rollout(attention_maps(model, images))[:, 0, 1:]
    after = attention_rollout(attention_maps(new_head, images))[:, 0, 1:]
    return float(rank_correlation(before, after).mean())


_NEW_HEAD = ValueSpec(
    kind="number",
    answer=1.0,
    expects="a number (a mean rank correlation)",
    tol=0.0051,
    rules=(Rule("a rank correlation lies between -1 and 1", low=-1, high=1, outside=True),),
    default=(
        "rollout reads only the attention weights of the blocks: which of them does a new "
        "head change? Compute both rollouts and average their rank correlation"
    ),
)


EXERCISES: list[Exercise] = [
    Exercise(
        id="09.1",
        grade=_TOP_RIGHT,
        solution=_threes_marked_top_right,
        wrong=lambda: 400,
        why=(
            "None: the model learned the marker's place, and ink in the top-right corner is not "
            "it. Without its marker the model calls no test 3 a 3 (it says 9, 2 or 8): it "
            "learned the shortcut instead of the digit."
        ),
    ),
    Exercise(
        id="09.2",
        grade=_grade_gradient_rollout,
        solution=_solution_gradient_rollout,
        wrong=_wrong_gradient_rollout,
        why=(
            "Per block: gradient times attention, negative parts cut, heads averaged; the "
            "identity plus that matrix times the relevance so far. The class token's row is "
            "the map, and it changes with the class whose logit was differentiated."
        ),
        asks="my_gradient_rollout(maps, grads)",
        returns=torch.Tensor,
        forbids=("vitexplain.attribution.gradient_rollout",),
    ),
    Exercise(
        id="09.3",
        grade=_NEW_HEAD,
        solution=_rollout_after_new_head,
        wrong=lambda: 0.0,
        why=(
            "Rollout is computed from the attention weights alone, and a new head changes none "
            "of them: the maps are the same, rank correlation 1, although the model's answers "
            "are now random. A map that passes this test cannot say why the model chose a class."
        ),
    ),
]
