"""Tokens-to-Token ViT (notebook 05): overlapping soft splits and token transformers.

T2T-ViT (Yuan et al., 2021) tokenizes in three soft splits, each an ``nn.Unfold`` whose patches
overlap. The official code fixes (kernel, stride, padding) to (7, 4, 2), (3, 2, 1), (3, 2, 1); the
paper writes a split as kernel k with *overlap* s, i.e. stride k - s. This package generalises the
three splits to any kernel with stride ceil(k / 2) and padding ceil(k / 4), which gives exactly the
official numbers for k = 7 and k = 3. Between splits a token transformer mixes the tokens, and the
tokens are laid back onto their grid as an image for the next split. Names follow the official code,
so its ``tokens_type='transformer'`` state_dict loads here. The geometry of a split
(:func:`vitexplain.soft_split_boxes`, :func:`vitexplain.overlap_count`,
:func:`vitexplain.fold_tokens`) lives in ``unfold.py``, beside :func:`vitexplain.count_tokens`.
"""

from __future__ import annotations

import math

import torch
from einops import rearrange
from torch import nn

from .attention import Attention
from .vit import Mlp, TransformerBackbone, check_backbone

__all__ = [
    "soft_split",
    "T2TModule",
    "T2TViT",
    "TokenAttention",
    "TokenTransformer",
]


class TokenAttention(Attention):
    """Attention that changes the token length from ``dim`` to ``out_dim``, with a value skip.

    The input and output lengths differ, so ``x + attn(x)`` is impossible; the official code adds
    the values v (already ``out_dim`` long) instead: out = v + proj(softmax(q k^T * scale) v).
    It is :class:`vitexplain.Attention` with ``out_dim`` and ``value_skip=True``, so it also has
    the explicit path (``fused=False``) and :meth:`attention_weights` -> (B, h, N, N).

    Args:
        dim: input token length.
        out_dim: output token length.
        num_heads: heads; must divide ``out_dim`` (the official code runs with 1 only).
        qkv_bias: whether ``qkv`` has a bias.
        qk_scale: factor on the logits; ``(dim // num_heads) ** -0.5`` when None. Note: the official
            code scales by the *input* length, not by the head dimension of q and k.
        fused: use ``F.scaled_dot_product_attention`` in ``forward`` (it never holds the
            (B, h, N, N) weights: 2500 x 2500 for a 400 x 100 image); the weights are read by
            :meth:`attention_weights`.
    """

    def __init__(
        self,
        dim: int,
        out_dim: int,
        num_heads: int = 1,
        qkv_bias: bool = False,
        qk_scale: float | None = None,
        fused: bool = True,
    ) -> None:
        scale = qk_scale if qk_scale is not None else (dim // num_heads) ** -0.5
        super().__init__(dim, num_heads, qkv_bias, scale, fused, out_dim=out_dim, value_skip=True)


class TokenTransformer(nn.Module):
    """The token transformer of T2T-ViT: x = v + attention, then x + mlp(norm2(x)).

    Args:
        dim: input token length.
        out_dim: output token length.
        num_heads: heads (the official code uses a single head).
        mlp_ratio: MLP hidden length as a multiple of ``out_dim``.
        qkv_bias: whether ``qkv`` has a bias.
        qk_scale: factor on the logits; ``(dim // num_heads) ** -0.5`` when None, as in the
            official code.
    """

    def __init__(
        self,
        dim: int,
        out_dim: int,
        num_heads: int = 1,
        mlp_ratio: float = 1.0,
        qkv_bias: bool = False,
        qk_scale: float | None = None,
    ) -> None:
        super().__init__()
        hidden = int(out_dim * mlp_ratio)  # the MLP's hidden length
        self.dim = dim
        self.norm1 = nn.LayerNorm(dim)
        self.attn = TokenAttention(dim, out_dim, num_heads, qkv_bias, qk_scale)
        self.norm2 = nn.LayerNorm(out_dim)
        self.mlp = Mlp(out_dim, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args:
            x: tokens, shape (B, N, dim).

        Returns:
            Tokens of shape (B, N, out_dim).
        """
        x = self.attn(self.norm1(x))  # (B, N, out_dim), value skip inside
        return x + self.mlp(self.norm2(x))  # (B, N, out_dim)


def soft_split(kernel_size: int) -> nn.Unfold:
    """A soft split: ``nn.Unfold(k, stride=ceil(k / 2), padding=ceil(k / 4))``.

    The official T2T-ViT code fixes (7, 4, 2) and (3, 2, 1); this rule reproduces both and
    extends them to any kernel (neighbouring patches then share about half their width).

    Args:
        kernel_size: patch side k.

    Returns:
        The unfold layer; it maps (B, C, H, W) to (B, C * k * k, N).
    """
    k = kernel_size
    return nn.Unfold(k, stride=math.ceil(k / 2), padding=math.ceil(k / 4))


class T2TModule(nn.Module):
    """Tokens-to-Token: three soft splits with two token transformers between them.

    Args:
        img_size: (H, W) of the input images, or one int for square images.
        in_chans: channels C of the input images.
        embed_dim: length D of the output tokens.
        token_dim: token length inside the module (after each token transformer).
        softsplit_kernels: kernel of each of the three soft splits.
    """

    def __init__(
        self,
        img_size: int | tuple[int, int],
        in_chans: int = 1,
        embed_dim: int = 768,
        token_dim: int = 64,
        softsplit_kernels: tuple[int, int, int] = (7, 3, 3),
    ) -> None:
        super().__init__()
        img_size = (img_size, img_size) if isinstance(img_size, int) else tuple(img_size)
        self.img_size, self.in_chans = img_size, in_chans
        self.grid_sizes = []  # the token grid after each split
        h, w = img_size
        if len(softsplit_kernels) != 3:
            raise ValueError(
                f"softsplit_kernels must hold three kernel sizes, got {softsplit_kernels!r}"
            )
        k0, k1, k2 = softsplit_kernels
        for split, k in enumerate(softsplit_kernels):
            s, p = math.ceil(k / 2), math.ceil(k / 4)  # soft_split's stride and padding
            if k > min(h, w) + 2 * p:
                raise ValueError(
                    f"img_size {img_size} does not fit softsplit_kernels {softsplit_kernels}: "
                    f"kernel {k} of soft split {split} is larger than its {h} x {w} grid "
                    f"padded by {p}"
                )
            h, w = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
            self.grid_sizes.append((h, w))
        self.num_tokens = h * w
        self.soft_split0 = soft_split(k0)
        self.soft_split1 = soft_split(k1)
        self.soft_split2 = soft_split(k2)
        self.attention1 = TokenTransformer(in_chans * k0 * k0, token_dim)
        self.attention2 = TokenTransformer(token_dim * k1 * k1, token_dim)
        self.project = nn.Linear(token_dim * k2 * k2, embed_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args:
            x: images, shape (B, C, H, W).

        Returns:
            Tokens of shape (B, N, embed_dim).
        """
        (h, w), c = self.img_size, self.in_chans
        if x.ndim != 4 or x.shape[1:] != (c, h, w):
            raise ValueError(
                f"x has shape {tuple(x.shape)}, but the model expects (B, {c}, {h}, {w})"
            )
        (h0, _), (h1, _), _ = self.grid_sizes
        x = self.soft_split0(x).transpose(1, 2)  # (B, N0, C*k0*k0)
        x = self.attention1(x)  # (B, N0, token_dim)
        x = rearrange(x, "b (h w) c -> b c h w", h=h0)  # tokens back onto their grid
        x = self.soft_split1(x).transpose(1, 2)  # (B, N1, token_dim*k1*k1)
        x = self.attention2(x)  # (B, N1, token_dim)
        x = rearrange(x, "b (h w) c -> b c h w", h=h1)
        x = self.soft_split2(x).transpose(1, 2)  # (B, N2, token_dim*k2*k2)
        return self.project(x)  # (B, N2, embed_dim)


class T2TViT(TransformerBackbone):
    """T2T-ViT: the T2T module as tokenizer, then the ViT backbone.

    Args:
        img_size: (H, W) of the input images, or one int for square images.
        in_chans: channels C of the input images.
        num_classes: outputs of the head.
        embed_dim: token length D.
        depth: number of blocks.
        num_heads: attention heads per block; must divide D.
        mlp_ratio: MLP hidden length as a multiple of D.
        token_dim: token length inside the T2T module.
        softsplit_kernels: kernel of each of the three soft splits.
        qkv_bias: whether the ``qkv`` projections of the blocks have a bias.
        qk_scale: factor on the attention logits of the blocks.
    """

    def __init__(
        self,
        img_size: int | tuple[int, int],
        in_chans: int = 1,
        num_classes: int = 1,
        embed_dim: int = 768,
        depth: int = 12,
        num_heads: int = 1,
        mlp_ratio: float = 4.0,
        token_dim: int = 64,
        softsplit_kernels: tuple[int, int, int] = (7, 3, 3),
        qkv_bias: bool = False,
        qk_scale: float | None = None,
    ) -> None:
        check_backbone(num_classes, embed_dim, depth, mlp_ratio, "sincos")
        super().__init__(
            T2TModule(img_size, in_chans, embed_dim, token_dim, softsplit_kernels),
            "tokens_to_token",
            num_classes=num_classes,
            embed_dim=embed_dim,
            depth=depth,
            num_heads=num_heads,
            mlp_ratio=mlp_ratio,
            qkv_bias=qkv_bias,
            qk_scale=qk_scale,
        )
