"""Exercises of notebook 08: a ViT trained on the digits, rollout and occlusion."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import torch

from ..digits import load_digit_split, load_trained_digits_vit
from ..inspection import attention_maps
from ..interpret import attention_rollout, occlusion_map, rank_correlation
from . import Exercise, as_int, as_number, close, short

__all__ = ["EXERCISES"]


@cache
def _maps_and_occlusion() -> tuple[tuple[torch.Tensor, ...], torch.Tensor]:
    """The test set's attention maps and occlusion maps, computed once per process."""
    model = load_trained_digits_vit()
    test_images = load_digit_split()[2]
    maps = tuple(attention_maps(model, test_images))  # depth x (n, h, N, N)
    return maps, occlusion_map(model, test_images, 2)  # (n, 4, 4)


@cache
def _agreement(residual: bool) -> tuple[float, ...]:
    """Rank correlation of rollout (class token's row) with occlusion, per test picture."""
    maps, occlusion = _maps_and_occlusion()
    rollout = attention_rollout(list(maps), residual=residual)  # (n, N, N)
    looks = rollout[:, 0, 1:].reshape(-1, 4, 4)  # (n, 4, 4): the class token's row, patches only
    return tuple(rank_correlation(looks, occlusion).tolist())  # (n,)


def _mean(values: tuple[float, ...]) -> float:
    return sum(values) / len(values)


# 08.1 -- change something: rollout without the residual identity


def _agreement_without_residual() -> float:
    return round(_mean(_agreement(residual=False)), 2)


def _grade_agreement_without_residual(answer: Any) -> str | None:
    if as_number(answer) is None:
        return f"expected a number (a mean rank correlation), got {short(answer)}"
    answer = as_number(answer)
    if not -1 <= answer <= 1:
        return "a rank correlation lies between -1 and 1"
    right = _agreement_without_residual()
    if abs(answer - round(_mean(_agreement(residual=True)), 2)) < 0.005:
        return "that is the agreement with the identity added: call rollout with residual=False"
    if abs(answer - right) > 0.015:
        return (
            "compute rollout with residual=False, take the class token's row over the 16 "
            "patches, and average its rank correlation with the occlusion maps over the test set"
        )
    return None


# 08.2 -- find: the test picture whose occlusion map and rollout disagree most


def _most_disagreeing() -> int:
    agreement = _agreement(residual=True)
    return agreement.index(min(agreement))


def _grade_most_disagreeing(answer: Any) -> str | None:
    if as_int(answer) is None:
        return f"expected an index into the test set (an int), got {short(answer)}"
    answer, size = as_int(answer), len(_agreement(residual=True))
    if not 0 <= answer < size:
        return f"the test set holds {size} pictures, indices 0 to {size - 1}"
    if answer != _most_disagreeing():
        return "rank every test picture by the correlation of its two maps; take the lowest"
    return None


# 08.3 -- write a function: attention rollout from scratch


def _solution_rollout() -> Callable[[list[torch.Tensor]], torch.Tensor]:
    def my_rollout(maps: list[torch.Tensor]) -> torch.Tensor:
        n = maps[0].shape[-1]
        result = torch.eye(n, dtype=maps[0].dtype).expand(maps[0].shape[0], n, n)
        for weights in maps:  # first block first
            a = weights.mean(dim=1) + torch.eye(n, dtype=weights.dtype)  # heads averaged, + I
            a = a / a.sum(dim=-1, keepdim=True)  # rows sum to 1
            result = a @ result  # the later block on the left
        return result  # (B, N, N)

    return my_rollout


def _grade_rollout(answer: Any) -> str | None:
    if not callable(answer):
        return f"expected a function my_rollout(maps), got {short(answer)}"
    generator = torch.Generator().manual_seed(8)
    for depth, b, h, n in ((1, 1, 1, 3), (3, 2, 4, 5), (4, 1, 2, 17)):
        maps = [torch.rand(b, h, n, n, generator=generator).softmax(-1) for _ in range(depth)]
        got = answer(maps)  # a tensor (an array is converted)
        expected = attention_rollout(maps)
        if tuple(got.shape) != tuple(expected.shape):
            return (
                f"expected a tensor of shape (B, N, N) = {tuple(expected.shape)}, got shape "
                f"{tuple(got.shape)}"
            )
        if close(got, attention_rollout(maps, residual=False)):
            return "the residual connection is missing: add the identity to each averaged map"
        reversed_order = attention_rollout(maps[::-1])
        if depth > 1 and close(got, reversed_order):
            return "the product runs the other way: the later block goes on the left"
        if not close(got, expected):
            return "average the heads, add the identity, renormalise each row, then multiply"
    return None


def _wrong_rollout() -> Callable[[list[torch.Tensor]], torch.Tensor]:
    def no_residual(maps: list[torch.Tensor]) -> torch.Tensor:
        return attention_rollout(maps, residual=False)

    return no_residual


EXERCISES = [
    Exercise(
        id="08.1",
        task=(
            "Change something: compute the agreement of section 6 again with rollout *without* "
            "the residual identity (`residual=False`). What is the mean rank correlation with "
            "the occlusion maps over the test set? Answer a number, rounded to 2 decimals."
        ),
        grade=_grade_agreement_without_residual,
        solution=_agreement_without_residual,
        wrong=lambda: 0.99,
    ),
    Exercise(
        id="08.2",
        task=(
            "Find the test picture whose occlusion map and rollout disagree most (the lowest "
            "rank correlation). Answer its index in the test set, an int."
        ),
        grade=_grade_most_disagreeing,
        solution=_most_disagreeing,
        wrong=lambda: 0,
    ),
    Exercise(
        id="08.3",
        task=(
            "Write a function `my_rollout(maps)` that takes a list of (B, h, N, N) attention "
            "maps, first block first, and returns the (B, N, N) attention rollout with the "
            "residual identity, without calling `vx.attention_rollout`."
        ),
        grade=_grade_rollout,
        solution=_solution_rollout,
        wrong=_wrong_rollout,
        returns=torch.Tensor,
        forbids=("vitexplain.interpret.attention_rollout",),
    ),
]
