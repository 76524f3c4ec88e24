"""Exercises of notebook 02: attention and permutations."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import torch
import torch.nn.functional as F

from ..attention import attention
from ._rules import Exercise, Rule, ValueSpec, close, rounded

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


_EQUAL_KEYS_WEIGHT = ValueSpec(
    kind="number",
    answer=1 / 15,
    expects="a number",
    tol=1e-3,
    accepted=rounded(1 / 15, 2),
    percent=True,
    rules=(
        Rule("attention weights lie between 0 and 1", low=0, high=1, outside=True),
        Rule("right to one decimal; give two decimals", equals=0.1, tol=1e-9),
    ),
    default=("if all keys are equal, every logit of a row is equal too; what does softmax make?"),
)


# 02.2 -- change something: a causal mask and a swap of the last two tokens


def _causal_rows_still_swapped() -> list[int]:
    q, k, v = _random_qkv(4, 4, 8, 8, seed=3)
    swap = torch.tensor([0, 1, 3, 2])  # new token i is old token swap[i]
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (4, 8): i sees keys 0..i
    out_s = F.scaled_dot_product_attention(q[swap], k[swap], v[swap], is_causal=True)
    return [i for i in range(4) if torch.allclose(out_s[i], out[swap][i])]


_CAUSAL_ROWS = ValueSpec(
    kind="int_set",
    answer=(0, 1),
    expects="a list of 0-based row indices (ints)",
    rules=(
        Rule(
            "without a mask every row would be; with one, which rows see other keys now?",
            equals=(0, 1, 2, 3),
        ),
    ),
    default="row i sees keys 0..i only: which rows see the same set of tokens after the swap?",
)


# 02.3 -- write a function: single-head attention from scratch


def _solution_attention() -> Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]:
    def my_attention(q, k, v):
        """(N, d), (M, d), (M, d_v) -> (N, d_v)."""
        logits = q @ k.T / q.shape[-1] ** 0.5  # (N, M)
        weights = torch.exp(logits - logits.max(dim=-1, keepdim=True).values)  # stable softmax
        return weights / weights.sum(dim=-1, keepdim=True) @ v  # (N, d_v)

    return my_attention


def _grade_attention(answer: Any) -> str | None:
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


_MEAN_SCALED_LOGIT = ValueSpec(
    kind="number",
    answer=64 * 0.5 * 0.5 / 64**0.5,  # d terms of mean 0.5 * 0.5, over sqrt(d): 2.0
    expects="a number",
    tol=0.15,
    rules=(
        Rule(
            "true for zero-mean entries; here every term q_i k_i has a mean of its own",
            low=-0.25,
            high=0.25,
        ),
    ),
    default=(
        "for independent q_i and k_i the mean of q_i k_i is the product of their means; "
        "add d of them, then divide by sqrt(d)"
    ),
)


EXERCISES: list[Exercise] = [
    Exercise(
        id="02.1",
        grade=_EQUAL_KEYS_WEIGHT,
        solution=_equal_keys_weight,
        wrong=lambda: 1.0,
        why=(
            "Equal keys give every key the same logit q . k / sqrt(d), and softmax of 15 equal "
            "logits is 1/15 each, whatever the query: about 0.067."
        ),
    ),
    Exercise(
        id="02.2",
        grade=_CAUSAL_ROWS,
        solution=_causal_rows_still_swapped,
        wrong=lambda: [0, 1, 2, 3],
        why=(
            "Rows 0 and 1 keep their tokens and see keys {0} and {0, 1}, as before. Row 2 now "
            "holds old token 3 but sees only old tokens {0, 1, 3}, where old row 3 saw all "
            "four; row 3 holds old token 2 and sees all four, where old row 2 saw {0, 1, 2}."
        ),
    ),
    Exercise(
        id="02.3",
        grade=_grade_attention,
        solution=_solution_attention,
        wrong=_wrong_attention,
        why=(
            "Logits q k^T scaled by 1 / sqrt(d), a softmax over each row (the row's maximum "
            "subtracted first, so exp cannot overflow), then the weighted sum of the values."
        ),
        asks="my_attention(q, k, v)",
        returns=torch.Tensor,
        forbids=(
            "vitexplain.attention.attention",
            "vitexplain.relative_position.attention_with_position",
            "torch.nn.functional.scaled_dot_product_attention",
        ),
    ),
    Exercise(
        id="02.4",
        grade=_MEAN_SCALED_LOGIT,
        solution=_mean_scaled_logit,
        wrong=lambda: 0.0,
        why=(
            "For independent entries E[q_i k_i] = E[q_i] E[k_i] = 0.25; the d = 64 terms sum to "
            "16 on average, and 16 / sqrt(64) = 2. The scaling fixes the spread, not the mean."
        ),
    ),
]
