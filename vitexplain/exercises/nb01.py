"""Exercises of notebook 01: patch tokenization."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from einops import rearrange

from ..data import load_mountains
from ..patches import patchify
from ._rules import ChoiceSpec, Exercise, Rule, ValueSpec, close

__all__ = ["EXERCISES", "PREDICTIONS"]


# 01.1 -- predict: tokens of an RGB 224 x 224 image with P = 16


def _tokens_rgb224() -> tuple[int, int]:
    tokens = patchify(torch.zeros(1, 3, 224, 224), 16)  # (1, N, C*P*P)
    return int(tokens.shape[1]), int(tokens.shape[2])


_TOKENS_RGB224 = ValueSpec(
    kind="int_tuple",
    answer=((224 // 16) ** 2, 3 * 16 * 16),
    expects="a pair of ints (number of tokens, token length)",
    rules=(
        Rule(
            "the two numbers are swapped: the pair is (number of tokens, token length)",
            equals=(3 * 16 * 16, (224 // 16) ** 2),
        ),
        Rule(
            "the number of tokens is (patches along the height) * (patches along the width)",
            item=0,
        ),
        Rule("a token holds every value of its patch: all P * P pixels of every channel", item=1),
    ),
    default="count the patches, then the numbers in one patch",
)


# 01.2 -- change something: turn the Mountain upside down; where is the moon now?


def _moon_token_flipped() -> int:
    flipped = np.flipud(load_mountains()).copy()  # (60, 100): top row is now the foreground
    tokens = patchify(torch.as_tensor(flipped)[None, None], 20)[0]  # (15, 400)
    return int(tokens.mean(dim=1).argmax()) + 1  # the brightest token holds the moon, 1-based


_BRIGHTEST_PIXELS = (
    "tokens 12, 13 and 14 all hold pixels of the brightest grey (1.0): the moon is the patch "
    "that is brightest over all its pixels (the highest mean)"
)
_MOON_TOKEN_FLIPPED = ValueSpec(
    kind="int",
    answer=13,
    expects="a 1-based token number (an int)",
    rules=(
        Rule("the 3 x 5 grid has tokens 1 to 15", low=1, high=15, outside=True),
        Rule(
            "that is where the moon was: after the flip its patch is in another grid row",
            equals=3,
        ),
        Rule(_BRIGHTEST_PIXELS, equals=12),
        Rule(_BRIGHTEST_PIXELS, equals=14),
    ),
    default="a vertical flip keeps the grid column and moves the grid row; count row by row",
)


# 01.3 -- change something: where does one pixel land with the other feature order?


def _pixel_positions() -> tuple[int, int]:
    patch = torch.arange(3 * 16 * 16).view(1, 3, 16, 16)  # one RGB 16 x 16 patch, values 0..767
    pixel = int(patch[0, 1, 1, 2])  # green channel (c = 1), row 1, column 2
    torch_order = patchify(patch, 16)[0, 0]  # (768,): (c, p1, p2), the package's and timm's
    jax_order = rearrange(patch, "b c p1 p2 -> b (p1 p2 c)")[0]  # (768,): JAX's / einops'
    return int((torch_order == pixel).nonzero()), int((jax_order == pixel).nonzero())


_PIXEL_POSITIONS = ValueSpec(
    kind="int_tuple",
    answer=(1 * 256 + 1 * 16 + 2, (1 * 16 + 2) * 3 + 1),
    expects="a pair of ints (position in (c, p1, p2) order, position in (p1, p2, c) order)",
    rules=(
        Rule(
            "the two positions are swapped: the first is the (c, p1, p2) order",
            equals=((1 * 16 + 2) * 3 + 1, 1 * 256 + 1 * 16 + 2),
        ),
        Rule("in (c, p1, p2) order the whole red channel (16 * 16 values) comes first", item=0),
        Rule(
            "in (p1, p2, c) order each pixel's 3 channels sit side by side; count pixels first",
            item=1,
        ),
    ),
    default="count the values that come before the pixel in each order",
)


# 01.4 -- write a function: patchify for one (H, W) array


def _reference_patchify_2d(image: np.ndarray, patch_size: int) -> np.ndarray:
    """Loops over the grid, row-major: the definition."""
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    return np.stack(
        [
            image[
                r * patch_size : (r + 1) * patch_size, c * patch_size : (c + 1) * patch_size
            ].reshape(-1)  # (P*P,): the patch row by row
            for r in range(rows)
            for c in range(cols)
        ]
    )  # (N, P*P)


def _solution_patchify_2d() -> Callable[[np.ndarray, int], np.ndarray]:
    def patchify_2d(image, patch_size):
        """(H, W) array -> (N, P * P) array."""
        image = np.asarray(image)
        rows, cols, p = image.shape[0] // patch_size, image.shape[1] // patch_size, patch_size
        grid = image.reshape(rows, p, cols, p)  # (grid row, pixel row, grid column, pixel column)
        return grid.transpose(0, 2, 1, 3).reshape(rows * cols, p * p)  # (N, P*P), row-major

    return patchify_2d


def _grade_patchify_2d(answer) -> str | None:
    rng = np.random.default_rng(1)
    cases = [(load_mountains(), 20), (load_mountains(), 4), (rng.random((6, 9)), 3)]
    cases.append((np.arange(8 * 4, dtype=float).reshape(8, 4), 2))
    for image, size in cases:
        result = answer(image, size)  # an ndarray (a tensor is converted)
        expected = _reference_patchify_2d(image, size)
        if result.shape != expected.shape:
            return (
                f"for a {image.shape[0]} x {image.shape[1]} image and P = {size} the result "
                f"should have shape (N, P * P) = {expected.shape}, got {result.shape}"
            )
        if not close(result, expected):
            if close(np.sort(result, axis=None), np.sort(expected, axis=None)):
                return (
                    f"right values, wrong order (image {image.shape}, P = {size}): patches go "
                    "left to right, then top to bottom, each read row by row"
                )
            return f"wrong values for a {image.shape} image with P = {size}"
    return None


def _wrong_patchify_2d() -> Callable[[np.ndarray, int], np.ndarray]:
    def column_major(image: np.ndarray, patch_size: int) -> np.ndarray:
        return _reference_patchify_2d(np.asarray(image).T, patch_size)  # patches transposed

    return column_major


EXERCISES: list[Exercise] = [
    Exercise(
        id="01.1",
        grade=_TOKENS_RGB224,
        solution=_tokens_rgb224,
        wrong=lambda: (196, 256),
        why=(
            "224 / 16 = 14 patches along each side make 14 * 14 = 196 tokens; each token holds "
            "every value of its patch, 3 channels * 16 * 16 pixels = 768 numbers."
        ),
    ),
    Exercise(
        id="01.2",
        grade=_MOON_TOKEN_FLIPPED,
        solution=_moon_token_flipped,
        wrong=lambda: 3,
        why=(
            "The moon sits in token 3 (grid row 1, column 3). A vertical flip keeps the column "
            "and sends grid row 1 of 3 to row 3: token 2 * 5 + 3 = 13, the token with the "
            "highest mean grey."
        ),
    ),
    Exercise(
        id="01.3",
        grade=_PIXEL_POSITIONS,
        solution=_pixel_positions,
        wrong=lambda: (18, 18),
        why=(
            "In (c, p1, p2) order the red channel's 256 values come first, then row 1 of green "
            "(16 values), then column 2: 256 + 16 + 2 = 274. In (p1, p2, c) order pixel "
            "(1, 2) is the 18th pixel, each with 3 channels before it: 18 * 3 + 1 = 55."
        ),
    ),
    Exercise(
        id="01.4",
        grade=_grade_patchify_2d,
        solution=_solution_patchify_2d,
        wrong=_wrong_patchify_2d,
        why=(
            "Reshape (H, W) to (rows, P, cols, P), bring the two grid axes to the front, and "
            "flatten: each patch row by row, the patches in row-major order, no loop."
        ),
        asks="patchify_2d(image, patch_size)",
        returns=np.ndarray,
        forbids=(
            "vitexplain.patches.patchify",
            "vitexplain.patches.patchify_by_slicing",
            "vitexplain.patches.patchify_by_conv",
        ),
    ),
]


# --- predictions: the learner's guess before a cell shows the result --------------------------


def _pixel_token_scores() -> int:
    """Attention scores per layer if each pixel of a 224 x 224 picture were a token."""
    tokens = patchify(torch.zeros(1, 1, 224, 224), 1).shape[1]  # one token per pixel: 50,176
    return tokens**2


def _shuffled_pixels_option() -> str:
    """Shuffle the 400 inputs of every token: "a" same embeddings, "b" the same only with E's
    rows shuffled alike, "c" never the same (as notebook 01, section 7, computes)."""
    torch.manual_seed(0)
    proj = torch.nn.Linear(400, 768)
    tokens = patchify(torch.tensor(load_mountains(), dtype=torch.float32)[None, None], 20)
    shuffle = torch.randperm(400, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        z = proj(tokens)  # (1, 15, 768)
        same = torch.allclose(proj(tokens[..., shuffle]), z, atol=1e-5)
        E = proj.weight.T  # (400, 768)
        alike = torch.allclose(tokens[..., shuffle] @ E[shuffle] + proj.bias, z, atol=1e-5)
    return "a" if same else "b" if alike else "c"


def _fitting_patch_sizes() -> int:
    """How many patch sizes 1 ... 60 cut the 60 x 100 picture without leftovers."""
    height, width = load_mountains().shape
    return sum(height % p == 0 and width % p == 0 for p in range(1, min(height, width) + 1))


PREDICTIONS: list[Exercise] = [
    Exercise(
        id="01.p1",
        grade=ValueSpec(
            kind="number",
            answer=_pixel_token_scores(),
            expects="a number",
            rel=0.65,
            rules=(
                Rule(
                    "about 50,000 is the number of tokens; attention scores every pair of "
                    "tokens, N² of them: 50,176² = 2.5 billion per layer.",
                    low=1e4,
                    high=1e6,
                ),
            ),
            default="attention scores every pair of tokens: N² = 50,176² = 2.5 billion.",
        ),
        solution=_pixel_token_scores,
        wrong=lambda: 50_176,
        why=(
            "The common guess is the number of pixels, about 50,000; but attention scores every "
            "pair of tokens, N² = 2.5 billion per layer: the reason ViT cuts patches first."
        ),
    ),
    Exercise(
        id="01.p2",
        grade=ChoiceSpec(
            answer="b",
            options=(
                "the same embeddings: a sum does not care about the order of its terms",
                "other embeddings, the same again once the rows of E are shuffled alike",
                "other embeddings, whatever is done to E",
            ),
            rules=(
                Rule(
                    "each term x_r E_r pairs pixel r with row r of E; shuffled pixels meet other "
                    "rows, so the embeddings change, until E's rows are shuffled alike.",
                    equals="a",
                ),
            ),
            default=(
                "shuffling E's rows with the same permutation pairs every pixel with its own "
                "row again: the same terms, summed in another order."
            ),
        ),
        solution=_shuffled_pixels_option,
        wrong=lambda: "a",
        why=(
            "Many expect the same embeddings, since a sum ignores order; but each term pairs "
            "pixel r with row r of E, so the pixels alone cannot move: E's rows must move alike."
        ),
    ),
    Exercise(
        id="01.p3",
        grade=ValueSpec(
            kind="int",
            answer=_fitting_patch_sizes(),
            expects="an int",
            rules=(
                Rule(
                    "12 sizes divide 60, but a patch must also divide the width 100: the common "
                    "divisors, those of gcd(60, 100) = 20.",
                    equals=12,
                ),
            ),
            default=(
                "a size fits when it divides both 60 and 100: count the divisors of "
                "gcd(60, 100) = 20."
            ),
        ),
        solution=_fitting_patch_sizes,
        wrong=lambda: 12,
        why=(
            "A common guess counts the divisors of 60 (12 of them) or only 10 and 20; a size "
            "must divide both sides, so the sizes are the divisors of gcd(60, 100) = 20: six."
        ),
    ),
]
