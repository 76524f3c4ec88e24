"""Exercises of notebook 05: the T2T soft split (count, overlap, token length, fold back)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from ..data import load_mountains
from ..patches import patchify
from ..unfold import count_tokens
from . import Exercise, as_int, close, normalize, short

__all__ = ["EXERCISES"]


def _int_hint(answer: Any) -> str | None:
    """A hint when the answer is not a whole number, else None."""
    if as_int(answer) is None:
        return f"expected an int, got {short(answer)}"
    return None


# --- 05.1: predict the token count of the first official split on 224 x 224 ---


def _tokens_224() -> int:
    return count_tokens(224, 224, 7, 4, 2)[2]  # (224 + 2*2 - 7) // 4 + 1 = 56 per side


def _grade_tokens_224(answer: Any) -> str | None:
    if hint := _int_hint(answer):
        return hint
    answer = as_int(answer)
    per_side = count_tokens(224, 224, 7, 4, 2)[0]
    if answer == _tokens_224():
        return None
    if answer == per_side:
        return "that is the count along one side; the split makes rows x columns tokens"
    if answer == (224 - 7) // 4 + 1 or answer == ((224 - 7) // 4 + 1) ** 2:
        return "the kernel slides over the padded side, H + 2p, not H"
    return "apply rows = floor((H + 2p - k) / s) + 1 to each side, then multiply"


# --- 05.2: the three splits of T2T-ViT, chained ---


def _tokens_after_three_splits() -> int:
    h = w = 224
    for k in (7, 3, 3):  # the official splits, stride ceil(k/2), padding ceil(k/4)
        h, w, total = count_tokens(h, w, k, -(-k // 2), -(-k // 4))
    return total


def _grade_three_splits(answer: Any) -> str | None:
    if hint := _int_hint(answer):
        return hint
    answer = as_int(answer)
    if answer == _tokens_after_three_splits():
        return None
    if answer == 3136:
        return "that is after the first split; the next two split the grid of tokens again"
    return "apply the token-count formula three times, each time to the grid the last split left"


# --- 05.3: count the tokens of any soft split ---


def _count(h: int, w: int, k: int, s: int, p: int) -> int:
    return ((h + 2 * p - k) // s + 1) * ((w + 2 * p - k) // s + 1)


def _grade_count(fn: Any) -> str | None:
    if not callable(fn):
        return f"expected a function count(h, w, k, s, p), got {short(fn)}"
    for h, w, k, s, p in ((60, 100, 20, 10, 5), (224, 224, 7, 4, 2), (23, 31, 3, 2, 1),
                          (60, 100, 20, 20, 0), (9, 14, 4, 3, 0), (5, 5, 5, 1, 0)):  # fmt: skip
        got = fn(h, w, k, s, p)  # a number (a NumPy or one-element torch one is converted)
        expected = nn.Unfold(k, stride=s, padding=p)(torch.zeros(1, 1, h, w)).shape[-1]
        if got != expected:
            return (
                f"count({h}, {w}, {k}, {s}, {p}) gave {short(got)}: per side, the windows fit "
                "floor((size + 2p - k) / s) + 1 times"
            )
    return None


# --- 05.4: the soft split that is ViT's patch split ---


def _vit_split() -> tuple[int, int, int]:
    return (20, 20, 0)  # k = P, stride = P (no overlap), no padding


def _int_or_pair(value: Any) -> int | tuple[int, int] | None:
    """An int, or a pair of ints as nn.Unfold takes them ((height, width)), else None."""
    if isinstance(value, tuple) and len(value) == 2:
        pair = tuple(as_int(v) for v in value)
        return None if None in pair else pair
    return as_int(value)


def _grade_vit_split(answer: Any) -> str | None:
    if isinstance(answer, torch.Tensor | np.ndarray) and tuple(answer.shape) == (3, 2):
        answer = normalize(answer.tolist())  # nn.Unfold's pair form as an array
    if not isinstance(answer, tuple) or len(answer) != 3:
        return f"expected a tuple (kernel, stride, padding) of three ints, got {short(answer)}"
    arguments = [_int_or_pair(v) for v in answer]
    if None in arguments:
        return (
            "expected (kernel, stride, padding) as three ints (or pairs of ints, as nn.Unfold "
            f"takes them), got {short(answer)}"
        )
    k, s, p = arguments
    if min(_pair(k)) < 1 or min(_pair(s)) < 1 or min(_pair(p)) < 0:
        return "k and s must be at least 1 and p at least 0"
    if max(_pair(k) + _pair(s) + _pair(p)) > 100:
        return "the picture is 60 x 100 pixels: no kernel, stride or padding needs more than 100"
    x = torch.tensor(load_mountains(), dtype=torch.float32)[None, None]  # (1, 1, 60, 100)
    try:
        tokens = nn.Unfold(k, stride=s, padding=p)(x).transpose(1, 2)  # (1, N, k*k)
    except RuntimeError:
        return f"nn.Unfold cannot cut k={k} patches from the padded 60 x 100 picture"
    hard = patchify(x, 20)  # (1, 15, 400)
    if tokens.shape != hard.shape:
        return (
            f"your split makes {tokens.shape[1]} tokens of length {tokens.shape[2]}; "
            f"ViT's makes {hard.shape[1]} of length {hard.shape[2]}"
        )
    if not torch.equal(tokens, hard):
        return "the shapes agree but the values do not: is something shifted by the padding?"
    return None


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    return value if isinstance(value, tuple) else (value, value)


# --- 05.5: fold the tokens back into the picture ---


def _unsoft_split(tokens: torch.Tensor, h: int, w: int, k: int, s: int, p: int) -> torch.Tensor:
    fold = nn.Fold((h, w), k, stride=s, padding=p)
    summed = fold(tokens.transpose(1, 2))  # (B, C, h, w): overlapping patches added up
    count = fold(torch.ones_like(tokens[:1]).transpose(1, 2))  # (1, C, h, w): patches per pixel
    return summed / count  # (B, C, h, w): the mean of the copies is the pixel


def _just_fold(tokens: torch.Tensor, h: int, w: int, k: int, s: int, p: int) -> torch.Tensor:
    return nn.Fold((h, w), k, stride=s, padding=p)(tokens.transpose(1, 2))  # overlaps summed


def _grade_unsoft_split(fn: Any) -> str | None:
    if not callable(fn):
        return f"expected a function unsoft_split(tokens, h, w, k, s, p), got {short(fn)}"
    generator = torch.Generator().manual_seed(5)
    for shape, (k, s, p) in (
        ((1, 1, 60, 100), (20, 10, 5)),
        ((2, 3, 23, 31), (7, 4, 2)),
        ((1, 2, 9, 14), (3, 2, 1)),
        ((1, 1, 12, 8), (4, 4, 0)),
    ):
        x = torch.rand(shape, generator=generator)
        tokens = nn.Unfold(k, stride=s, padding=p)(x).transpose(1, 2)  # (B, N, C*k*k)
        got = fn(tokens, shape[2], shape[3], k, s, p)  # a tensor (an array is converted)
        if tuple(got.shape) != shape:
            return f"expected a tensor of shape {shape}, got shape {tuple(got.shape)}"
        if not close(got, x):
            ratio = float((got.double() / x.double().clamp_min(1e-6)).max())
            if ratio > 1.5:
                return "some values are too large: what happens where patches overlap?"
            return f"the result differs from the picture (k={k}, s={s}, p={p})"
    return None


EXERCISES = [
    Exercise(
        id="05.1",
        task=(
            "Predict before computing: how many tokens does the first soft split of T2T-ViT "
            "(k = 7, stride 4, padding 2) make on a 224 x 224 image? Answer with an int."
        ),
        grade=_grade_tokens_224,
        solution=_tokens_224,
        wrong=lambda: 56,
    ),
    Exercise(
        id="05.2",
        task=(
            "Use the formula: T2T-ViT's three soft splits, (7, 4, 2), (3, 2, 1) and (3, 2, 1) "
            "(kernel, stride, padding), each applied to the grid of tokens the previous one left, "
            "on a 224 x 224 image. How many tokens come out of the third split? Answer with an int."
        ),
        grade=_grade_three_splits,
        solution=_tokens_after_three_splits,
        wrong=lambda: 3136,
    ),
    Exercise(
        id="05.3",
        task=(
            "Write `count(h, w, k, s, p)`: the number of tokens `nn.Unfold(k, stride=s, "
            "padding=p)` cuts from an h x w image, without calling `vx.count_tokens` or "
            "`nn.Unfold`."
        ),
        grade=_grade_count,
        solution=lambda: _count,
        wrong=lambda: lambda h, w, k, s, p: (h // k) * (w // k),
        returns=int,
        forbids=("vitexplain.unfold.count_tokens", "torch.nn.Unfold"),
    ),
    Exercise(
        id="05.4",
        task=(
            "Which `nn.Unfold(kernel, stride=stride, padding=padding)` cuts exactly the tokens of "
            "ViT's patch split of the Mountain with P = 20 (`vx.patchify(x, 20)`)? Answer with a "
            "tuple (kernel, stride, padding) of nn.Unfold's arguments."
        ),
        grade=_grade_vit_split,
        solution=_vit_split,
        wrong=lambda: (20, 10, 5),
    ),
    Exercise(
        id="05.5",
        task=(
            "Write unsoft_split(tokens, h, w, k, s, p) that turns the tokens (B, N, C*k*k) of "
            "nn.Unfold(k, stride=s, padding=p) back into the images (B, C, h, w), using nn.Fold "
            "but not vx.fold_tokens. Assume every pixel lies in at least one patch."
        ),
        grade=_grade_unsoft_split,
        solution=lambda: _unsoft_split,
        wrong=lambda: _just_fold,
        returns=torch.Tensor,
        forbids=("vitexplain.unfold.fold_tokens",),
    ),
]
