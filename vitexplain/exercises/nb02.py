"""Exercises of notebook 02: attention and permutations."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import torch
import torch.nn.functional as F

from ..attention import attention
from . import Exercise, as_int, as_number, close, short

__all__ = ["EXERCISES"]


def _random_qkv(n: int, m: int, d: int, d_v: int, seed: int) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    shapes = ((n, d), (m, d), (m, d_v))
    return tuple(torch.randn(s, generator=generator, dtype=torch.float64) for s in shapes)


# 02.1 -- predict: the weights when every key is the same


@cache
def _equal_keys_weight() -> float:
    q, k, v = _random_qkv(15, 15, 16, 16, seed=2)
    k = k[:1].expand(15, 16)  # (15, 16): all 15 keys are one vector
    _, weights = attention(q, k, v)  # (15, 15)
    return float(weights[0, 0])


def _grade_equal_keys_weight(answer: Any) -> str | None:
    value = as_number(answer)
    if value is None:
        return f"expected a number, got {short(answer)}"
    if not 0 <= value <= 1:
        return "attention weights lie between 0 and 1"
    right = _equal_keys_weight()
    if abs(value - right) > 1e-3 and value != round(right, 2):  # exact, or 2 decimals
        if value == round(right, 1):
            return "right to one decimal; give two decimals"
        return "if all keys are equal, every logit of a row is equal too; what does softmax make?"
    return None


# 02.2 -- change something: a causal mask and a swap of the last two tokens


def _causal_rows_still_swapped() -> list[int]:
    q, k, v = _random_qkv(4, 4, 8, 8, seed=3)
    swap = torch.tensor([0, 1, 3, 2])  # new token i is old token swap[i]
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (4, 8): i sees keys 0..i
    out_s = F.scaled_dot_product_attention(q[swap], k[swap], v[swap], is_causal=True)
    return [i for i in range(4) if torch.allclose(out_s[i], out[swap][i])]


def _grade_causal_rows(answer: Any) -> str | None:
    if as_int(answer) is not None:
        answer = (answer,)  # one index, e.g. from a one-element array
    if not isinstance(answer, tuple | frozenset):
        return f"expected a list of row indices, got {short(answer)}"
    if any(as_int(i) is None for i in answer):
        return f"expected 0-based row indices (ints), got {short(answer)}"
    chosen, right = sorted({as_int(i) for i in answer}), _causal_rows_still_swapped()
    if chosen == [0, 1, 2, 3]:
        return "without a mask every row would be; with one, which rows see other keys now?"
    if chosen != right:
        return "row i sees keys 0..i only: which rows see the same set of tokens after the swap?"
    return None


# 02.3 -- write a function: single-head attention from scratch


def _solution_attention() -> Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]:
    def my_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        logits = q @ k.T / q.shape[-1] ** 0.5  # (N, M)
        weights = torch.exp(logits - logits.max(dim=-1, keepdim=True).values)  # stable softmax
        return weights / weights.sum(dim=-1, keepdim=True) @ v  # (N, d_v)

    return my_attention


def _grade_attention(answer: Any) -> str | None:
    if not callable(answer):
        return f"expected a function my_attention(q, k, v), got {short(answer)}"
    for n, m, d, d_v, seed in ((4, 4, 9, 9, 0), (5, 7, 8, 3, 1), (15, 15, 64, 64, 2)):
        q, k, v = _random_qkv(n, m, d, d_v, seed)
        result = answer(q, k, v)  # a tensor (an array is converted)
        expected = F.scaled_dot_product_attention(q, k, v)  # (N, d_v)
        if result.shape != expected.shape:
            return (
                f"for {n} queries, {m} keys and values of length {d_v} the output should have "
                f"shape {tuple(expected.shape)}, got {tuple(result.shape)}"
            )
        if not close(result, expected):
            unscaled = F.scaled_dot_product_attention(q, k, v, scale=1.0)
            if close(result, unscaled):
                return "close: the logits need the factor 1 / sqrt(d)"
            return f"wrong values for q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
    return None


def _wrong_attention() -> Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]:
    def unscaled(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.softmax(q @ k.T, dim=-1) @ v  # the 1 / sqrt(d) is missing

    return unscaled


# 02.4 -- use the idea: what the 1 / sqrt(d) cannot undo


@cache
def _mean_scaled_logit() -> float:
    """Mean of q . k / sqrt(d) for d = 64 entries of mean 0.5 and variance 1, by simulation."""
    generator = torch.Generator().manual_seed(4)
    q, k = 0.5 + torch.randn(2, 100_000, 64, generator=generator, dtype=torch.float64)
    return round(float((q * k).sum(-1).mean() / 64**0.5), 1)  # (100000,) logits: mean near 2


def _grade_mean_scaled_logit(answer: Any) -> str | None:
    value = as_number(answer)
    if value is None:
        return f"expected a number, got {short(answer)}"
    if abs(value) < 0.25:
        return "true for zero-mean entries; here every term q_i k_i has a mean of its own"
    if abs(value - _mean_scaled_logit()) > 0.15:
        return (
            "for independent q_i and k_i the mean of q_i k_i is the product of their means; "
            "add d of them, then divide by sqrt(d)"
        )
    return None


EXERCISES: list[Exercise] = [
    Exercise(
        id="02.1",
        task=(
            "Predict: 15 tokens attend to each other, and all 15 keys happen to be the same "
            "vector (the queries and values differ). What weight does query 1 give to key 1? "
            "Answer with a number."
        ),
        grade=_grade_equal_keys_weight,
        solution=_equal_keys_weight,
        wrong=lambda: 1.0,
    ),
    Exercise(
        id="02.2",
        task=(
            "Add a causal mask (token i may only attend to keys 0 ... i, as in a language model: "
            "`F.scaled_dot_product_attention(q, k, v, is_causal=True)`) to 4 tokens, and swap "
            "the last two tokens (order `[0, 1, 3, 2]`). For which 0-based rows i is the new "
            "output row i still the old output row `swap[i]`? Answer with a list of row indices."
        ),
        grade=_grade_causal_rows,
        solution=_causal_rows_still_swapped,
        wrong=lambda: [0, 1, 2, 3],
    ),
    Exercise(
        id="02.3",
        task=(
            "Write `my_attention(q, k, v)` from scratch for one head: q of shape (N, d), k of "
            "shape (M, d), v of shape (M, d_v) in, softmax(q k^T / sqrt(d)) v of shape (N, d_v) "
            "out, without `vx.attention` or `F.scaled_dot_product_attention`. The checker "
            "compares it with `F.scaled_dot_product_attention` on several shapes."
        ),
        grade=_grade_attention,
        solution=_solution_attention,
        wrong=_wrong_attention,
        returns=torch.Tensor,
        forbids=(
            "vitexplain.attention.attention",
            "torch.nn.functional.scaled_dot_product_attention",
        ),
    ),
    Exercise(
        id="02.4",
        task=(
            "Use the idea: the entries of q and k (d = 64 each, independent) now have mean 0.5 "
            "instead of 0, and variance 1. On average, how large is the scaled logit "
            "q . k / sqrt(d)? Answer with a number (one decimal is enough)."
        ),
        grade=_grade_mean_scaled_logit,
        solution=_mean_scaled_logit,
        wrong=lambda: 0.0,
    ),
]
