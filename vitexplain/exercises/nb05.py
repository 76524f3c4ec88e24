"""Exercises of notebook 05: the T2T soft split (count, overlap, token length, fold back)."""

from __future__ import annotations

import torch
from torch import nn

from ..data import load_mountains
from ..patches import patchify
from ..relative_position import relative_index
from ..unfold import count_tokens, overlap_count
from ._rules import Exercise, Rule, ValueSpec, close, describe

__all__ = ["EXERCISES", "PREDICTIONS", "WARMUPS"]


# --- 05.1: predict the token count of the first official split on 224 x 224 ---


def _tokens_224() -> int:
    return count_tokens(224, 224, 7, 4, 2)[2]  # (224 + 2*2 - 7) // 4 + 1 = 56 per side


_TOKENS_224 = ValueSpec(
    kind="int",
    answer=((224 + 2 * 2 - 7) // 4 + 1) ** 2,
    expects="an int",
    rules=(
        Rule(
            "that is the count along one side; the split makes rows x columns tokens",
            equals=(224 + 2 * 2 - 7) // 4 + 1,
        ),
        Rule("the kernel slides over the padded side, H + 2p, not H", equals=(224 - 7) // 4 + 1),
        Rule(
            "the kernel slides over the padded side, H + 2p, not H",
            equals=((224 - 7) // 4 + 1) ** 2,
        ),
    ),
    default="apply rows = floor((H + 2p - k) / s) + 1 to each side, then multiply",
)


# --- 05.2: the three splits of T2T-ViT, chained ---


def _tokens_after_three_splits() -> int:
    h = w = 224
    for k in (7, 3, 3):  # the official splits, stride ceil(k/2), padding ceil(k/4)
        h, w, total = count_tokens(h, w, k, -(-k // 2), -(-k // 4))
    return total


_THREE_SPLITS = ValueSpec(
    kind="int",
    answer=14 * 14,  # 224 -> 56 -> 28 -> 14 per side
    expects="an int",
    rules=(
        Rule(
            "that is after the first split; the next two split the grid of tokens again",
            equals=56 * 56,
        ),
    ),
    default=(
        "apply the token-count formula three times, each time to the grid the last split left"
    ),
)


# --- 05.3: count the tokens of any soft split ---


def _solution_count():
    def count(h, w, k, s, p):
        """Tokens nn.Unfold(k, stride=s, padding=p) cuts from an h x w image."""
        rows = (h + 2 * p - k) // s + 1  # window positions down the padded height
        cols = (w + 2 * p - k) // s + 1  # ... and across the padded width
        return rows * cols

    return count


def _grade_count(fn) -> str | None:
    for h, w, k, s, p in ((60, 100, 20, 10, 5), (224, 224, 7, 4, 2), (23, 31, 3, 2, 1),
                          (60, 100, 20, 20, 0), (9, 14, 4, 3, 0), (5, 5, 5, 1, 0)):  # fmt: skip
        got = fn(h, w, k, s, p)  # a number (a NumPy or one-element torch one is converted)
        expected = nn.Unfold(k, stride=s, padding=p)(torch.zeros(1, 1, h, w)).shape[-1]
        if got != expected:
            return (
                f"count({h}, {w}, {k}, {s}, {p}) gave {describe(got)}: per side, the windows fit "
                "floor((size + 2p - k) / s) + 1 times"
            )
    return None


# --- 05.4: the soft split that is ViT's patch split ---


def _vit_split() -> tuple[int, int, int]:
    """k = P, stride = P (no overlap), no padding: the very tokens of ViT's patch split."""
    x = torch.tensor(load_mountains(), dtype=torch.float32)[None, None]  # (1, 1, 60, 100)
    k, s, p = 20, 20, 0
    tokens = nn.Unfold(k, stride=s, padding=p)(x).transpose(1, 2)  # (1, 15, 400)
    assert torch.equal(tokens, patchify(x, 20))
    return k, s, p


_VIT_SPLIT = ValueSpec(
    kind="int_tuple",
    answer=(20, 20, 0),
    expects="a tuple (kernel, stride, padding) of three ints (or pairs, as nn.Unfold takes)",
    pairs=True,
    rules=(
        Rule("a token of ViT's split is one whole P x P patch: which kernel cuts that?", item=0),
        Rule(
            "ViT's patches touch without overlapping: how far apart do two windows start?", item=1
        ),
        Rule("ViT's split pads nothing: its 20 x 20 patches fit the 60 x 100 picture", item=2),
    ),
    default="ViT's split cuts 15 tokens of 400 pixels each",
)


# --- 05.5: fold the tokens back into the picture ---


def _solution_unsoft_split():
    def unsoft_split(tokens, h, w, k, s, p):
        """(B, N, C*k*k) tokens of nn.Unfold(k, stride=s, padding=p) -> (B, C, h, w) images."""
        fold = nn.Fold((h, w), k, stride=s, padding=p)
        summed = fold(tokens.transpose(1, 2))  # (B, C, h, w): overlapping patches added up
        count = fold(torch.ones_like(tokens[:1]).transpose(1, 2))  # (1, C, h, w): copies/pixel
        return summed / count  # (B, C, h, w): the mean of the copies is the pixel

    return unsoft_split


def _just_fold(tokens: torch.Tensor, h: int, w: int, k: int, s: int, p: int) -> torch.Tensor:
    return nn.Fold((h, w), k, stride=s, padding=p)(tokens.transpose(1, 2))  # overlaps summed


def _folded_by_reshape(tokens: torch.Tensor, h: int, w: int, k: int, s: int, p: int):
    """The slip of reshaping (B, N, L) to (B, L, N) instead of transposing it."""
    fold = nn.Fold((h, w), k, stride=s, padding=p)
    size = tokens.shape
    ones = torch.ones_like(tokens[:1])
    return fold(tokens.reshape(size[0], size[2], size[1])) / fold(ones.reshape(1, size[2], size[1]))


def _grade_unsoft_split(fn) -> str | None:
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
            if close(got, _just_fold(tokens, shape[2], shape[3], k, s, p)):
                return "some values are too large: what happens where patches overlap?"
            if close(got, _folded_by_reshape(tokens, shape[2], shape[3], k, s, p)):
                return (
                    "nn.Fold takes (B, C*k*k, N): the tokens are (B, N, C*k*k), so swap the "
                    "two axes (a transpose), do not reshape them"
                )
            return f"the result differs from the picture (k={k}, s={s}, p={p})"
    return None


EXERCISES: list[Exercise] = [
    Exercise(
        id="05.1",
        grade=_TOKENS_224,
        solution=_tokens_224,
        wrong=lambda: 56,
        why=(
            "Per side, floor((224 + 2 * 2 - 7) / 4) + 1 = 56 window positions; the split makes "
            "56 * 56 = 3136 tokens."
        ),
    ),
    Exercise(
        id="05.2",
        grade=_THREE_SPLITS,
        solution=_tokens_after_three_splits,
        wrong=lambda: 3136,
        why=(
            "The first split leaves a 56 x 56 grid; (3, 2, 1) halves a side each time: "
            "floor((56 + 2 - 3) / 2) + 1 = 28, then 14. 14 * 14 = 196 tokens, as many as "
            "ViT-B/16 has."
        ),
    ),
    Exercise(
        id="05.3",
        grade=_grade_count,
        solution=_solution_count,
        wrong=lambda: lambda h, w, k, s, p: (h // k) * (w // k),
        why=(
            "A window of k fits floor((size + 2p - k) / s) + 1 times along a padded side of "
            "size + 2p with stride s; the count is the product of the two sides."
        ),
        asks="count(h, w, k, s, p)",
        returns=int,
        forbids=(
            "vitexplain.unfold.count_tokens",
            "vitexplain.unfold.soft_split_boxes",
            "torch.nn.Unfold",
            "torch.nn.functional.unfold",
            "torch._C._nn.im2col",
        ),
    ),
    Exercise(
        id="05.4",
        grade=_VIT_SPLIT,
        solution=_vit_split,
        wrong=lambda: (20, 10, 5),
        why=(
            "ViT's patch split is a soft split without overlap or padding: kernel P = 20, "
            "stride P = 20, padding 0 cut the same 15 tokens of 400 pixels, in the same order."
        ),
    ),
    Exercise(
        id="05.5",
        grade=_grade_unsoft_split,
        solution=_solution_unsoft_split,
        wrong=lambda: _just_fold,
        why=(
            "nn.Fold adds the overlapping copies of each pixel; folding a tensor of ones counts "
            "the copies, and dividing by that count gives back the pixel."
        ),
        asks="unsoft_split(tokens, h, w, k, s, p)",
        returns=torch.Tensor,
        forbids=("vitexplain.unfold.fold_tokens",),
    ),
]


# --- warm-ups: notebooks 01 and 04 -----------------------------------------------------------


def _mountain_tokens() -> int:
    """Tokens of the 60 x 100 Mountain cut into hard 20 x 20 patches."""
    return patchify(torch.tensor(load_mountains())[None, None], 20).shape[1]


def _offsets_of_7() -> int:
    """Distinct offsets j - i of 7 tokens: the rows of a relative table."""
    return int(relative_index(7).unique().numel())


WARMUPS: list[Exercise] = [
    Exercise(
        id="05.w1",
        grade=ValueSpec(
            kind="int",
            answer=_mountain_tokens(),
            expects="an int",
            rules=(Rule("that is the token length, 20 x 20; how many patches?", equals=400),),
            default="a 60 x 100 picture in 20 x 20 squares: (60 / 20) x (100 / 20) patches.",
        ),
        solution=_mountain_tokens,
        wrong=lambda: 400,
        why="(60 / 20) x (100 / 20) = 3 x 5 = 15 tokens, each of length 20 x 20 = 400.",
    ),
    Exercise(
        id="05.w2",
        grade=ValueSpec(
            kind="int",
            answer=_offsets_of_7(),
            expects="an int",
            rules=(
                Rule("offsets run both ways: j - i from -6 to +6", equals=7),
                Rule("that counts the pairs; many pairs share one offset", equals=49),
            ),
            default="j - i runs from -(L - 1) to L - 1.",
        ),
        solution=_offsets_of_7,
        wrong=lambda: 7,
        why="j - i runs from -6 to +6: 2L - 1 = 13 offsets, one row of the table each.",
    ),
]


# --- predictions -----------------------------------------------------------------------------


def _soft_split_tokens() -> int:
    """Tokens of the soft split k = 20, s = 10, p = 5 of the Mountain, cut by nn.Unfold."""
    x = torch.tensor(load_mountains())[None, None]  # (1, 1, 60, 100)
    return nn.Unfold(20, stride=10, padding=5)(x).shape[-1]


def _padding_in_token_1() -> int:
    """Values of token 1 (k = 20, s = 10, p = 5) that come from the padding."""
    ones = torch.ones(1, 1, 60, 100)  # 1 = picture; the padding is 0
    token = nn.Unfold(20, stride=10, padding=5)(ones)[0, :, 0]  # (400,)
    return int((token == 0).sum())


def _share_in_four_patches() -> float:
    """Share of the Mountain's pixels that lie in exactly four patches (k = 20, s = 10, p = 5)."""
    return float((overlap_count(60, 100, 20, 10, 5) == 4).double().mean())


PREDICTIONS: list[Exercise] = [
    Exercise(
        id="05.p1",
        grade=ValueSpec(
            kind="int",
            answer=_soft_split_tokens(),
            expects="an int",
            rules=(
                Rule(
                    "that is the hard split's count; with stride 10 a new patch starts every "
                    "10 pixels, half a patch on.",
                    equals=15,
                ),
                Rule(
                    "that is without the padding: p = 5 on every side adds a row and a column "
                    "of patches.",
                    equals=45,
                ),
            ),
            default="rows = (60 + 2 p - k) // s + 1, and likewise the columns.",
        ),
        solution=_soft_split_tokens,
        wrong=lambda: 15,
        why=(
            "A common guess is 15, the hard split's count; with stride 10 the patches start half "
            "a patch apart, and the padding adds a row and a column: 6 x 10 = 60."
        ),
    ),
    Exercise(
        id="05.p2",
        grade=ValueSpec(
            kind="int",
            answer=_padding_in_token_1(),
            expects="an int",
            rules=(
                Rule(
                    "the first five columns are padding too: 5 x 20 from the rows above, and "
                    "5 in each of the 15 rows below them.",
                    equals=100,
                ),
                Rule(
                    "the 5 x 5 corner lies in both the padded rows and the padded columns: "
                    "count it once.",
                    equals=200,
                ),
            ),
            default="the patch is 20 x 20; its picture part is 15 x 15.",
        ),
        solution=_padding_in_token_1,
        wrong=lambda: 100,
        why=(
            "A common guess counts only the five padded rows (100) or counts the corner twice "
            "(200); the picture fills 15 x 15 of the 20 x 20 patch: 400 - 225 = 175."
        ),
    ),
    Exercise(
        id="05.p3",
        grade=ValueSpec(
            kind="number",
            answer=_share_in_four_patches(),
            expects="a share between 0 and 1 (or a percentage)",
            tol=0.1,
            percent=True,
            rules=(
                Rule(
                    "more: with stride 10 and kernel 20 each patch overlaps half of each "
                    "neighbour, so an inner pixel lies in 2 patches along each axis: 2 x 2 = 4.",
                    high=0.4,
                ),
            ),
            default="only the pixels near the border lie in fewer than four patches.",
        ),
        solution=_share_in_four_patches,
        wrong=lambda: 0.1,
        why=(
            "A common guess is that only the overlaps' corners lie in four patches; but the "
            "patches overlap by half, so every pixel but a border strip does: 75 %."
        ),
    ),
]
