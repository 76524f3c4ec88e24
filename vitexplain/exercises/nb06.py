"""Exercises of notebook 06: the whole ViT, its size, and what position buys it."""

from __future__ import annotations

from functools import cache

import torch

from ..inspection import count_parameters
from ..scramble import make_scramble_dataset
from ..training import evaluate, train_classifier
from ..vit import Block, ViT
from ._rules import Exercise, Rule, ValueSpec, close

# 06.1: the ViT whose parameters the learner counts.
_SMALL_VIT = {
    "img_size": 32,
    "patch_size": 8,
    "in_chans": 3,
    "num_classes": 10,
    "embed_dim": 48,
    "depth": 3,
    "num_heads": 4,
    "qkv_bias": True,
}


def _count_small_vit() -> int:
    with torch.device("meta"):  # shapes only: nothing is allocated
        model = ViT(**_SMALL_VIT)
    return count_parameters(model)["total"]


def _count_by_formula(img_size=32, patch_size=8, in_chans=3, num_classes=10, embed_dim=48,
                      depth=3, num_heads=4, qkv_bias=True) -> int:  # fmt: skip
    """Section 5's table, part by part (no model built)."""
    d, hidden = embed_dim, 4 * embed_dim
    patch_embed = in_chans * patch_size**2 * d + d  # the conv's weight and bias
    block = (
        2 * d  # norm1
        + d * 3 * d
        + (3 * d if qkv_bias else 0)  # qkv
        + d * d
        + d  # proj
        + 2 * d  # norm2
        + d * hidden
        + hidden
        + hidden * d
        + d  # the MLP's two layers
    )
    head = d * num_classes + num_classes
    return patch_embed + d + depth * block + 2 * d + head  # the class token, final norm, head


_D, _DEPTH, _TOKENS = _SMALL_VIT["embed_dim"], _SMALL_VIT["depth"], (32 // 8) ** 2 + 1
_COUNT = ValueSpec(
    kind="int",
    answer=_count_by_formula(**_SMALL_VIT),
    expects="an int (a number of parameters)",
    rules=(
        Rule(
            "the position embedding of vx.ViT is a fixed table (a buffer): is it trained?",
            equals=_count_by_formula(**_SMALL_VIT) + _TOKENS * _D,
        ),
        Rule(
            "this model has qkv_bias=True: does that add anything to each block?",
            equals=_count_by_formula(**_SMALL_VIT) - 3 * _D * _DEPTH,
        ),
    ),
    default="go part by part through the table of section 5 (C = 3 channels here).",
)


def _tokens_into_blocks() -> int:
    with torch.device("meta"):
        model = ViT((96, 64), patch_size=16, embed_dim=8, depth=1, num_heads=1)
        tokens = model.patch_embed(torch.empty(1, 1, 96, 64))  # (1, N, D)
        cls = model.cls_token.expand(1, -1, -1)  # (1, 1, D)
    return torch.cat([cls, tokens], dim=1).shape[1]  # N+1: the tokens the first block sees


_TOKENS_INTO_BLOCKS = ValueSpec(
    kind="int",
    answer=(96 // 16) * (64 // 16) + 1,
    expects="an int (a number of tokens)",
    rules=(
        Rule(
            "you counted the patch tokens: is that every token the blocks see?",
            equals=(96 // 16) * (64 // 16),
        ),
    ),
    default="how many 16 x 16 patches fit along each side of a 96 x 64 picture?",
)


@cache
def _blind_accuracy_on_hard_twins() -> float:
    """Train a position-blind ViT briefly on harder twins and measure its test accuracy.

    The grader compares with the number section 8 proves; this run shows it (the tests run it).
    """
    train = make_scramble_dataset(64, seed=7, noise=0.3, max_shift=5)
    test = make_scramble_dataset(64, seed=8, noise=0.3, max_shift=5)
    torch.manual_seed(0)
    blind = ViT((60, 100), 20, embed_dim=16, depth=1, num_heads=2, pos_embed="none")
    train_classifier(blind, train, epochs=2, batch_size=16, log=None)
    return evaluate(blind, *test)[1]


_BLIND_ACCURACY = ValueSpec(
    kind="number",
    answer=0.5,  # section 8: each twin pair scores exactly one out of two
    expects="a number between 0 and 1",
    tol=1e-9,
    percent=True,
    rules=(
        Rule(
            "that looks like a percentage: answer the accuracy as a fraction in [0, 1]",
            low=1.000001,
            high=100,
        ),
        Rule("an accuracy is a fraction in [0, 1]", low=0, high=1, outside=True),
        Rule(
            "near, but the twin argument of section 8 gives an exact number, not an estimate.",
            equals=0.5,
            tol=0.15,
        ),
    ),
    default="without a position embedding, can the model give twins different answers?",
)


def _blind_with_small_patches_is_still_blind() -> bool:
    """A position-blind ViT with 10 x 10 patches: do scrambled twins still get equal logits?"""
    images, _ = make_scramble_dataset(32, seed=3)
    torch.manual_seed(0)
    blind = ViT((60, 100), 10, embed_dim=16, depth=1, num_heads=2, pos_embed="none").eval()
    with torch.no_grad():
        logits = blind(images)[:, 0]  # (32,)
    return bool((logits[:16] - logits[16:]).abs().max() < 1e-5)


_SMALL_PATCHES = ValueSpec(
    kind="bool",
    answer=True,
    expects="True or False",
    default=(
        "draw the 10 x 10 grid over the 20 x 20 pieces the scramble moves: what is in the bag "
        "of tokens of a scrambled picture, compared with its twin's?"
    ),
)


def _block_forward(block: Block, z: torch.Tensor) -> torch.Tensor:
    """The pre-norm block from its parts: two residual updates, each read through a LayerNorm."""
    z = z + block.attn(block.norm1(z))  # (B, N, D)
    return z + block.mlp(block.norm2(z))  # (B, N, D)


def _grade_post_norm(answer) -> str | None:
    generator = torch.Generator().manual_seed(0)
    for dim, heads, tokens in ((8, 1, 3), (16, 4, 7), (12, 3, 1)):
        block = Block(dim, num_heads=heads, qkv_bias=True).eval()
        with torch.no_grad():
            for parameter in block.parameters():
                parameter.copy_(0.3 * torch.randn(parameter.shape, generator=generator))
            z = torch.randn(2, tokens, dim, generator=generator)
            got = answer(block, z)  # a tensor (an array is converted)
            if got.shape != z.shape:
                return (
                    f"expected a tensor of shape {tuple(z.shape)}, like z, got shape "
                    f"{tuple(got.shape)}"
                )
            if close(got, _solution_post_norm()(block, z)):
                continue
            if close(got, block(z)):
                return "that is the pre-norm block of ViT; in the post-norm one the norms move"
            return (
                "each sub-layer reads the stream itself, and the LayerNorm comes after the "
                "residual sum: norm(z + sublayer(z))"
            )
    return None


def _solution_post_norm():
    def post_norm_block(block, z):
        """(B, N, D) -> (B, N, D): the post-norm block from the parts of a vx.Block."""
        z = block.norm1(z + block.attn(z))  # each sub-layer reads the stream itself ...
        return block.norm2(z + block.mlp(z))  # ... and a LayerNorm follows each residual sum

    return post_norm_block


EXERCISES: list[Exercise] = [
    Exercise(
        id="06.1",
        grade=_COUNT,
        solution=_count_small_vit,
        wrong=lambda: 0,
        why=(
            "Patch embedding 3 * 8 * 8 * 48 + 48 = 9264, class token 48, three blocks of "
            "28,272 (two LayerNorms, qkv with bias, the projection, the MLP 48 -> 192 -> 48), "
            "final norm 96, head 48 * 10 + 10: 94,714. The sin-cos position table is a buffer."
        ),
    ),
    Exercise(
        id="06.2",
        grade=_TOKENS_INTO_BLOCKS,
        solution=_tokens_into_blocks,
        wrong=lambda: 96 * 64,
        why="96 / 16 = 6 rows of 64 / 16 = 4 patches make 24 tokens, plus the class token: 25.",
    ),
    Exercise(
        id="06.3",
        grade=_BLIND_ACCURACY,
        solution=_blind_accuracy_on_hard_twins,
        wrong=lambda: 0.9,
        why=(
            "A position-blind ViT gives a picture and its scrambled twin the same logits, and "
            "the twins have opposite labels: each pair scores one out of two, 0.5 exactly, "
            "however hard the task and however long the training."
        ),
    ),
    Exercise(
        id="06.4",
        grade=_SMALL_PATCHES,
        solution=_blind_with_small_patches_is_still_blind,
        wrong=lambda: False,
        why=(
            "Each 20 x 20 piece is exactly four 10 x 10 patches, so the scramble only reorders "
            "patches: the twins still hold the same bag of tokens and get the same logit."
        ),
    ),
    Exercise(
        id="06.5",
        grade=_grade_post_norm,
        solution=_solution_post_norm,
        wrong=lambda: _block_forward,
        why=(
            "Post-norm puts each LayerNorm after its residual sum, norm(z + sublayer(z)); "
            "ViT's pre-norm reads each sub-layer through a norm, z + sublayer(norm(z))."
        ),
        asks="post_norm_block(block, z)",
        returns=torch.Tensor,
    ),
]
