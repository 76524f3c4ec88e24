"""Exercises of notebook 09: which explanation is right?"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..attribution import (
    MAP_NAMES,
    MARKER_CLASS,
    add_marker,
    area_under_curve,
    attention_and_gradients,
    explanation_maps,
    gradient_rollout,
    input_x_gradient,
    load_marked_digits_vit,
    marker_ranks,
    order_by,
    perturbation_curves,
    random_orders,
    randomized_from_top,
)
from ..digits import load_digit_split, load_trained_digits_vit
from ..inspection import attention_maps
from ..interpret import attention_rollout, logit_lens, rank_correlation
from ._rules import ChoiceSpec, Exercise, Rule, ValueSpec, close

__all__ = ["EXERCISES", "PREDICTIONS", "WARMUPS"]


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


# --- warm-ups: notebooks 06 and 08 ----------------------------------------------------------


def _digits_vit_tokens() -> int:
    """The tokens each block of the shipped digits ViT attends over, read from its attention."""
    model = load_trained_digits_vit()
    images = load_digit_split()[2][:1]  # (1, 1, 8, 8): one test picture
    return int(attention_maps(model, images)[0].shape[-1])  # (1, h, N, N)


def _logit_lens_first_block_above_09() -> int:
    """The first block (1-based) after which the logit lens reads more than 0.9 of the 397 test
    pictures right."""
    model = load_trained_digits_vit()
    _, _, images, labels = load_digit_split()
    right = logit_lens(model, images).argmax(-1) == labels[:, None]  # (397, depth)
    accuracy = right.double().mean(0)  # (depth,)
    return int((accuracy > 0.9).nonzero()[0, 0]) + 1


WARMUPS: list[Exercise] = [
    Exercise(
        id="09.w1",
        grade=ValueSpec(
            kind="int",
            answer=(8 // 2) ** 2 + 1,  # a 4 x 4 grid of patches, and the class token
            expects="an int (a number of tokens)",
            rules=(
                Rule("the class token is a token too: every block attends over it", equals=16),
                Rule("4 is the number of pixels in one 2 x 2 patch: count the patches", equals=4),
                Rule("a token is a 2 x 2 patch, not a pixel: count the patches", low=64, high=65),
            ),
            default="cut the 8 x 8 picture into 2 x 2 patches, count them, add the class token",
        ),
        solution=_digits_vit_tokens,
        wrong=lambda: 16,
        why=(
            "17: an 8 x 8 picture cut into 2 x 2 patches makes a 4 x 4 grid, 16 patch tokens, "
            "and the class token is the 17th."
        ),
    ),
    Exercise(
        id="09.w2",
        grade=ValueSpec(
            kind="int",
            answer=2,  # by _logit_lens_first_block_above_09 (it loads the model: not at import)
            expects="an int (a block, 1 to 4)",
            rules=(
                Rule("the digits ViT has 4 blocks", low=1, high=4, outside=True),
                Rule(
                    "the head reads the class token only after block 4, but the answer is there "
                    "earlier: read it after each block",
                    equals=4,
                ),
                Rule(
                    "after block 1 the head reads about two thirds of the pictures right: the "
                    "class is not yet written where the head reads",
                    equals=1,
                ),
            ),
            default="read the class token after each block through the final norm and head",
        ),
        solution=_logit_lens_first_block_above_09,
        wrong=lambda: 4,
        why=(
            "After block 2: the logit lens read 0.65 of the test pictures right after block 1 and "
            "0.97 after block 2, long before the head reads the class token after block 4."
        ),
    ),
]


# --- predictions -----------------------------------------------------------------------------


def _gradient_maps_agree() -> str:
    """Mean rank correlation of gradient rollout and input x gradient over the test pictures:
    "a" above 0.2, "b" between -0.2 and 0.2, "c" below -0.2."""
    model = load_trained_digits_vit()
    images = load_digit_split()[2]
    with torch.no_grad():
        predicted = model(images).argmax(-1)  # (397,): the class the maps explain
    maps, grads = attention_and_gradients(model, images, predicted)  # explanation_maps' own
    pixels = input_x_gradient(model, images, predicted, 2)  # (397, 16)
    r = float(rank_correlation(gradient_rollout(maps, grads), pixels).mean())
    return "a" if r > 0.2 else "c" if r < -0.2 else "b"


def _first_to_find_the_marker() -> str:
    """The letter of the map (in the order of MAP_NAMES) that ranks the marker patch first in
    the most marked test 3s, in the shipped marker model (seed 0)."""
    model = load_marked_digits_vit()
    _, _, images, labels = load_digit_split()
    marked = add_marker(images[labels == MARKER_CLASS])  # (33, 1, 8, 8)
    target = torch.full((len(marked),), MARKER_CLASS)
    maps = explanation_maps(model, marked, target)
    firsts = [int((marker_ranks(maps[name]) == 1).sum()) for name in MAP_NAMES]
    return "abcdef"[firsts.index(max(firsts))]


def _gradient_rollout_beats_random() -> bool:
    """With a black fill, is gradient rollout's mean deletion area over the 397 test pictures
    below a random order's (lower: the probability falls faster)?"""
    model = load_trained_digits_vit()
    images = load_digit_split()[2]
    with torch.no_grad():
        predicted = model(images).argmax(-1)  # (397,)
    maps, grads = attention_and_gradients(model, images, predicted)  # explanation_maps' own
    orders = {
        "gradient rollout": order_by(gradient_rollout(maps, grads)),
        "random": random_orders(len(images), 16, seed=0),
    }
    area = {}
    for name, order in orders.items():  # (397, 16): patches, most important first
        curves = perturbation_curves(model, images, order, 0.0, "deletion", predicted)
        area[name] = float(area_under_curve(curves).mean())  # curves: (397, 17)
    return area["gradient rollout"] < area["random"]


def _rollout_with_block_1_alone() -> str:
    """Mean rank correlation of rollout on the trained model and on the model whose head and
    blocks 4, 3 and 2 are re-drawn, first 80 test pictures: "a" below 0.2, "b" up to 0.5, "c"
    above."""
    model = load_trained_digits_vit()
    images = load_digit_split()[2][:80]
    label, block_1_alone = randomized_from_top(model, seed=0)[4]
    if label != "+ block 2":
        raise RuntimeError(f"step 4 re-draws {label!r}, not block 2")
    before = attention_rollout(attention_maps(model, images))[:, 0, 1:]  # (80, 16)
    after = attention_rollout(attention_maps(block_1_alone, images))[:, 0, 1:]
    r = float(rank_correlation(before, after).mean())
    return "c" if r > 0.5 else "a" if r < 0.2 else "b"


PREDICTIONS: list[Exercise] = [
    Exercise(
        id="09.p1",
        grade=ChoiceSpec(
            answer="c",
            options=(
                "above 0.2: they rank the patches in much the same order",
                "between −0.2 and 0.2: unrelated orders",
                "below −0.2: nearly opposite orders",
            ),
            rules=(
                Rule(
                    "sharing the logit's gradient does not make two maps agree: one weighs the "
                    "attention weights with it, the other the pixels, and their orders run "
                    "against each other.",
                    equals="a",
                ),
                Rule(
                    "further: the two orders are not merely unrelated, one runs against the other.",
                    equals="b",
                ),
            ),
            default="compare what each multiplies the gradient with.",
        ),
        solution=_gradient_maps_agree,
        wrong=lambda: "a",
        why=(
            "Many expect two class-specific maps built on the same logit's gradient to agree; "
            "but one weighs attention weights, the other pixels: their mean rank correlation is "
            "about -0.3, nearly opposite orders."
        ),
    ),
    Exercise(
        id="09.p2",
        grade=ChoiceSpec(
            answer="e",
            # the six maps, in their order, as the prompt writes them
            options=tuple(name.replace(" x ", " × ") for name in MAP_NAMES),
            rules=(
                Rule(
                    "rollout shows where information flows, and it favours that corner even "
                    "without the marker; one bright pixel hardly moves the attention.",
                    equals="b",
                ),
                Rule(
                    "attention flow follows the narrowest cut of the attention graph, and one "
                    "bright pixel hardly moves the attention: it never ranks the marker first.",
                    equals="c",
                ),
                Rule(
                    "gradient rollout beats chance, but another map asks the model the question "
                    "directly.",
                    equals="d",
                ),
            ),
            default="which map changes the picture and watches the answer?",
        ),
        solution=_first_to_find_the_marker,
        wrong=lambda: "b",
        why=(
            "Many expect an attention map, rollout or attention flow, to find what the model "
            "uses; but a single pixel hardly moves the attention, while occlusion hides the "
            "patch and asks the model: it ranks the marker first in 31 to 33 of the 33 3s."
        ),
    ),
    Exercise(
        id="09.p3",
        grade=ValueSpec(
            kind="bool",
            answer=False,  # by _gradient_rollout_beats_random (6,749 forward passes a curve)
            expects="True or False",
            rules=(
                Rule(
                    "beating chance on the marker does not carry over: a black patch cut into "
                    "a digit is a picture the model never saw, and the test measures that too.",
                    equals=True,
                ),
            ),
            default="a black patch cut into a digit's strokes is a picture the model never saw.",
        ),
        solution=_gradient_rollout_beats_random,
        wrong=lambda: True,
        why=(
            "Many expect a map that found the marker above chance to beat a random order; but "
            "with black holes in the strokes gradient rollout does worse than random (deletion "
            "area 0.43 against 0.38): the fill decides the verdict."
        ),
    ),
    Exercise(
        id="09.p4",
        grade=ChoiceSpec(
            answer="c",
            options=(
                "below 0.2: three of the four blocks are random now",
                "between 0.2 and 0.5",
                "above 0.5",
            ),
            rules=(
                Rule(
                    "rollout multiplies every block's attention with the identity added, and the "
                    "trained block 1 still shapes that product: the map keeps much of it.",
                    equals="a",
                ),
            ),
            default="which block's attention does rollout's product lean on?",
        ),
        solution=_rollout_with_block_1_alone,
        wrong=lambda: "a",
        why=(
            "Many expect a map of a model with three random blocks to be random too; but "
            "rollout keeps a rank correlation of about 0.6 with the trained model's until block "
            "1 goes: it mostly shows what the early blocks do, not what decides the class."
        ),
    ),
]
