"""vitexplain.inspection: shapes on the way, parameter counts, where the class token looks."""

import numpy as np
import pytest
import torch

from vitexplain import (
    T2TModule,
    T2TViT,
    ViT,
    attention_by_origin,
    attention_maps,
    check_shape,
    class_token_attention,
    count_parameters,
    trace_shapes,
)


def test_check_shape_passes_the_tensor_on_and_prints_one_line(capsys):
    x = torch.zeros(13, 176, 64)
    assert check_shape("tokens", x, (13, 176, 64)) is x
    assert check_shape("quiet", x, [13, 176, 64], show=False) is x
    assert capsys.readouterr().out == f"{'tokens':<42} (13, 176, 64)\n"
    with torch.device("meta"):  # shapes without values work too
        assert check_shape("meta", torch.empty(2, 3), (2, 3), show=False).shape == (2, 3)


def test_check_shape_names_the_stage_that_went_wrong():
    x = torch.zeros(13, 175, 64)
    with pytest.raises(
        ValueError, match=r"norm has shape \(13, 175, 64\), expected \(13, 176, 64\)"
    ):
        check_shape("norm", x, (13, 176, 64))
    with pytest.raises(ValueError, match="expected \\(13, 175\\)"):
        check_shape("head", x, (13, 175))  # a missing dimension


def test_class_token_attention_is_row_zero_of_the_softmax():
    torch.manual_seed(0)
    vit = ViT((60, 100), 20, embed_dim=16, depth=1, num_heads=2).eval()
    x = torch.rand(3, 1, 60, 100)
    got = class_token_attention(vit, x)
    assert got.shape == (3, 2, 15)
    with torch.no_grad():  # by hand: class token + patches + position, norm1, q and k, softmax
        z = torch.cat([vit.cls_token.expand(3, -1, -1), vit.patch_embed(x)], 1) + vit.pos_embed
        block = vit.blocks[0]
        q, k, _ = block.attn.qkv(block.norm1(z)).reshape(3, 16, 3, 2, 8).permute(2, 0, 3, 1, 4)
        weights = torch.softmax(q @ k.transpose(-1, -2) * 8**-0.5, dim=-1)  # (3, 2, 16, 16)
    assert torch.allclose(got, weights[:, :, 0, 1:], atol=1e-6)
    assert (got.sum(-1) < 1).all()  # the rest goes to the class token itself


def _attention_by_hand(vit: ViT, x: torch.Tensor) -> list[torch.Tensor]:
    """Every block's attention weights, by walking the ViT's forward pass by hand."""
    heads = vit.blocks[0].attn.num_heads
    with torch.no_grad():
        z = torch.cat([vit.cls_token.expand(len(x), -1, -1), vit.patch_embed(x)], dim=1)
        z = z + vit.pos_embed  # (B, N+1, D)
        maps = []
        for block in vit.blocks:
            b, n, d = z.shape
            qkv = block.attn.qkv(block.norm1(z)).view(b, n, 3, heads, d // heads)
            q, k = qkv.permute(2, 0, 3, 1, 4)[:2]  # (B, h, N+1, d) each
            maps.append(torch.softmax(q @ k.transpose(-2, -1) * block.attn.scale, dim=-1))
            z = block(z)
    return maps


def test_attention_maps_reads_every_block_by_hooks_and_leaves_no_hook():
    torch.manual_seed(0)
    vit = ViT((20, 20), 10, embed_dim=8, depth=3, num_heads=2)  # train mode
    x = torch.rand(2, 1, 20, 20)
    maps = attention_maps(vit, x)
    expected = _attention_by_hand(vit.eval(), x)
    assert len(maps) == 3 and all(m.shape == (2, 2, 5, 5) for m in maps)
    assert all(torch.allclose(m, e, atol=1e-6) for m, e in zip(maps, expected, strict=True))
    assert all(not block.attn._forward_hooks for block in vit.blocks)
    t2t = T2TViT((28, 28), embed_dim=8, depth=1, token_dim=4)
    assert [m.shape[-1] for m in attention_maps(t2t, torch.rand(1, 1, 28, 28))] == [49, 16, 5]
    with pytest.raises(ValueError, match="holds no vitexplain Attention"):
        attention_maps(torch.nn.Linear(2, 2), torch.rand(1, 2))


def test_class_token_attention_picks_the_block_and_keeps_the_mode():
    torch.manual_seed(0)
    vit = ViT((20, 20), 10, embed_dim=8, depth=2, num_heads=2)  # train mode
    x = torch.rand(2, 1, 20, 20)
    weights = _attention_by_hand(vit, x)
    assert torch.allclose(class_token_attention(vit, x, block=0), weights[0][:, :, 0, 1:])
    assert torch.allclose(class_token_attention(vit, x, block=-1), weights[1][:, :, 0, 1:])
    assert vit.training


def test_attention_by_origin_matches_a_loop():
    g = torch.Generator().manual_seed(0)
    weights = torch.rand(6, 15, generator=g)
    orders = torch.stack([torch.randperm(15, generator=g) for _ in range(6)])
    got = attention_by_origin(weights, orders, (3, 5))
    total, count = np.zeros((3, 3)), np.zeros((3, 3))
    for b in range(6):
        for position in range(15):
            r, s = position // 5, int(orders[b, position]) // 5
            total[r, s] += float(weights[b, position])
            count[r, s] += 1
    assert got.shape == (3, 3) and np.allclose(got.numpy(), total / count)
    identity = attention_by_origin(weights, torch.arange(15).expand(6, 15), (3, 5))
    assert torch.isnan(identity[0, 1])  # intact pictures: every patch sits in its own row
    assert torch.isclose(identity[1, 1], weights[:, 5:10].double().mean())


def test_count_parameters_matches_the_formula_and_skips_the_position_buffer():
    vit = ViT((60, 100), 20, num_classes=3, embed_dim=16, depth=2, num_heads=2)
    counts = count_parameters(vit)
    d = 16
    assert counts["patch_embed"] == 400 * d + d and counts["cls_token"] == d
    assert counts["blocks"] == 2 * (12 * d * d + 10 * d)  # no qkv bias: 3d fewer than 13d
    assert counts["norm"] == 2 * d and counts["head"] == 3 * d + 3
    assert counts["total"] == sum(p.numel() for p in vit.parameters())
    assert "pos_embed" not in counts
    with torch.device("meta"):
        big = ViT(
            224,
            16,
            in_chans=3,
            num_classes=1000,
            embed_dim=768,
            depth=12,
            num_heads=12,
            qkv_bias=True,
        )
    assert count_parameters(big)["total"] == 86_416_360  # timm's ViT-B/16 minus 197 x 768 pos_embed


def test_count_parameters_skips_frozen_parameters():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    model[0].weight.requires_grad_(False)
    assert count_parameters(model) == {"0": 4, "1": 10, "total": 14}


def test_trace_shapes_sees_every_step_of_the_t2t_module():
    t2t = T2TModule((40, 30), embed_dim=32, token_dim=8)
    x = torch.rand(2, 1, 40, 30)
    names = ["soft_split0", "attention1", "soft_split1", "attention2", "soft_split2", "project"]
    shapes = trace_shapes(t2t, x, names)
    # the same steps by hand
    (h0, w0), (h1, w1), (h2, w2) = t2t.grid_sizes
    with torch.no_grad():
        a = t2t.soft_split0(x)
        b = t2t.attention1(a.transpose(1, 2))
        c = t2t.soft_split1(b.transpose(1, 2).reshape(2, 8, h0, w0))
        d = t2t.attention2(c.transpose(1, 2))
        e = t2t.soft_split2(d.transpose(1, 2).reshape(2, 8, h1, w1))
        f = t2t.project(e.transpose(1, 2))
    expected = [tuple(t.shape) for t in (a, b, c, d, e, f)]
    assert list(shapes) == names and list(shapes.values()) == expected
    assert shapes["project"] == (2, h2 * w2, 32)
    assert all(not m._forward_hooks for m in t2t.modules())  # hooks removed
    vit = T2TViT((40, 30), embed_dim=32, depth=1, token_dim=8)
    assert trace_shapes(vit, x, ["blocks.0", "head"])["blocks.0"] == (2, h2 * w2 + 1, 32)


def test_trace_shapes_rejects_bad_input():
    t2t = T2TModule((40, 30), embed_dim=32, token_dim=8)
    with pytest.raises(ValueError, match="no submodules named \\['soft_split9'\\]"):
        trace_shapes(t2t, torch.rand(1, 1, 40, 30), ["soft_split0", "soft_split9"])


def test_images_of_the_wrong_dtype_are_named():
    ViT((20, 20), 10, embed_dim=8, depth=1)
