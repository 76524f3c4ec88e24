"""The package's modules as PyTorch's own (notebooks 01, 02, 06): the same weights in
``nn.Conv2d``, ``nn.MultiheadAttention`` and ``nn.TransformerEncoderLayer``.

Each function builds the PyTorch module and copies our tensors into it, so that the tests, the
benchmark and the notebooks can check that the two give the same numbers. Only the layout differs:
timm's patch embedding is a Conv2d of stride P where ours is a Linear on the patchified image, and
PyTorch keeps q, k, v in one ``in_proj_weight`` where we have ``qkv``.
"""

from __future__ import annotations

import torch
from torch import nn

from .attention import Attention
from .patches import PatchEmbed
from .vit import Block

__all__ = [
    "patch_embed_to_conv",
    "to_torch_encoder_layer",
    "to_torch_multihead_attention",
    "TORCH_ENCODER_LAYER_NAMES",
]


def patch_embed_to_conv(embed: PatchEmbed) -> nn.Conv2d:
    """Build the Conv2d patch embedding of timm / the ViT paper holding a PatchEmbed's numbers.

    timm's ``PatchEmbed.proj`` is ``nn.Conv2d(C, D, kernel_size=P, stride=P)``; its weight is
    ``embed.proj.weight.view(D, C, P, P)`` and its bias ``embed.proj.bias``. The result is a copy:
    changing it leaves ``embed`` alone.

    Args:
        embed: the patch embedding to convert.

    Returns:
        ``nn.Conv2d`` with ``conv(x).flatten(2).transpose(1, 2)`` equal to ``embed(x)`` (up to float
        rounding), shapes (B, C, H, W) -> (B, D, H/P, W/P) -> (B, N, D).
    """
    size, chans, dim = embed.patch_size, embed.in_chans, embed.proj.out_features
    conv = nn.Conv2d(chans, dim, kernel_size=size, stride=size)
    conv = conv.to(embed.proj.weight)
    with torch.no_grad():
        conv.weight.copy_(embed.proj.weight.view(dim, chans, size, size))  # (D, C, P, P)
        conv.bias.copy_(embed.proj.bias)  # (D,)
    return conv


def to_torch_multihead_attention(attn: Attention) -> nn.MultiheadAttention:
    """Build PyTorch's ``nn.MultiheadAttention`` holding an :class:`Attention`'s weights.

    ``in_proj_weight`` takes ``qkv.weight`` (both are ordered q | k | v, heads inside each third),
    ``out_proj`` takes ``proj``. PyTorch has one ``bias`` switch for both projections: when only
    ``proj`` has a bias, ``in_proj_bias`` is zero. The result is a copy (``batch_first=True``,
    same dtype and device) with ``mha(x, x, x)[0]`` equal to ``attn(x)`` up to float rounding.

    Args:
        attn: a self-attention whose ``qkv`` maps D -> 3D, ``proj`` maps D -> D, and whose scale
            is PyTorch's (head_dim ** -0.5).

    Returns:
        ``nn.MultiheadAttention(D, h, bias=..., batch_first=True)``; its forward takes (B, N, D).
    """
    qkv, proj, heads = attn.qkv, attn.proj, attn.num_heads
    dim = qkv.in_features
    if qkv.out_features != 3 * dim or proj.out_features != dim:
        raise ValueError(
            f"attn maps {dim} -> {qkv.out_features} (qkv) -> {proj.out_features} (proj); "
            f"nn.MultiheadAttention needs {dim} -> {3 * dim} -> {dim}"
        )
    if abs(attn.scale - (dim // heads) ** -0.5) > 1e-12 * attn.scale:
        raise ValueError(
            f"attn.scale = {attn.scale} is not head_dim ** -0.5 = {(dim // heads) ** -0.5}, "
            "the only scale nn.MultiheadAttention uses"
        )
    bias = qkv.bias is not None or proj.bias is not None
    mha = nn.MultiheadAttention(dim, heads, bias=bias, batch_first=True)
    mha = mha.to(qkv.weight)
    with torch.no_grad():
        mha.in_proj_weight.copy_(qkv.weight)  # (3D, D)
        mha.out_proj.weight.copy_(proj.weight)  # (D, D)
        for theirs, ours in ((mha.in_proj_bias, qkv.bias), (mha.out_proj.bias, proj.bias)):
            if theirs is None:  # bias=False: neither of our layers has a bias
                continue
            if ours is None:
                theirs.zero_()  # (3D,) or (D,): PyTorch has one bias switch for both
            else:
                theirs.copy_(ours)
    return mha


TORCH_ENCODER_LAYER_NAMES = {
    "self_attn.in_proj_weight": "attn.qkv.weight",
    "self_attn.in_proj_bias": "attn.qkv.bias",
    "self_attn.out_proj.weight": "attn.proj.weight",
    "self_attn.out_proj.bias": "attn.proj.bias",
    "linear1.weight": "mlp.fc1.weight",
    "linear1.bias": "mlp.fc1.bias",
    "linear2.weight": "mlp.fc2.weight",
    "linear2.bias": "mlp.fc2.bias",
    "norm1.weight": "norm1.weight",
    "norm1.bias": "norm1.bias",
    "norm2.weight": "norm2.weight",
    "norm2.bias": "norm2.bias",
}


def to_torch_encoder_layer(block: Block) -> nn.TransformerEncoderLayer:
    """The same block built from PyTorch's own module, with a copy of the block's weights.

    Args:
        block: a :class:`Block`; without a ``qkv`` bias, PyTorch's ``in_proj_bias`` is zero.

    Returns:
        ``nn.TransformerEncoderLayer(norm_first=True, activation="gelu", dropout=0,
        batch_first=True)`` that computes the same function as ``block`` on (B, N, D) tokens.
    """
    dim, heads = block.attn.dim, block.attn.num_heads
    options = {"dropout": 0.0, "activation": "gelu", "batch_first": True, "norm_first": True}
    layer = nn.TransformerEncoderLayer(dim, heads, block.mlp.fc1.out_features, **options)
    ours = block.state_dict()
    if "attn.qkv.bias" not in ours:
        ours["attn.qkv.bias"] = torch.zeros(3 * dim)
    layer.load_state_dict(
        {theirs: ours[mine].clone() for theirs, mine in TORCH_ENCODER_LAYER_NAMES.items()}
    )
    return layer
