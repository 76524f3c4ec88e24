import re

import numpy as np
import pytest
import torch
from torch import nn

from vitexplain import (
    PatchEmbed,
    count_tokens,
    one_hot_patch_kernels,
    patchify,
    patchify_by_conv,
    patchify_by_slicing,
    scramble_patches,
    unpatchify,
)


def test_soft_split_facts_of_the_articles():
    assert count_tokens(60, 100, 20, 10, 5) == (6, 10, 60)
    assert count_tokens(60, 100, 20, 20, 0) == (3, 5, 15)


def _patchify_by_slicing(x: torch.Tensor, p: int) -> torch.Tensor:
    """The definition: walk the grid row by row and flatten each patch (channel first)."""
    b, c, h, w = x.shape
    tokens = [
        x[:, :, i : i + p, j : j + p].reshape(b, -1) for i in range(0, h, p) for j in range(0, w, p)
    ]
    return torch.stack(tokens, dim=1)


@pytest.mark.parametrize("shape, p", [((2, 1, 60, 100), 20), ((3, 3, 8, 12), 4), ((1, 2, 6, 6), 3)])
def test_patchify_equals_slicing_unfold_and_strided_conv(shape, p):
    x = torch.randn(shape)
    tokens = patchify(x, p)
    assert torch.equal(tokens, _patchify_by_slicing(x, p))
    assert torch.equal(tokens, nn.Unfold(p, stride=p)(x).transpose(1, 2))
    # A Conv2d of stride P whose output channel o copies input feature o (one-hot kernels)
    c = shape[1]
    conv = nn.Conv2d(c, c * p * p, p, stride=p, bias=False)
    conv.weight.data = torch.eye(c * p * p).view(c * p * p, c, p, p)
    assert torch.allclose(tokens, conv(x).flatten(2).transpose(1, 2), atol=1e-6)


def test_mountain_makes_15_tokens_of_400(mountain):
    tokens = patchify(mountain, 20)
    assert tokens.shape == (1, 15, 400)
    # token 12 in the articles' 1-based numbering is rows 40-60, columns 20-40
    assert torch.equal(tokens[0, 11], mountain[0, 0, 40:60, 20:40].reshape(400))


def test_unpatchify_inverts_patchify():
    x = torch.randn(2, 3, 12, 20)
    assert torch.equal(unpatchify(patchify(x, 4), (12, 20), 4), x)


def test_scramble_patches_follows_order():
    rng = np.random.default_rng(21)
    image = rng.random((60, 100))
    order = rng.permutation(15)
    out = scramble_patches(image, 20, order)
    for i, src in enumerate(order):
        r, c = divmod(i, 5)
        rs, cs = divmod(src, 5)
        assert np.array_equal(
            out[20 * r : 20 * r + 20, 20 * c : 20 * c + 20],
            image[20 * rs : 20 * rs + 20, 20 * cs : 20 * cs + 20],
        )
    assert np.array_equal(scramble_patches(image, 20, np.arange(15)), image)
    # scrambling is undone by the inverse permutation
    assert np.array_equal(scramble_patches(out, 20, np.argsort(order)), image)


def test_patch_embed_equals_timm_conv(mountain):
    embed = PatchEmbed((60, 100), 20, in_chans=1, embed_dim=768)
    out = embed(mountain)
    assert out.shape == (1, 15, 768) and embed.num_tokens == 15 and embed.grid_size == (3, 5)
    conv = nn.Conv2d(1, 768, 20, stride=20)
    conv.weight.data = embed.proj.weight.data.view(768, 1, 20, 20)
    conv.bias.data = embed.proj.bias.data
    assert torch.allclose(out, conv(mountain).flatten(2).transpose(1, 2), atol=1e-5)


# --- the other ways to tokenize (notebook 01) ---


def _patchify_pixel_by_pixel(x: torch.Tensor, p: int) -> torch.Tensor:
    """Brute force from the index formula: token r*cols + c, feature (ch*P + i)*P + j."""
    b, ch_count, h, w = x.shape
    cols = w // p
    out = torch.empty(b, (h // p) * cols, ch_count * p * p, dtype=x.dtype)
    for row in range(h):
        for col in range(w):
            r, i = divmod(row, p)
            c, j = divmod(col, p)
            for ch in range(ch_count):
                out[:, r * cols + c, (ch * p + i) * p + j] = x[:, ch, row, col]
    return out


@pytest.mark.parametrize(
    "shape, p", [((2, 1, 60, 100), 20), ((2, 3, 8, 12), 4), ((1, 2, 6, 9), 3), ((1, 1, 5, 5), 1)]
)
def test_slicing_and_conv_equal_the_pixel_formula_and_unfold(shape, p):
    x = torch.randn(shape)
    reference = _patchify_pixel_by_pixel(x, p)
    assert torch.equal(patchify_by_slicing(x, p), reference)
    assert torch.equal(patchify(x, p), reference)
    assert torch.equal(nn.Unfold(p, stride=p)(x).transpose(1, 2), reference)
    # one-hot kernels: every product is x * 1 or x * 0, so the convolution is exact
    assert torch.equal(patchify_by_conv(x, p), reference)


def test_slicing_keeps_integer_images():
    x = torch.arange(2 * 1 * 4 * 6).view(2, 1, 4, 6)
    assert torch.equal(patchify_by_slicing(x, 2), _patchify_pixel_by_pixel(x, 2))


def test_one_hot_kernels_pick_one_pixel_each():
    kernels = one_hot_patch_kernels(2, 3)
    assert kernels.shape == (18, 2, 3, 3)
    assert torch.equal(kernels.sum(dim=(1, 2, 3)), torch.ones(18))
    for k in range(18):
        ch, rest = divmod(k, 9)
        i, j = divmod(rest, 3)
        assert kernels[k, ch, i, j] == 1
    assert one_hot_patch_kernels(1, 20)[21].nonzero().tolist() == [[0, 1, 1]]


@pytest.mark.parametrize(
    "x, patch_size, error, message",
    [
        ("mountain", 16, ValueError, "patch_size 16 does not divide the image height 60 (60 = 3"),
        ("mountain", 30, ValueError, "patch_size 30 does not divide the image width 100 (100 ="),
        ("mountain", -20, ValueError, "patch_size must be a positive int, got -20"),
        ("mountain", 2.5, ValueError, "patch_size must be a positive int, got 2.5"),
        (np.zeros((1, 1, 60, 100)), 20, TypeError, "x must be a torch.Tensor, got ndarray"),
        (torch.zeros(60, 100), 20, ValueError, "x must have 4 dimensions (B, C, H, W), got shape"),
    ],
)
def test_patchify_names_the_bad_argument(mountain, x, patch_size, error, message):
    x = mountain if isinstance(x, str) else x
    with pytest.raises(error, match=re.escape(message)):
        patchify(x, patch_size)


def test_patch_embed_names_a_patch_size_or_an_image_that_does_not_fit(mountain):
    with pytest.raises(ValueError, match="patch_size 16 does not divide the image height 60"):
        PatchEmbed((60, 100), 16)
    embed = PatchEmbed((60, 100), 20)
    with pytest.raises(ValueError, match=re.escape("(1, 1, 60, 80), but the model expects (B, 1,")):
        embed(mountain[..., :80])
    with pytest.raises(ValueError, match=re.escape("(1, 3, 60, 100), but the model expects")):
        embed(mountain.expand(1, 3, 60, 100))
    # numpy integers are valid sizes
    assert PatchEmbed((60, 100), np.int64(10), embed_dim=16).num_tokens == 60


def test_one_int_is_a_square_image_and_the_grid_counts_in_ints():
    embed = PatchEmbed(12, 4)  # ViT-Base's embedding length by default
    assert embed.grid_size == (3, 3) and all(type(n) is int for n in embed.grid_size)
    x = torch.randn(2, 1, 12, 12)
    assert embed(x).shape == (2, 9, 768)
    assert torch.equal(unpatchify(patchify(x, 4), 12, 4), x)
