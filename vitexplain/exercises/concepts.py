"""The concept check: 20 multiple-choice questions on the whole series, taken before and after.

Each wrong option is a misconception the series addresses, named; every option points at the
notebook section that addresses it. The items are graded like the predictions, by a
:class:`~._rules.ChoiceSpec` (``vx.exercises.check("cc.03", "b")``); the site's concept page
grades them by the same specs (docs/_js/concepts.js) and keeps the answers in the browser.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._rules import ChoiceSpec, Exercise, Rule

__all__ = ["CONCEPTS", "Concept", "Option", "items", "title"]


@dataclass(frozen=True)
class Option:
    """One option of a question.

    Args:
        text: what the learner reads.
        notebook: the notebook that addresses it, ``"03"``.
        section: that section's heading, exactly as the notebook writes it (without ``## ``).
        misconception: the misconception a wrong option stands for, in a few words; "" for the
            right option.
    """

    text: str
    notebook: str
    section: str
    misconception: str = ""


@dataclass(frozen=True)
class Concept:
    """A question: its stem, its options (lettered a, b, ... in order), the one right option's
    letter, and why it is right (one or two sentences)."""

    id: str
    question: str
    options: tuple[Option, ...]
    answer: str
    why: str

    def spec(self) -> ChoiceSpec:
        """The grading spec: a wrong option's hint names its misconception and its section."""
        rules = tuple(
            Rule(
                f"“{o.misconception}” is a common misconception: notebook {o.notebook}, "
                f"section “{title(o.section)}”, shows why not.",
                equals=letter,
            )
            for letter, o in zip("abcdefgh", self.options, strict=False)
            if o.misconception
        )
        return ChoiceSpec(
            answer=self.answer,
            options=tuple(o.text for o in self.options),
            default="",  # every wrong option has its rule
            rules=rules,
        )


def title(section: str) -> str:
    """A section's heading as a reader sees it: without Markdown's ``*`` and ``$``."""
    return section.replace("*", "").replace("$", "")


def _c(number: int, question: str, answer: str, why: str, *options: Option) -> Concept:
    return Concept(f"cc.{number:02d}", question, options, answer, why)


CONCEPTS: tuple[Concept, ...] = (
    _c(
        1,
        "A ViT cuts an RGB image into 16 × 16 patches. What does one token hold?",
        "b",
        "A token is its patch flattened: every value of every channel, 3 × 16 × 16 = 768.",
        Option(
            "the mean colour of its patch",
            "01",
            "4. One patch becomes one token: token 12",
            "a token is a summary of its patch",
        ),
        Option("all 768 values of its patch, flattened", "01", "3. The maths of the split"),
        Option(
            "its patch's values and the patch's row and column",
            "01",
            "5. The whole picture as a token matrix",
            "a token records where its patch was",
        ),
    ),
    _c(
        2,
        "Do the patches of ViT's split overlap?",
        "a",
        "ViT's split cuts side by side, stride = patch size; T2T's soft split is the one whose "
        "patches overlap (ViT's split is the soft split with s = k, p = 0).",
        Option(
            "no: each pixel is in exactly one patch",
            "05",
            "7. ViT's patch split is a soft split without overlap",
        ),
        Option(
            "yes: neighbouring patches share a border of pixels",
            "01",
            "3. The maths of the split",
            "ViT patches overlap",
        ),
        Option(
            "yes: as in a convolution, a patch slides one pixel at a time",
            "05",
            "2. The soft split, patch by patch",
            "ViT's split slides like a convolution of stride 1",
        ),
    ),
    _c(
        3,
        "The patch size does not divide the image's height. What should a patch split do?",
        "c",
        "A patch size must divide both sides; vitexplain refuses another and says so, instead of "
        "losing pixels quietly.",
        Option(
            "crop the rows that do not fit: nothing of value is lost",
            "01",
            "8. When the patch size does not fit",
            "cropping to fit is harmless",
        ),
        Option(
            "only the width matters, since tokens are read row by row",
            "01",
            "2. The picture",
            "a patch size needs to divide only one side",
        ),
        Option(
            "refuse: P must divide both the height and the width",
            "01",
            "8. When the patch size does not fit",
        ),
    ),
    _c(
        4,
        "PyTorch orders a token's values (c, p1, p2), JAX examples (p1, p2, c). Which is right?",
        "a",
        "Either: the order is a convention; the learnt projection works for any fixed order, as "
        "long as training and use agree.",
        Option(
            "either, if it is always the same: the projection learns for any fixed order",
            "01",
            "7. From patches to embeddings: the linear projection",
        ),
        Option(
            "(c, p1, p2) only: the model needs the channels first to find colours",
            "01",
            "6. Four ways to cut the same tokens",
            "the order inside a token is fixed by the maths",
        ),
        Option(
            "neither matters, even between training and use: a sum ignores order",
            "01",
            "7. From patches to embeddings: the linear projection",
            "the projection ignores the order of its inputs",
        ),
    ),
    _c(
        5,
        "Swap two tokens at the input of one attention layer (no position embedding). The output:",
        "b",
        "Attention is permutation equivariant: the output rows are the same rows, swapped alike.",
        Option(
            "changes: attention weighs tokens by where they sit",
            "02",
            "3. Swap two tokens: a permutation matrix",
            "attention sees token order",
        ),
        Option(
            "is the same rows, swapped the same way",
            "02",
            "3. Swap two tokens: a permutation matrix",
        ),
        Option(
            "is exactly the same, in the same order",
            "02",
            "5. Why equivariance cannot carry position",
            "attention ignores order even in its output rows",
        ),
    ),
    _c(
        6,
        "A ViT without position embedding reads the Mountain and a scrambled copy. Its "
        "predictions:",
        "c",
        "The class token is a weighted sum over all tokens: invariant to their order, so both "
        "pictures get the same prediction.",
        Option(
            "differ, since the scrambled picture looks different",
            "02",
            "4. The same on the Mountain: scrambled patches",
            "attention sees token order",
        ),
        Option(
            "differ once training has taught it the order",
            "02",
            "5. Why equivariance cannot carry position",
            "training can teach attention the order without position",
        ),
        Option(
            "are the same, to float precision",
            "02",
            "4. The same on the Mountain: scrambled patches",
        ),
    ),
    _c(
        7,
        "What does the 1/√d in softmax(QKᵀ/√d)V do?",
        "a",
        "It keeps logits of zero-mean entries at size about 1, so the softmax does not saturate; "
        "the softmax itself makes the weights sum to 1.",
        Option(
            "keeps the logits of zero-mean entries at size about 1",
            "02",
            "1. Attention in one line of maths",
        ),
        Option(
            "makes each row of weights sum to 1",
            "02",
            "1. Attention in one line of maths",
            "the scale normalises the attention weights",
        ),
        Option(
            "prevents saturation for any entries, all positive ones too",
            "02",
            "1. Attention in one line of maths",
            "the scale alone always prevents saturation",
        ),
    ),
    _c(
        8,
        "How are the entries of the sinusoidal position table found?",
        "c",
        "They are sin and cos of ω_i · pos with ω_i = base^(−2i/d): a formula, nothing is trained.",
        Option(
            "trained with the model, like the other weights",
            "03",
            "1. The formula",
            "the sinusoidal table is learned",
        ),
        Option(
            "drawn at random once and then frozen",
            "03",
            "1. The formula",
            "the sinusoidal table is random",
        ),
        Option(
            "computed by a formula: sin and cos of the position at d/2 speeds",
            "03",
            "1. The formula",
        ),
    ),
    _c(
        9,
        "The sinusoidal table turns d/2 clock hands at different speeds. When do all the hands "
        "show the same time again?",
        "b",
        "The ratios of their speeds are irrational: the hands never line up again.",
        Option(
            "after 2π tokens, the turn of the fastest hand",
            "03",
            "5. How long until the clocks repeat?",
            "the table repeats after the fastest clock's turn",
        ),
        Option("never", "03", "5. How long until the clocks repeat?"),
        Option(
            "after the slowest hand's turn, 2π · base^((d−2)/d) tokens",
            "03",
            "5. How long until the clocks repeat?",
            "the table repeats after the slowest clock's turn",
        ),
    ),
    _c(
        10,
        "The dot product of two rows of the sinusoidal table depends on:",
        "a",
        "A shift by k is the same rotation at every position, so the product depends only on k; "
        "being even in k, not on its sign.",
        Option(
            "only the distance between the positions",
            "03",
            "7. Similarity depends only on the offset",
        ),
        Option(
            "the two positions themselves",
            "03",
            "6. A shift is a rotation",
            "similarity depends on absolute position",
        ),
        Option(
            "the offset and its direction (left or right)",
            "03",
            "7. Similarity depends only on the offset",
            "the sinusoidal similarity tells left from right",
        ),
    ),
    _c(
        11,
        "A 1D sinusoidal table numbers the Mountain's 3 × 5 patches 1 to 15. Patches 5 and 6 are:",
        "b",
        "A 1D table calls 5 and 6 neighbours though 5 ends one row and 6 starts the next; a 2D "
        "sin-cos table does not.",
        Option(
            "far apart, as on the grid",
            "03",
            "8. Beyond the articles: a 1D table on a 2D grid",
            "a 1D table knows the 2D grid",
        ),
        Option(
            "neighbours, though they are at opposite ends of the grid",
            "03",
            "8. Beyond the articles: a 1D table on a 2D grid",
        ),
        Option(
            "identical, since the table wraps round at each row",
            "03",
            "5. How long until the clocks repeat?",
            "the table restarts at each row",
        ),
    ),
    _c(
        12,
        "Relative position attention on L tokens needs how many offset vectors?",
        "c",
        "Offsets j − i run from −(L−1) to L−1: 2L − 1 of them, shared by every pair.",
        Option(
            "L², one per pair of tokens",
            "04",
            "1. Where position can enter attention",
            "relative position needs a vector per pair",
        ),
        Option(
            "L, one per token",
            "04",
            "2. Absolute position inside attention",
            "relative position is absolute position by another name",
        ),
        Option("2L − 1, one per offset", "04", "1. Where position can enter attention"),
    ),
    _c(
        13,
        "What does the skew do?",
        "a",
        "It reads the logits per offset, (L, 2L−1), as logits per key, (L, L): a strided view "
        "that copies nothing.",
        Option(
            "turns logits per offset into logits per key, as a view that copies nothing",
            "04",
            "4. The skew, step by step",
        ),
        Option(
            "builds the (L, L, d) tensor of a vector for every pair",
            "04",
            "5. Skew, gather and loop agree — and what they cost",
            "relative attention must build a vector for every pair",
        ),
        Option(
            "adds a learnt bias to each logit",
            "04",
            "4. The skew, step by step",
            "the skew is a learnt correction",
        ),
    ),
    _c(
        14,
        "Move a sequence's content by a few places. With relative position, the attention "
        "weights between tokens that stay in the window:",
        "b",
        "The logits move unchanged (translation equivariance); after the softmax that holds "
        "exactly only where no key enters or leaves the window.",
        Option(
            "move unchanged everywhere, the edges included",
            "04",
            "10. Shift the content: translation equivariance, and its boundary",
            "relative position is exactly shift-equivariant",
        ),
        Option(
            "move unchanged only where no key enters or leaves",
            "04",
            "10. Shift the content: translation equivariance, and its boundary",
        ),
        Option(
            "change everywhere, as with an absolute table",
            "04",
            "9. Relative logits are Toeplitz",
            "relative position depends on where tokens sit",
        ),
    ),
    _c(
        15,
        "T2T's soft split with kernel 20 reads the 60 × 100 Mountain. Compared with a 20 × 20 "
        "patch split it gives:",
        "c",
        "Overlapping patches: 60 of them against 15, each interior pixel in four.",
        Option(
            "the same 15 patches, blurred",
            "05",
            "2. The soft split, patch by patch",
            "a soft split blurs the patches",
        ),
        Option(
            "fewer, larger tokens",
            "05",
            "1. Why a soft split?",
            "a soft split merges patches",
        ),
        Option("more tokens: 60 overlapping patches", "05", "3. The first token, and all sixty"),
    ),
    _c(
        16,
        "What does a ViT's classification head read?",
        "a",
        "The class token, added in front of the patch tokens (175 become 176), after the last "
        "block and the final norm.",
        Option("the class token after the final norm", "06", "1. The model in four lines"),
        Option(
            "the mean of the patch tokens",
            "06",
            "2. A batch through the model, shape by shape",
            "the ViT head averages the patch tokens",
        ),
        Option(
            "the patch token with the highest attention",
            "06",
            "9. Where the trained class token looks",
            "the head reads the most attended patch",
        ),
    ),
    _c(
        17,
        "A tiny ViT without position embedding learns to tell intact from scrambled Mountains. "
        "Trained for 100 times more epochs, it scores:",
        "b",
        "Exactly 50 %: intact and scrambled twins hold the same bag of patches, and without "
        "position a transformer sees only the bag.",
        Option(
            "close to 100 %, given enough epochs",
            "06",
            "8. Why the model without position is at *exactly* 50 %",
            "more epochs make up for missing position",
        ),
        Option(
            "exactly 50 %, however long it trains",
            "06",
            "8. Why the model without position is at *exactly* 50 %",
        ),
        Option(
            "better with a bigger model",
            "06",
            "7. Training two small ViTs on the CPU",
            "a bigger model makes up for missing position",
        ),
    ),
    _c(
        18,
        "The trained class token attends most to the moon's patch. Replace the moon by sky:",
        "c",
        "No verdict changes: where a model looks is not what it uses; only an intervention "
        "tells them apart.",
        Option(
            "most verdicts flip, since the model looks at the moon",
            "06",
            "10. Where the model looks is not what it uses",
            "attention is what the model uses",
        ),
        Option(
            "the attention map tells in advance which verdicts flip",
            "06",
            "9. Where the trained class token looks",
            "an attention map predicts the effect of an edit",
        ),
        Option("no verdict changes", "06", "10. Where the model looks is not what it uses"),
    ),
    _c(
        19,
        "A ViT learns its position table on the scramble task. The table:",
        "a",
        "It learns the task but grows no grid; a task that asks every patch for its place makes "
        "the table a grid.",
        Option(
            "holds no grid: the task needs only a few facts about places",
            "07",
            "2. Notebook 06's task, with a learned table",
        ),
        Option(
            "becomes the 2D grid, as a learned table always does",
            "07",
            "3. A task where position is the answer: *where am I?*",
            "a learned position table always learns the grid",
        ),
        Option(
            "stays at its random start: a learned table does not train",
            "07",
            "1. A table that is trained",
            "a learned position table barely moves",
        ),
    ),
    _c(
        20,
        "A marker is planted on every training “3”, and the model relies on it. Which map finds "
        "the marker first in nearly every test “3”?",
        "c",
        "Occlusion, an intervention, ranks the marker first in 31 to 33 of 33 pictures; rollout "
        "and last-block attention do not, and they survive re-drawing the head unchanged.",
        Option(
            "attention rollout: it shows where the model looks",
            "08",
            "6. What it uses: occlusion against rollout",
            "rollout is where the model looks, and so what it uses",
        ),
        Option(
            "last-block attention: it feeds the head directly",
            "09",
            "4. The sanity check: randomise the model, keep the map?",
            "the last block's attention explains the class",
        ),
        Option(
            "occlusion: cover a patch, watch the score",
            "09",
            '2. A planted truth: a marker on every training "3"',
        ),
    ),
)


def items() -> dict[str, Exercise]:
    """The concept check as exercises (``"cc.01"`` ... ``"cc.20"``), graded by ``check``."""
    return {
        c.id: Exercise(
            id=c.id,
            grade=c.spec(),
            solution=lambda c=c: c.answer,
            wrong=lambda c=c: next(
                L for L, o in zip("abcdefgh", c.options, strict=False) if o.misconception
            ),
            why=c.why,
        )
        for c in CONCEPTS
    }
