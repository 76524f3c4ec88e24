"""Exercises of notebook 08: a ViT trained on the digits, rollout and occlusion."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import torch

from ..digits import DIGITS_VIT_CONFIG, load_digit_split, load_trained_digits_vit
from ..inspection import attention_maps
from ..interpret import (
    attention_rollout,
    logit_lens,
    mean_attention_distance,
    occlusion_map,
    rank_correlation,
)
from ..vit import ViT
from ._rules import ChoiceSpec, Exercise, Rule, ValueSpec, close

__all__ = ["EXERCISES", "PREDICTIONS", "WARMUPS"]


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
    return _mean(_agreement(residual=False))


# Shipped: computing them takes seconds (every map of the test set); a test recomputes them.
_MEAN_WITHOUT_RESIDUAL = 0.10365828677609322
_MEDIAN_WITHOUT_RESIDUAL = 0.11209488298538492
_MEAN_WITH_RESIDUAL = 0.2303493632922294
_AGREEMENT = ValueSpec(
    kind="number",
    answer=_MEAN_WITHOUT_RESIDUAL,
    expects="a number (a mean rank correlation)",
    tol=0.0051,  # the mean rounded to 2 decimals, or any closer value
    rules=(
        Rule("a rank correlation lies between -1 and 1", low=-1, high=1, outside=True),
        Rule(
            "that is the agreement with the identity added: call rollout with residual=False",
            equals=_MEAN_WITH_RESIDUAL,
            tol=0.006,
        ),
        Rule(  # only closer to the median than 2 decimals: 0.11 may be a mean rounded up too
            "that is the median over the test set; the task asks for the mean",
            equals=_MEDIAN_WITHOUT_RESIDUAL,
            tol=0.0015,
        ),
    ),
    default=(
        "compute rollout with residual=False, take the class token's row over the 16 "
        "patches, and average its rank correlation with the occlusion maps over the test set"
    ),
)


# 08.2 -- find: the test picture whose occlusion map and rollout disagree most


def _most_disagreeing() -> int:
    agreement = _agreement(residual=True)
    return agreement.index(min(agreement))


_MOST_DISAGREEING = ValueSpec(
    kind="int",
    answer=34,  # shipped (a test recomputes it)
    expects="an index into the test set (an int)",
    rules=(
        Rule("the test set holds 397 pictures, indices 0 to 396", low=0, high=396, outside=True),
    ),
    default="rank every test picture by the correlation of its two maps; take the lowest",
)


# 08.3 -- write a function: attention rollout from scratch


def _solution_rollout() -> Callable[[list[torch.Tensor]], torch.Tensor]:
    def my_rollout(maps):
        """A list of (B, h, N, N) maps, first block first -> (B, N, N) rollout."""
        n = maps[0].shape[-1]
        result = torch.eye(n, dtype=maps[0].dtype).expand(maps[0].shape[0], n, n)
        for weights in maps:  # first block first
            a = weights.mean(dim=1) + torch.eye(n, dtype=weights.dtype)  # heads averaged, + I
            a = a / a.sum(dim=-1, keepdim=True)  # rows sum to 1
            result = a @ result  # the later block on the left
        return result  # (B, N, N)

    return my_rollout


def _grade_rollout(answer) -> str | None:
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
        if close(got, expected):
            continue
        if close(got, attention_rollout(maps, residual=False)):
            return "the residual connection is missing: add the identity to each averaged map"
        reversed_order = attention_rollout(maps[::-1])
        if depth > 1 and close(got, reversed_order):
            return "the product runs the other way: the later block goes on the left"
        return "average the heads, add the identity, renormalise each row, then multiply"
    return None


def _wrong_rollout() -> Callable[[list[torch.Tensor]], torch.Tensor]:
    def no_residual(maps: list[torch.Tensor]) -> torch.Tensor:
        return attention_rollout(maps, residual=False)

    return no_residual


EXERCISES: list[Exercise] = [
    Exercise(
        id="08.1",
        grade=_AGREEMENT,
        solution=_agreement_without_residual,
        wrong=lambda: 0.99,
        why=(
            "Without the identity, rollout multiplies the raw attention maps, which blur into "
            "near-uniform rows after a few blocks: the mean rank correlation with occlusion "
            "falls from about 0.23 to 0.10."
        ),
    ),
    Exercise(
        id="08.2",
        grade=_MOST_DISAGREEING,
        solution=_most_disagreeing,
        wrong=lambda: 0,
        why=(
            "Compute the rank correlation of rollout and occlusion for every test picture and "
            "take the index of the smallest: picture 34."
        ),
    ),
    Exercise(
        id="08.3",
        grade=_grade_rollout,
        solution=_solution_rollout,
        wrong=_wrong_rollout,
        why=(
            "Per block: average the heads, add the identity for the residual stream, "
            "renormalise the rows; then multiply the blocks, the later one on the left."
        ),
        asks="my_rollout(maps)",
        returns=torch.Tensor,
        forbids=("vitexplain.interpret.attention_rollout",),
    ),
]


# --- warm-ups: notebooks 06 and 07 -----------------------------------------------------------


def _trainable(pos_embed: str) -> dict[str, int]:
    """Trainable numbers of this notebook's ViT, per top-level part: built on `meta`."""
    with torch.device("meta"):
        model = ViT(**DIGITS_VIT_CONFIG, pos_embed=pos_embed)
    counts: dict[str, int] = {}
    for name, parameter in model.named_parameters():
        part = name.split(".")[0]
        counts[part] = counts.get(part, 0) + parameter.numel()
    return counts


def _patch_embedding_numbers() -> int:
    """Trainable numbers of the patch embedding: 2 x 2 grey patches into D = 64 channels."""
    return _trainable("learned")["patch_embed"]


def _learned_table_numbers() -> int:
    """Trainable numbers the learned position table adds to this notebook's ViT."""
    return sum(_trainable("learned").values()) - sum(_trainable("none").values())


WARMUPS: list[Exercise] = [
    Exercise(
        id="08.w1",
        grade=ValueSpec(
            kind="int",
            answer=_patch_embedding_numbers(),
            expects="an int (a number of parameters)",
            rules=(
                Rule("the bias adds one number per channel", equals=4 * 64),
                Rule(
                    "one linear map serves all 16 patches: the count does not grow with them",
                    equals=16 * (4 * 64 + 64),
                ),
                Rule(
                    "one linear map serves all 16 patches, and the bias adds one number per "
                    "channel",
                    equals=16 * 4 * 64,
                ),
            ),
            default="a token of C P² = 4 values goes to D = 64 channels: a weight matrix, a bias",
        ),
        solution=_patch_embedding_numbers,
        wrong=lambda: 16 * (4 * 64 + 64),
        why=(
            "A 2 x 2 grey patch holds 4 values; the map to 64 channels has a 64 x 4 weight and 64 "
            "biases, 320 numbers, shared by all 16 patches."
        ),
    ),
    Exercise(
        id="08.w2",
        grade=ValueSpec(
            kind="int",
            answer=_learned_table_numbers(),
            expects="an int (a number of parameters)",
            rules=(
                Rule("close: the class token has a row of the table too", equals=16 * 64),
                Rule("a learned table trains every one of its entries", equals=0),
            ),
            default="one row of D = 64 numbers per token; how many tokens enter the blocks?",
        ),
        solution=_learned_table_numbers,
        wrong=lambda: 16 * 64,
        why=(
            "(8 / 2)² = 16 patch tokens and the class token: 17 rows of 64 numbers, 1,088 "
            "trainable numbers (a sin-cos table would train none)."
        ),
    ),
]


# --- predictions -----------------------------------------------------------------------------


def _accuracy_without_position() -> float:
    """Test accuracy of the shipped ViT trained without a position table."""
    model = load_trained_digits_vit("none")
    _, _, test_images, test_labels = load_digit_split()
    with torch.no_grad():
        return float((model(test_images).argmax(-1) == test_labels).double().mean())


def _without_position() -> str:
    """Where the ViT without position lands: "a" near chance (below 0.45), "c" level with the
    model with position (above 0.9), "b" in between."""
    accuracy = _accuracy_without_position()
    return "a" if accuracy < 0.45 else "c" if accuracy > 0.9 else "b"


def _shipped_float64() -> tuple[ViT, torch.Tensor, torch.Tensor]:
    """The shipped model and the test pictures in float64, as section 3 of the notebook."""
    _, _, test_images, test_labels = load_digit_split()
    return load_trained_digits_vit().double(), test_images.double(), test_labels


def _read_after_block_2() -> float:
    """Share of the test pictures the logit lens reads right after block 2 of 4."""
    model, images, labels = _shipped_float64()
    lens = logit_lens(model, images)  # (397, 4 blocks, 10 classes)
    return float((lens[:, 1].argmax(-1) == labels).double().mean())


def _shortest_head_reach() -> float:
    """The smallest mean attention distance, in pixels, of the 16 heads (4 blocks x 4)."""
    model, images, _ = _shipped_float64()
    distances = mean_attention_distance(attention_maps(model, images), (4, 4), patch_size=2)
    return float(distances.min())  # (4 blocks, 4 heads) -> one number


def _best_guide_to_occlusion() -> str:
    """Of the four predictors of section 6, the letter of the one whose mean rank correlation
    with the occlusion maps is highest."""
    maps, uses = _maps_and_occlusion()  # uses: (397, 4, 4)
    looks = attention_rollout(list(maps))[:, 0, 1:].reshape(-1, 4, 4)  # (397, 4, 4)
    images = load_digit_split()[2].double()  # (397, 1, 8, 8)
    ink = images.unfold(2, 2, 2).unfold(3, 2, 2).sum((-1, -2))[:, 0]  # (397, 4, 4)
    predictors = {
        "a": looks,  # the same picture's rollout
        "b": looks[torch.roll(torch.arange(len(looks)), 1)],  # the next picture's
        "c": looks.mean(0).expand_as(looks),  # one map for all
        "d": ink,
    }
    agreement = {k: float(rank_correlation(p, uses).mean()) for k, p in predictors.items()}
    return max(agreement, key=agreement.get)


PREDICTIONS: list[Exercise] = [
    Exercise(
        id="08.p1",
        grade=ChoiceSpec(
            answer="b",  # by _without_position (a test recomputes it)
            options=(
                "near chance, below 0.45",
                "well above chance but well below the model with position, 0.45 to 0.9",
                "about as high as with position, above 0.9",
            ),
            rules=(
                Rule(
                    "a bag of sixteen 2 x 2 pieces still says much about a digit: which pieces "
                    "of stroke it holds, and how many; only the order is lost.",
                    equals="a",
                ),
                Rule(
                    "position matters here: many digits are made of the same pieces of stroke "
                    "in other places, and without position the model cannot tell them apart.",
                    equals="c",
                ),
            ),
            default="what does a bag of sixteen 2 x 2 pieces of stroke still tell about a digit?",
        ),
        solution=_without_position,
        wrong=lambda: "a",
        why=(
            "Many expect chance, since a model without position sees a bag of patches; but the "
            "bag still says which pieces of stroke a digit holds: 0.695, far above 0.1 and far "
            "below 0.99."
        ),
    ),
    Exercise(
        id="08.p2",
        grade=ValueSpec(
            kind="number",
            answer=385 / 397,  # by _read_after_block_2 (a test recomputes it)
            expects="a share between 0 and 1 (or a percentage)",
            tol=0.05,
            percent=True,
            rules=(
                Rule("a share lies between 0 and 1", low=0, high=1, outside=True),
                Rule(
                    "more: half-way through the blocks, the class token already holds the "
                    "answer for nearly every picture.",
                    high=0.9,
                ),
            ),
            default="compare with the full model's 0.99: how much do the last two blocks add?",
        ),
        solution=_read_after_block_2,
        wrong=lambda: 0.5,
        why=(
            "Many expect the answer to form gradually, half-way after half the blocks; but read "
            "after block 2 the class token already gets 0.97 of the pictures right (0.65 after "
            "block 1), nearly the full model's 0.99."
        ),
    ),
    Exercise(
        id="08.p3",
        grade=ValueSpec(
            kind="number",
            answer=3.814080008713192,  # by _shortest_head_reach (a test recomputes it)
            expects="a number (a distance in pixels)",
            tol=0.4,
            rules=(
                Rule(
                    "a mean distance lies between 0 and the farthest pair of patches, 8.49 px",
                    low=0,
                    high=8.49,
                    outside=True,
                ),
                Rule(
                    "no head of this model is local: the paper's local heads read 224 x 224 "
                    "pictures; on a 4 x 4 grid every head reaches about as far as uniform "
                    "attention.",
                    high=2.5,
                ),
            ),
            default="compare with uniform attention's 4.02 px: how far below it does a head go?",
        ),
        solution=_shortest_head_reach,
        wrong=lambda: 1.5,
        why=(
            "Many expect local heads in the first blocks, as in the paper's Figure 7; but every "
            "head of this model reaches about as far as uniform attention (4.02 px): the "
            "shortest mean distance is 3.81 px."
        ),
    ),
    Exercise(
        id="08.p4",
        grade=ChoiceSpec(
            answer="d",  # by _best_guide_to_occlusion (a test recomputes it)
            options=(
                "the rollout map of the same picture",
                "the rollout map of another picture",
                "the mean rollout map of the test set, one map for all",
                "the ink in each patch",
            ),
            rules=(
                Rule(
                    "a picture's own rollout agrees least of the four: what it adds to the mean "
                    "map moves it away from what the answer needs.",
                    equals="a",
                ),
                Rule(
                    "another picture's rollout does beat the picture's own, but the mean map and "
                    "a predictor with no model in it do better still.",
                    equals="b",
                ),
                Rule(
                    "close: the one mean map agrees better than either rollout, but a predictor "
                    "with no model in it does better still.",
                    equals="c",
                ),
            ),
            default="which of the four needs no model at all?",
        ),
        solution=_best_guide_to_occlusion,
        wrong=lambda: "a",
        why=(
            "Most expect a picture's own rollout to agree best; it agrees least (+0.23), below "
            "another picture's (+0.34) and the mean map (+0.54), and the ink in each patch, with "
            "no model in it, agrees most (+0.62)."
        ),
    ),
]
