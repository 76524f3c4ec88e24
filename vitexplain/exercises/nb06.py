"""Exercises of notebook 06: the whole ViT, its size, and what position buys it."""

from __future__ import annotations

from functools import cache

import torch

from ..inspection import count_parameters
from ..scramble import make_scramble_dataset
from ..training import evaluate, train_classifier
from ..vit import Block, ViT
from . import Exercise, as_int, as_number, close, short

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


def _grade_count(answer: object) -> str | None:
    if as_int(answer) is None:
        return f"expected an int (a number of parameters), got {short(answer)}"
    answer, right = as_int(answer), _count_small_vit()
    if answer == right:
        return None
    d, depth = _SMALL_VIT["embed_dim"], _SMALL_VIT["depth"]
    tokens = (_SMALL_VIT["img_size"] // _SMALL_VIT["patch_size"]) ** 2 + 1
    if answer == right + tokens * d:
        return "the position embedding of vx.ViT is a fixed table (a buffer): is it trained?"
    if answer == right - 3 * d * depth:
        return "this model has qkv_bias=True: does that add anything to each block?"
    return "go part by part through the table of section 5 (C = 3 channels here)."


def _tokens_into_blocks() -> int:
    with torch.device("meta"):
        model = ViT((96, 64), patch_size=16, embed_dim=8, depth=1, num_heads=1)
        tokens = model.patch_embed(torch.empty(1, 1, 96, 64))  # (1, N, D)
        cls = model.cls_token.expand(1, -1, -1)  # (1, 1, D)
    return torch.cat([cls, tokens], dim=1).shape[1]  # N+1: the tokens the first block sees


def _grade_tokens(answer: object) -> str | None:
    if as_int(answer) is None:
        return f"expected an int (a number of tokens), got {short(answer)}"
    answer, right = as_int(answer), _tokens_into_blocks()
    if answer == right:
        return None
    if answer == right - 1:
        return "you counted the patch tokens: is that every token the blocks see?"
    return "how many 16 x 16 patches fit along each side of a 96 x 64 picture?"


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


def _grade_blind_accuracy(answer: object) -> str | None:
    if as_number(answer) is None:
        return f"expected a number between 0 and 1, got {short(answer)}"
    answer = as_number(answer)
    if 1 < answer <= 100:
        return "that looks like a percentage: answer the accuracy as a fraction in [0, 1]"
    if not 0 <= answer <= 1:
        return "an accuracy is a fraction in [0, 1]"
    if answer == 0.5:  # section 8: each twin pair scores exactly one out of two
        return None
    if abs(answer - 0.5) < 0.15:
        return "near, but the twin argument of section 8 gives an exact number, not an estimate."
    return "without a position embedding, can the model give twins different answers?"


def _blind_with_small_patches_is_still_blind() -> bool:
    """A position-blind ViT with 10 x 10 patches: do scrambled twins still get equal logits?"""
    images, _ = make_scramble_dataset(32, seed=3)
    torch.manual_seed(0)
    blind = ViT((60, 100), 10, embed_dim=16, depth=1, num_heads=2, pos_embed="none").eval()
    with torch.no_grad():
        logits = blind(images)[:, 0]  # (32,)
    return bool((logits[:16] - logits[16:]).abs().max() < 1e-5)


def _grade_small_patches(answer: object) -> str | None:
    if not isinstance(answer, bool):
        return f"expected True or False, got {short(answer)}"
    if answer == _blind_with_small_patches_is_still_blind():
        return None
    return (
        "draw the 10 x 10 grid over the 20 x 20 pieces the scramble moves: what is in the bag "
        "of tokens of a scrambled picture, compared with its twin's?"
    )


def _block_forward(block: Block, z: torch.Tensor) -> torch.Tensor:
    """The pre-norm block from its parts: two residual updates, each read through a LayerNorm."""
    z = z + block.attn(block.norm1(z))  # (B, N, D)
    return z + block.mlp(block.norm2(z))  # (B, N, D)


def _grade_post_norm(answer: object) -> str | None:
    if not callable(answer):
        return f"expected a function post_norm_block(block, z), got {short(answer)}"
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
            if close(got, block(z)):
                return "that is the pre-norm block of ViT; in the post-norm one the norms move"
            if not close(got, _post_norm(block, z)):
                return (
                    "each sub-layer reads the stream itself, and the LayerNorm comes after the "
                    "residual sum: norm(z + sublayer(z))"
                )
    return None


def _post_norm(block: Block, z: torch.Tensor) -> torch.Tensor:
    z = block.norm1(z + block.attn(z))  # (B, N, D)
    return block.norm2(z + block.mlp(z))


EXERCISES: list[Exercise] = [
    Exercise(
        id="06.1",
        task=(
            "Predict, with the table of section 5, the number of trainable parameters of "
            "`vx.ViT(32, patch_size=8, in_chans=3, num_classes=10, embed_dim=48, depth=3, "
            "num_heads=4, qkv_bias=True)`. Answer an int; then check it with "
            "`vx.count_parameters`."
        ),
        grade=_grade_count,
        solution=_count_small_vit,
        wrong=lambda: 0,
    ),
    Exercise(
        id="06.2",
        task=(
            "Before running anything: how many tokens does the first block of "
            "`vx.ViT((96, 64), patch_size=16)` attend over, for one image? Answer an int."
        ),
        grade=_grade_tokens,
        solution=_tokens_into_blocks,
        wrong=lambda: 96 * 64,
    ),
    Exercise(
        id="06.3",
        task=(
            "Make the task harder: twins from `vx.make_scramble_dataset(n, seed, noise=0.3, "
            "max_shift=5)`, and a position-blind ViT (`pos_embed='none'`) trained on them for "
            "a few epochs. What test accuracy does it reach on a twin test set? Answer a number "
            "in [0, 1], before you try it."
        ),
        grade=_grade_blind_accuracy,
        solution=_blind_accuracy_on_hard_twins,
        wrong=lambda: 0.9,
    ),
    Exercise(
        id="06.4",
        task=(
            "Section 8's proof needs the model's patches to fit the pieces the scramble moves. "
            "Give the position-blind ViT 10 x 10 patches (`patch_size=10`, 60 tokens) on the "
            "same 20 x 20 scramble: does every twin pair still get the same logit? Answer True "
            "or False."
        ),
        grade=_grade_small_patches,
        solution=_blind_with_small_patches_is_still_blind,
        wrong=lambda: not _blind_with_small_patches_is_still_blind(),
    ),
    Exercise(
        id="06.5",
        task=(
            "Use the idea: write `post_norm_block(block, z)`, the *post-norm* block of the "
            "original transformer (Vaswani et al.), from the parts of a `vx.Block`: each "
            "sub-layer reads the stream itself, and a LayerNorm follows each residual sum "
            "(`block.norm1` after attention, `block.norm2` after the MLP)."
        ),
        grade=_grade_post_norm,
        solution=lambda: _post_norm,
        wrong=lambda: _block_forward,
        returns=torch.Tensor,
    ),
]
