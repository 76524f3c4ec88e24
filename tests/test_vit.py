import re

import numpy as np
import pytest
import torch
from torch import nn

from vitexplain import (
    Block,
    Mlp,
    ViT,
    attention_maps,
    scramble_patches,
    sinusoid_encoding,
)


def test_mlp_is_fc_gelu_fc():
    mlp = Mlp(8, 32, 4)
    x = torch.randn(5, 8)
    expected = (
        nn.functional.gelu(x @ mlp.fc1.weight.T + mlp.fc1.bias) @ mlp.fc2.weight.T + mlp.fc2.bias
    )
    assert mlp(x).shape == (5, 4) and torch.allclose(mlp(x), expected, atol=1e-6)
    assert Mlp(8).fc2.out_features == 8


def _small_vit(**kwargs) -> ViT:
    options = {"img_size": (60, 100), "patch_size": 20, "embed_dim": 64, "depth": 2, "num_heads": 4}
    return ViT(**{**options, **kwargs}).eval()


def test_vit_walks_175_tokens_as_176():
    vit = ViT((100, 28), 4, embed_dim=32, depth=1, num_heads=2)  # 25 x 7 = 175 patches
    assert vit.num_tokens == 175 and vit.pos_embed.shape == (1, 176, 32)
    logits = vit(torch.randn(13, 1, 100, 28))
    assert logits.shape == (13, 1)
    assert attention_maps(vit, torch.randn(13, 1, 100, 28))[0].shape == (13, 2, 176, 176)


def test_vit_structure_and_initialisation():
    vit = ViT((60, 100), 20, embed_dim=768, depth=2)
    names = set(vit.state_dict())
    for name in [
        "cls_token",
        "pos_embed",
        "patch_embed.proj.weight",
        "blocks.1.norm1.weight",
        "blocks.1.attn.qkv.weight",
        "blocks.1.attn.proj.bias",
        "blocks.1.mlp.fc1.weight",
        "blocks.1.mlp.fc2.bias",
        "norm.weight",
        "head.weight",
    ]:
        assert name in names
    assert "blocks.0.attn.qkv.bias" not in names  # qkv_bias=False
    assert vit.cls_token.shape == (1, 1, 768)  # timm's shape, so timm's weights load
    assert not any(p is vit.pos_embed for p in vit.parameters())  # fixed, not trained
    assert torch.equal(vit.pos_embed[0], sinusoid_encoding(16, 768))
    weight = vit.blocks[0].mlp.fc1.weight
    assert abs(weight.std().item() - 0.02) < 0.002 and abs(weight.mean().item()) < 0.001
    assert abs(vit.cls_token.std().item() - 0.02) < 0.004
    assert torch.equal(vit.head.bias, torch.zeros(1))
    assert torch.equal(vit.norm.weight, torch.ones(768))
    blind = _small_vit(pos_embed="none")
    assert blind.pos_embed is None and "pos_embed" not in blind.state_dict()


def test_vit_without_position_cannot_tell_scrambled_mountain(mountain):
    order = np.random.default_rng(21).permutation(15)
    scrambled = torch.tensor(scramble_patches(mountain[0, 0].numpy(), 20, order))[None, None]
    with torch.no_grad():
        blind = _small_vit(pos_embed="none", num_classes=3)
        for p in blind.parameters():  # weights large enough for position to matter visibly
            nn.init.normal_(p, std=0.2)
        assert torch.allclose(blind(mountain), blind(scrambled), atol=1e-6)
        seeing = _small_vit(num_classes=3)
        seeing.load_state_dict({**blind.state_dict(), "pos_embed": seeing.pos_embed}, strict=True)
        assert (seeing(mountain) - seeing(scrambled)).abs().max() > 1e-3


def test_vit_training_step_reduces_loss(mountain):
    vit = _small_vit(depth=1).train()
    opt = torch.optim.AdamW(vit.parameters(), lr=1e-3)
    losses = []
    for _ in range(5):
        loss = (vit(mountain) - 3.0).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert vit.pos_embed.grad is None


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_heads": 5}, "num_heads=5 does not divide dim=64"),
        ({"patch_size": 16}, "patch_size 16 does not divide the image height 60"),
        ({"depth": -1}, "depth must be an int of at least 0, got -1"),
        ({"embed_dim": 0}, "embed_dim must be an int of at least 1, got 0"),
        ({"num_classes": 2.0}, "num_classes must be an int of at least 1, got 2.0"),
        ({"mlp_ratio": 0.01}, "mlp_ratio=0.01 gives an MLP of no hidden unit for dim=64"),
        ({"pos_embed": "sin"}, "pos_embed must be one of ('sincos', 'learned', 'none'), got 'sin'"),
    ],
)
def test_vit_names_the_bad_argument(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        _small_vit(**kwargs)


def test_vit_names_an_image_of_another_shape(mountain):
    vit = _small_vit()
    with pytest.raises(ValueError, match=re.escape("(1, 1, 60, 80), but the model expects")):
        vit(mountain[..., :80])


def test_learned_pos_embed_is_a_timm_initialised_parameter():
    torch.manual_seed(0)
    vit = ViT((60, 100), 20, embed_dim=768, depth=1, pos_embed="learned")
    table = vit.pos_embed
    assert isinstance(table, nn.Parameter) and table.requires_grad
    assert table.shape == (1, 16, 768)
    assert any(p is table for p in vit.parameters())
    assert "pos_embed" in vit.state_dict() and "pos_embed" in dict(vit.named_parameters())
    assert abs(table.std().item() - 0.02) < 0.002 and abs(table.mean().item()) < 0.002
    # the table is learned: a training step moves it
    opt = torch.optim.AdamW(vit.parameters(), lr=1e-3)
    before = table.detach().clone()
    vit(torch.rand(2, 1, 60, 100)).pow(2).mean().backward()
    opt.step()
    assert table.grad is not None and not torch.equal(table.detach(), before)


def test_pos_embed_kinds():
    torch.manual_seed(0)
    fixed = _small_vit()
    torch.manual_seed(0)
    learned = _small_vit(pos_embed="learned")
    assert torch.equal(fixed.pos_embed[0], sinusoid_encoding(16, 64))
    # from one seed, the same weights elsewhere: the learned table is drawn after everything else
    theirs = fixed.state_dict()
    assert all(
        torch.equal(v, theirs[k]) for k, v in learned.state_dict().items() if k != "pos_embed"
    )
    torch.manual_seed(0)
    blind = _small_vit(pos_embed="none")
    assert blind.pos_embed is None
    assert set(fixed.state_dict()) - set(blind.state_dict()) == {"pos_embed"}
    extra = sum(p.numel() for p in learned.parameters()) - sum(
        p.numel() for p in fixed.parameters()
    )
    assert extra == 16 * 64
    with pytest.raises(ValueError, match="'2d'"):
        _small_vit(pos_embed="2d")


def test_forward_features_feeds_the_head():
    vit = _small_vit(num_classes=3)
    x = torch.rand(4, 1, 60, 100)
    with torch.no_grad():
        features = vit.forward_features(x)
        assert features.shape == (4, 16, 64)
        assert torch.equal(vit.head(features[:, 0]), vit(x))


def test_backbone_takes_the_tokenizer_and_keywords_only():
    from vitexplain import PatchEmbed
    from vitexplain.vit import TransformerBackbone

    embed = PatchEmbed((60, 100), 20, embed_dim=64)  # 15 tokens
    with pytest.raises(TypeError):
        TransformerBackbone(embed, "patch_embed", 1, 64, 1, 1, 4.0, False, None)
    backbone = TransformerBackbone(
        embed,
        "tokenizer",
        num_classes=1,
        embed_dim=64,
        depth=1,
        num_heads=1,
        mlp_ratio=4.0,
        qkv_bias=False,
        qk_scale=None,
    )
    assert backbone.tokenizer is embed and backbone.pos_embed.shape == (1, 16, 64)
    assert backbone.encode_tokens(torch.rand(2, 15, 64)).shape == (2, 16, 64)
    assert backbone(torch.rand(2, 1, 60, 100)).shape == (2, 1)


def test_mlp_sizes_are_never_silently_replaced():
    assert Mlp(8, hidden_features=0).fc1.out_features == 0
    assert (
        Mlp(8).fc1.out_features == 8
        and ViT((20, 20), 10, embed_dim=8, depth=1).blocks[0].mlp.fc1.out_features == 32
    )


def test_a_vit_large_can_be_counted_on_the_meta_device():
    with torch.device("meta"):  # nothing is allocated there: a ViT-Large can be counted
        large = ViT(224, 16, embed_dim=1024, depth=24, num_heads=16, num_classes=1000)
    assert sum(p.numel() for p in large.parameters()) > 300_000_000


@pytest.mark.parametrize("pos_embed", ["sincos", "none"])
def test_vit_is_timms_layout_over_pytorchs_own_modules(pos_embed):
    """The whole forward against PyTorch's modules: timm's Conv2d patch embedding, the class
    token first, the position table added, nn.TransformerEncoderLayer blocks, LayerNorm, head."""
    from vitexplain import patch_embed_to_conv, to_torch_encoder_layer

    vit = _small_vit(pos_embed=pos_embed, num_classes=3, qkv_bias=True)
    with torch.no_grad():
        for p in vit.parameters():  # non-trivial norms, biases, class token and table
            nn.init.normal_(p, std=0.2)
    x = torch.rand(2, 1, 60, 100)
    with torch.no_grad():
        tokens = patch_embed_to_conv(vit.patch_embed)(x).flatten(2).transpose(1, 2)  # (B, N, D)
        tokens = torch.cat([vit.cls_token.expand(2, 1, 64), tokens], dim=1)  # (B, N+1, D)
        if pos_embed != "none":
            tokens = tokens + vit.pos_embed
        for block in vit.blocks:
            tokens = to_torch_encoder_layer(block)(tokens)
        features = nn.functional.layer_norm(tokens, (64,), vit.norm.weight, vit.norm.bias)
        assert torch.allclose(vit.forward_features(x), features, atol=1e-5)
        expected = features[:, 0] @ vit.head.weight.T + vit.head.bias
        assert torch.allclose(vit(x), expected, atol=1e-5)


def test_vit_defaults_are_vit_base_sizes_with_one_head_and_the_options_reach_every_block():
    with torch.device("meta"):  # nothing is allocated
        base = ViT(224, 16)
        scaled = ViT(224, 16, embed_dim=64, depth=2, num_heads=4, qkv_bias=True, qk_scale=0.5)
    assert base.embed_dim == 768 and len(base.blocks) == 12 and base.head.out_features == 1
    assert base.patch_embed.in_chans == 1 and base.blocks[0].mlp.fc1.out_features == 4 * 768
    attn = base.blocks[0].attn
    assert attn.num_heads == 1 and attn.qkv.bias is None and attn.scale == 768**-0.5
    block = Block(64)  # a block alone: one head, an MLP four times wider, no qkv bias
    assert block.attn.num_heads == 1 and block.mlp.fc1.out_features == 256
    assert block.attn.qkv.bias is None
    for block in scaled.blocks:
        assert block.attn.num_heads == 4 and block.attn.qkv.bias is not None
        assert block.attn.scale == 0.5


def test_the_least_sizes_the_messages_name_are_accepted():
    """ "depth ... at least 0": a ViT of no block is the patch embedding, position, norm, head;
    an MLP of exactly one hidden unit is the least ``mlp_ratio`` allows."""
    assert len(_small_vit(depth=0).blocks) == 0
    assert _small_vit(depth=1, mlp_ratio=1 / 64).blocks[0].mlp.fc1.out_features == 1
