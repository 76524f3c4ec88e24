import math
import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from vitexplain import (
    Attention,
    T2TModule,
    T2TViT,
    TokenAttention,
    TokenTransformer,
    count_tokens,
    patchify,
    soft_split,
)


def test_soft_split_of_the_mountain(mountain):
    split = soft_split(20)
    assert (split.kernel_size, split.stride, split.padding) == (20, 10, 5)
    tokens = split(mountain).transpose(1, 2)
    assert tokens.shape == (1, 60, 400) and count_tokens(60, 100, 20, 10, 5) == (6, 10, 60)
    padded = F.pad(mountain, (5, 5, 5, 5))[0, 0]  # 70 x 110
    assert padded.shape == (70, 110)
    for n in (0, 7, 59):
        r, c = divmod(n, 10)
        patch = padded[10 * r : 10 * r + 20, 10 * c : 10 * c + 20]
        assert torch.equal(tokens[0, n], patch.reshape(400))


def test_soft_split_without_overlap_is_the_patch_split(mountain):
    tokens = nn.Unfold(20, stride=20, padding=0)(mountain).transpose(1, 2)
    assert torch.equal(tokens, patchify(mountain, 20))


def _token_transformer_reference(tt: TokenTransformer, x: torch.Tensor) -> torch.Tensor:
    """The official single-head token transformer, written out with functional calls."""
    out_dim = tt.attn.out_dim
    h = F.layer_norm(x, (x.shape[-1],), tt.norm1.weight, tt.norm1.bias)
    q, k, v = F.linear(h, tt.attn.qkv.weight).split(out_dim, dim=-1)
    weights = torch.softmax(q @ k.transpose(1, 2) * x.shape[-1] ** -0.5, dim=-1)
    y = v + F.linear(weights @ v, tt.attn.proj.weight, tt.attn.proj.bias)
    z = F.layer_norm(y, (out_dim,), tt.norm2.weight, tt.norm2.bias)
    hidden = F.gelu(F.linear(z, tt.mlp.fc1.weight, tt.mlp.fc1.bias))
    return y + F.linear(hidden, tt.mlp.fc2.weight, tt.mlp.fc2.bias)


def test_token_transformer_matches_the_official_computation():
    tt = TokenTransformer(49, 64)
    for p in tt.parameters():
        nn.init.normal_(p, std=0.2)
    x = torch.randn(13, 100, 49)
    out = tt(x)
    assert out.shape == (13, 100, 64)
    assert tt.attn.scale == 49**-0.5  # the input length, as in the official code
    assert torch.allclose(out, _token_transformer_reference(tt, x), atol=1e-5)


def test_token_attention_is_attention_with_a_value_skip():
    torch.manual_seed(0)
    tt = TokenTransformer(49, 64)
    assert isinstance(tt.attn, TokenAttention) and isinstance(tt.attn, Attention)
    assert tt.attn.value_skip and tt.attn.out_dim == 64
    x = torch.randn(3, 20, 49)
    fused = tt.attn(x)
    tt.attn.fused = False
    out = tt.attn(x)  # the explicit path
    weights = tt.attn.attention_weights(x)
    assert weights.shape == (3, 1, 20, 20) and torch.allclose(weights.sum(-1), torch.ones(3, 1, 20))
    assert torch.allclose(out, fused, atol=1e-5)
    q, k, v = tt.attn.qkv(x).split(64, dim=-1)
    expected = v + tt.attn.proj(torch.softmax(q @ k.transpose(1, 2) / 7, dim=-1) @ v)
    assert torch.allclose(out, expected, atol=1e-5)


def test_heads_and_scale_change_outputs_not_whether_weights_load():
    one = TokenTransformer(576, 64)  # attention2 of the T2T module: scale 576 ** -0.5 = 1/24
    assert one.attn.scale == 1 / 24
    x = torch.randn(2, 10, 576)
    for other in (
        TokenTransformer(576, 64, num_heads=4),
        TokenTransformer(576, 64, qk_scale=0.125),
    ):
        other.load_state_dict(one.state_dict(), strict=True)  # the same names and shapes
        assert not torch.allclose(other(x), one(x), atol=1e-4)


def test_t2t_module_walk_on_400_by_100():
    t2t = T2TModule((400, 100))
    assert t2t.grid_sizes == [(100, 25), (50, 13), (25, 7)]
    assert [g[0] * g[1] for g in t2t.grid_sizes] == [2500, 650, 175] and t2t.num_tokens == 175
    h, w = 400, 100
    for k, grid in zip((7, 3, 3), t2t.grid_sizes, strict=True):
        h, w, _ = count_tokens(h, w, k, math.ceil(k / 2), math.ceil(k / 4))
        assert (h, w) == grid
    x = torch.randn(2, 1, 400, 100)  # batch 2 keeps the test fast; the notebook runs batch 13
    assert t2t.soft_split0(x).shape == (2, 49, 2500)
    with torch.inference_mode():
        assert t2t(x).shape == (2, 175, 768)


OFFICIAL_KEYS = {  # T2T_ViT(tokens_type='transformer', depth=1) of the official code
    "cls_token": (1, 1, 768),
    "pos_embed": (1, 176, 768),
    **{
        f"tokens_to_token.attention{i}.{name}": shape
        for i, dim in ((1, 49), (2, 576))
        for name, shape in (
            ("norm1.weight", (dim,)),
            ("norm1.bias", (dim,)),
            ("attn.qkv.weight", (192, dim)),
            ("attn.proj.weight", (64, 64)),
            ("attn.proj.bias", (64,)),
            ("norm2.weight", (64,)),
            ("norm2.bias", (64,)),
            ("mlp.fc1.weight", (64, 64)),
            ("mlp.fc1.bias", (64,)),
            ("mlp.fc2.weight", (64, 64)),
            ("mlp.fc2.bias", (64,)),
        )
    },
    "tokens_to_token.project.weight": (768, 576),
    "tokens_to_token.project.bias": (768,),
    "blocks.0.norm1.weight": (768,),
    "blocks.0.norm1.bias": (768,),
    "blocks.0.attn.qkv.weight": (2304, 768),
    "blocks.0.attn.proj.weight": (768, 768),
    "blocks.0.attn.proj.bias": (768,),
    "blocks.0.norm2.weight": (768,),
    "blocks.0.norm2.bias": (768,),
    "blocks.0.mlp.fc1.weight": (3072, 768),
    "blocks.0.mlp.fc1.bias": (3072,),
    "blocks.0.mlp.fc2.weight": (768, 3072),
    "blocks.0.mlp.fc2.bias": (768,),
    "norm.weight": (768,),
    "norm.bias": (768,),
    "head.weight": (1, 768),
    "head.bias": (1,),
}


def test_t2t_vit_state_dict_has_the_official_names():
    model = T2TViT((400, 100), depth=1)
    assert {k: tuple(v.shape) for k, v in model.state_dict().items()} == OFFICIAL_KEYS


def test_t2t_vit_state_dict_loads_strictly_and_gives_the_same_outputs():
    model = T2TViT((40, 30), embed_dim=32, depth=2, token_dim=8)  # small: the same structure
    renamed = T2TViT((40, 30), embed_dim=32, depth=2, token_dim=8)
    renamed.load_state_dict(model.state_dict(), strict=True)
    x = torch.randn(2, 1, 40, 30)
    with torch.inference_mode():
        logits = model(x)
        assert torch.allclose(renamed(x), logits, atol=1e-5)


@pytest.mark.parametrize(
    "img_size, kernels, message",
    [
        (
            (2, 100),
            (7, 3, 3),
            "img_size (2, 100) does not fit softsplit_kernels (7, 3, 3): kernel 7",
        ),
        (8, (7, 7, 3), "img_size (8, 8) does not fit softsplit_kernels (7, 7, 3): kernel 7 of"),
        ((400, 100), (7, 3), "softsplit_kernels must hold three kernel sizes, got (7, 3)"),
    ],
)
def test_t2t_module_names_kernels_that_do_not_fit_the_image(img_size, kernels, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        T2TModule(img_size, softsplit_kernels=kernels)


def test_t2t_names_an_image_of_another_shape_and_a_bad_size():
    with pytest.raises(ValueError, match=re.escape("(13, 1, 100, 400), but the model expects")):
        T2TModule((400, 100))(torch.zeros(13, 1, 100, 400))
    with pytest.raises(ValueError, match="depth must be an int of at least 0, got -1"):
        T2TViT(28, depth=-1)


def test_token_attention_defaults_and_options_as_in_the_official_code():
    attn = TokenAttention(49, 64)  # one head, no qkv bias, fused
    assert attn.num_heads == 1 and attn.qkv.bias is None and attn.fused
    assert TokenAttention(49, 64, qkv_bias=True).qkv.bias is not None
    assert not TokenAttention(49, 64, fused=False).fused
    # the official head_dim = dim // num_heads, an int: 50 // 4 = 12, not 12.5
    assert TokenAttention(50, 64, num_heads=4).scale == 12**-0.5


@pytest.mark.parametrize("img_size, kernels", [((40, 30), (5, 4, 3)), (3, (7, 3, 3))])
def test_t2t_module_grids_are_what_its_soft_splits_cut(img_size, kernels):
    """Each grid counted from the Unfold that soft_split really builds; (3, 3) with (7, 3, 3)
    is the least image: every kernel exactly as large as its padded grid, one token at the end."""
    t2t = T2TModule(img_size, token_dim=8, embed_dim=16, softsplit_kernels=kernels)
    h, w = (img_size, img_size) if isinstance(img_size, int) else img_size
    for k, grid in zip(kernels, t2t.grid_sizes, strict=True):
        split = soft_split(k)
        h, w, _ = count_tokens(h, w, k, split.stride, split.padding)
        assert (h, w) == grid
    assert t2t(torch.rand(2, 1, *t2t.img_size)).shape == (2, h * w, 16)
    assert T2TModule(img_size, softsplit_kernels=kernels).attention1.attn.out_dim == 64


def test_t2t_vit_defaults_and_options_reach_the_tokenizer_and_every_block():
    with torch.device("meta"):  # nothing is allocated
        base = T2TViT(224)
        options = {"embed_dim": 16, "depth": 2, "num_heads": 4, "token_dim": 8}
        small = T2TViT(
            (40, 30), **options, softsplit_kernels=(5, 3, 3), qkv_bias=True, qk_scale=0.3
        )
    assert len(base.blocks) == 12 and base.blocks[0].attn.num_heads == 1
    assert base.blocks[0].attn.qkv.bias is None and base.blocks[0].attn.scale == 768**-0.5
    assert small.tokens_to_token.soft_split0.kernel_size == 5
    for block in small.blocks:
        assert block.attn.num_heads == 4 and block.attn.qkv.bias is not None
        assert block.attn.scale == 0.3  # not head_dim ** -0.5 = 0.5


def test_token_transformer_options_reach_its_attention_and_mlp():
    tt = TokenTransformer(49, 64, mlp_ratio=2.0, qkv_bias=True)
    assert tt.attn.qkv.bias is not None
    fc1, fc2 = tt.mlp.fc1, tt.mlp.fc2  # out_dim -> mlp_ratio * out_dim -> out_dim
    assert (fc1.in_features, fc1.out_features, fc2.out_features) == (64, 128, 64)
