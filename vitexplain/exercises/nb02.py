"""Exercises of notebook 02: attention and permutations."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import torch
import torch.nn.functional as F

from ..attention import attention
from ..patches import patchify
from ._rules import ChoiceSpec, Exercise, Rule, ValueSpec, close, rounded

__all__ = ["EXERCISES", "PREDICTIONS", "WARMUPS"]


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


# --- warm-ups: notebook 01 -------------------------------------------------------------------


def _tokens_32_by_48() -> int:
    """Tokens of a 32 x 48 grey picture cut into 8 x 8 patches."""
    return patchify(torch.zeros(1, 1, 32, 48), 8).shape[1]


def _patch_below_3() -> int:
    """The 1-based number of the patch below patch 3 on the Mountain's 3 x 5 grid."""
    numbers = torch.arange(1, 16).reshape(3, 5)  # row-major, as patchify numbers them
    (row, col) = (numbers == 3).nonzero()[0].tolist()
    return int(numbers[row + 1, col])


WARMUPS: list[Exercise] = [
    Exercise(
        id="02.w1",
        grade=ValueSpec(
            kind="int",
            answer=_tokens_32_by_48(),
            expects="an int",
            rules=(
                Rule("that is the length of each token, P² = 64; how many patches?", equals=64),
            ),
            default="a 32 x 48 picture makes a grid of (32 / 8) x (48 / 8) patches.",
        ),
        solution=_tokens_32_by_48,
        wrong=lambda: 64,
        why="(32 / 8) x (48 / 8) = 4 x 6 = 24 patches, each a token of length 8 x 8 = 64.",
    ),
    Exercise(
        id="02.w2",
        grade=ValueSpec(
            kind="int",
            answer=_patch_below_3(),
            expects="an int",
            rules=(Rule("that is the next patch in the same row; go one row down", equals=4),),
            default="the patches are numbered row by row, five to a row.",
        ),
        solution=_patch_below_3,
        wrong=lambda: 4,
        why="Row-major numbering, five patches a row: the patch below patch 3 is 3 + 5 = 8.",
    ),
]


# --- predictions -----------------------------------------------------------------------------


def _scores_integers_1_to_19() -> str:
    """Where a row's weight goes with the article's integers 1 ... 19: "c" practically all on
    one key (every row's largest weight above 0.999)."""
    q, k, _ = torch.randint(1, 20, (3, 4, 9), generator=torch.Generator().manual_seed(21))
    weights = torch.softmax((q @ k.T).double() / 3, dim=-1)  # (4, 4)
    largest = weights.max(dim=-1).values
    return "c" if bool((largest > 0.999).all()) else "b" if bool((largest > 0.5).all()) else "a"


def _rows_changed_by_swap() -> int:
    """Rows of the output S V (notebook 02, section 3) that change when tokens 0 and 2 swap."""
    q, k, v = torch.randint(-2, 3, (3, 4, 9), generator=torch.Generator().manual_seed(21))
    swap = torch.tensor([2, 1, 0, 3])
    out, out_s = (q @ k.T) @ v, (q[swap] @ k[swap].T) @ v[swap]  # (4, 9) each
    return sum(not torch.equal(out_s[i], out[i]) for i in range(4))


def _scramble_changes() -> str:
    """Which output changes when the patches are scrambled: "c" only the model with a position
    embedding. Without one, attention is equivariant and the class token's output a sum over
    the patches, so the scrambled picture gives the same logit (section 5 checks it)."""
    torch.manual_seed(21)
    tokens = torch.randn(15, 16, dtype=torch.float64)  # (N, D): any patch tokens
    cls = torch.randn(1, 16, dtype=torch.float64)
    order = torch.randperm(15, generator=torch.Generator().manual_seed(21))
    position = torch.randn(16, 16, dtype=torch.float64)  # one row per slot, class token first

    def class_output(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        z = torch.cat([cls, x]) + pos  # (16, D)
        return attention(z, z, z)[0][0]  # the class token's row

    bag = torch.allclose(class_output(tokens, 0 * position), class_output(tokens[order], 0))
    pos = torch.allclose(class_output(tokens, position), class_output(tokens[order], position))
    return {(True, False): "c", (False, False): "a", (True, True): "b"}[(bag, pos)]


PREDICTIONS: list[Exercise] = [
    Exercise(
        id="02.p1",
        grade=ChoiceSpec(
            answer="c",
            options=(
                "over all four keys, nearly evenly",
                "mostly on one key, some on the others, like A above",
                "practically all on one key in every row",
            ),
            rules=(
                Rule(
                    "the logits are now tens of units apart, not a few: positive entries make "
                    "q . k grow like d, and the softmax of such logits is nearly one-hot.",
                    equals="b",
                ),
            ),
            default=(
                "entries of about 10 make each term about 100: the logits lie tens of units "
                "apart, and the softmax gives the largest practically everything."
            ),
        ),
        solution=_scores_integers_1_to_19,
        wrong=lambda: "b",
        why=(
            "The common guess is a mixture like A's rows; but with positive entries the dot "
            "product grows like d, not sqrt(d), and 1 / sqrt(d) cannot tame logits tens apart."
        ),
    ),
    Exercise(
        id="02.p2",
        grade=ValueSpec(
            kind="int",
            answer=_rows_changed_by_swap(),
            expects="an int",
            rules=(
                Rule(
                    "every row sees the swapped tokens, but a row is a sum over all keys, and a "
                    "sum ignores the order of its terms: rows 1 and 3 keep their values.",
                    equals=4,
                ),
                Rule("rows 0 and 2 trade places: their values move with their tokens.", equals=0),
            ),
            default="rows 0 and 2 trade places; rows 1 and 3, sums over all keys, stay.",
        ),
        solution=_rows_changed_by_swap,
        wrong=lambda: 4,
        why=(
            "Many expect all four rows to change, since every row mixes all tokens; but a row is "
            "a sum over the keys, blind to their order: only rows 0 and 2 change, by trading."
        ),
    ),
    Exercise(
        id="02.p3",
        grade=ChoiceSpec(
            answer="c",
            options=(
                "both logits change",
                "neither changes",
                "only the logit of the model with position changes",
            ),
            rules=(
                Rule(
                    "without position the class token's output is a weighted sum over the "
                    "patches, the weights moving with them: the scrambled picture gives the "
                    "same logit, to the last bits.",
                    equals="a",
                ),
                Rule(
                    "at timm's small initialisation, yes, nearly; with weights of a useful size "
                    "the position vectors make the slots differ.",
                    equals="b",
                ),
            ),
            default="only a position embedding lets the output depend on the slots.",
        ),
        solution=_scramble_changes,
        wrong=lambda: "a",
        why=(
            "The common guess is that any model sees a scrambled picture as different; without "
            "position, attention is a bag of patches: the same logit, to the last bits."
        ),
    ),
]
