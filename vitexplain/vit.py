"""The Vision Transformer (notebook 06): patch tokens, a class token, position, blocks, a head.

Module and parameter names follow timm (``patch_embed``, ``cls_token``, ``pos_embed``, ``blocks``,
``norm1``, ``attn.qkv``, ``mlp.fc1`` ...), so a state_dict reads the same as timm's.
"""

from __future__ import annotations

import torch
from torch import nn

from .attention import Attention
from .patches import PatchEmbed
from .position import sinusoid_encoding

__all__ = [
    "Block",
    "Mlp",
    "ViT",
]


class Mlp(nn.Module):
    """Two linear layers with a GELU between them, applied to every token on its own.

    Args:
        in_features: input token length.
        hidden_features: hidden length; ``in_features`` when None.
        out_features: output token length; ``in_features`` when None.
    """

    def __init__(
        self, in_features: int, hidden_features: int | None = None, out_features: int | None = None
    ) -> None:
        super().__init__()
        hidden_features = in_features if hidden_features is None else hidden_features
        out_features = in_features if out_features is None else out_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args:
            x: shape (..., in_features).

        Returns:
            Tensor of shape (..., out_features).
        """
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    """A pre-norm transformer encoder block: x + attn(norm1(x)), then x + mlp(norm2(x)).

    Numerically the same as ``nn.TransformerEncoderLayer(norm_first=True, activation="gelu",
    dropout=0, batch_first=True)`` with the same weights.

    Args:
        dim: token length D.
        num_heads: attention heads h; must divide ``dim``.
        mlp_ratio: hidden length of the MLP as a multiple of ``dim``.
        qkv_bias: whether the ``qkv`` projection has a bias.
        qk_scale: factor on the attention logits; head_dim ** -0.5 when None.
    """

    def __init__(
        self,
        dim: int,
        num_heads: int = 1,
        mlp_ratio: float = 4.0,
        qkv_bias: bool = False,
        qk_scale: float | None = None,
    ) -> None:
        super().__init__()
        hidden = int(dim * mlp_ratio)  # the MLP's hidden length
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias, qk_scale=qk_scale)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args:
            x: tokens, shape (B, N, D).

        Returns:
            Tokens of shape (B, N, D).
        """
        x = x + self.attn(self.norm1(x))  # (B, N, D)
        x = x + self.mlp(self.norm2(x))  # (B, N, D)
        return x


#: The position embeddings the backbone can add (``pos_embed=``).
POS_EMBED_KINDS = ("sincos", "learned", "none")


def check_backbone(
    num_classes: int, embed_dim: int, depth: int, mlp_ratio: float, pos_embed: str
) -> None:
    """Refuse a ViT's or T2TViT's sizes with a message that names the argument, before any
    weight is built."""
    for name, value, least in (("num_classes", num_classes, 1), ("embed_dim", embed_dim, 1)):
        if not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an int of at least {least}, got {value!r}")
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be an int of at least 0, got {depth!r}")
    if not int(embed_dim * mlp_ratio) >= 1:
        raise ValueError(
            f"mlp_ratio={mlp_ratio} gives an MLP of no hidden unit for dim={embed_dim}"
        )
    if pos_embed not in POS_EMBED_KINDS:
        raise ValueError(f"pos_embed must be one of {POS_EMBED_KINDS}, got {pos_embed!r}")


def init_weights(module: nn.Module) -> None:
    """timm's initialisation: Linear weights N(0, 0.02) truncated, zero biases, LayerNorm 1, 0."""
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


class TransformerBackbone(nn.Module):
    """What ViT and T2T-ViT share: a tokenizer handed in (timm's ``embed_layer``), then class
    token, position, blocks, norm and head.

    Args:
        embed_layer: the tokenizer, a module mapping images (B, C, H, W) to tokens (B, N, D) with
            an attribute ``num_tokens`` (N): :class:`vitexplain.PatchEmbed` for ViT,
            :class:`vitexplain.T2TModule` for T2T-ViT.
        embed_name: the attribute it is kept under (``patch_embed`` or ``tokens_to_token``: the
            names of timm's and the official T2T-ViT's state_dicts).
        num_classes: outputs of the head.
        embed_dim: token length D.
        depth: number of blocks.
        num_heads: attention heads per block.
        mlp_ratio: MLP hidden length as a multiple of D.
        qkv_bias: whether the ``qkv`` projections have a bias.
        qk_scale: factor on the attention logits; head_dim ** -0.5 when None.
        pos_embed: ``"sincos"``: the fixed sinusoidal table of notebook 03, a buffer;
            ``"learned"``: a parameter of shape (1, N+1, D) trained with the model, drawn from a
            normal distribution of std 0.02 truncated to [-2, 2], as timm does; ``"none"``: no
            position embedding (``pos_embed`` is None), so the model cannot tell where a token
            came from.
    """

    def __init__(
        self,
        embed_layer: nn.Module,
        embed_name: str,
        *,
        num_classes: int,
        embed_dim: int,
        depth: int,
        num_heads: int,
        mlp_ratio: float,
        qkv_bias: bool,
        qk_scale: float | None,
        pos_embed: str = "sincos",
    ) -> None:
        super().__init__()
        num_tokens = embed_layer.num_tokens
        self.num_tokens = num_tokens
        self.embed_dim = embed_dim
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))  # (1, 1, D)
        self.pos_embed: torch.Tensor | None
        if pos_embed == "learned":
            # Trained like any weight: a parameter, drawn in _init_weights as timm does.
            self.pos_embed = nn.Parameter(torch.zeros(1, num_tokens + 1, embed_dim))  # (1, N+1, D)
        elif pos_embed == "sincos":
            # A fixed table, not trained: a buffer (still saved in the state_dict as 'pos_embed').
            table = sinusoid_encoding(num_tokens + 1, embed_dim)[None]  # (1, N+1, D)
            self.register_buffer("pos_embed", table)
        else:  # "none": nothing is added, and nothing is saved
            self.register_buffer("pos_embed", None)
        self.blocks = nn.ModuleList(
            Block(embed_dim, num_heads, mlp_ratio, qkv_bias, qk_scale) for _ in range(depth)
        )
        self.norm = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)
        self.embed_name = embed_name
        self.add_module(embed_name, embed_layer)  # last, as timm's names are listed
        self._init_weights()

    def _init_weights(self) -> None:
        self.apply(init_weights)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        if isinstance(self.pos_embed, nn.Parameter):
            nn.init.trunc_normal_(self.pos_embed, std=0.02)

    def encode_tokens(self, x: torch.Tensor) -> torch.Tensor:
        """Run tokens through class token, position, blocks and norm (everything but the head).

        Args:
            x: tokens, shape (B, N, D).

        Returns:
            Normed tokens of shape (B, N+1, D), the class token first.
        """
        cls = self.cls_token.expand(x.shape[0], -1, -1)  # (B, 1, D)
        x = torch.cat([cls, x], dim=1)  # (B, N+1, D)
        if self.pos_embed is not None:
            x = x + self.pos_embed  # (B, N+1, D)
        for block in self.blocks:
            x = block(x)  # (B, N+1, D)
        return self.norm(x)  # (B, N+1, D)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Classify a batch of images.

        Args:
            x: images, shape (B, C, H, W).

        Returns:
            logits of shape (B, num_classes), from the class token alone. The attention weights
            of every block are read from outside, by :func:`vitexplain.attention_maps`.
        """
        return self.head(self.forward_features(x)[:, 0])  # (B, num_classes)

    def forward_features(self, x: torch.Tensor) -> torch.Tensor:
        """Every token after the final norm, before the head (timm's name).

        Args:
            x: images, shape (B, C, H, W).

        Returns:
            Tensor of shape (B, N+1, D): the class token, then one token per patch (row-major).
        """
        tokenizer = getattr(self, self.embed_name)
        return self.encode_tokens(tokenizer(x))  # (B, N, D) in, (B, N+1, D) out


class ViT(TransformerBackbone):
    """Vision Transformer (Dosovitskiy et al., 2020), with a fixed sinusoidal or a learned position
    embedding.

    Args:
        img_size: (H, W) of the input images, or one int for square images.
        patch_size: side P of the patches; must divide H and W.
        in_chans: channels C of the input images.
        num_classes: outputs of the head.
        embed_dim: token length D.
        depth: number of blocks.
        num_heads: attention heads per block; must divide D.
        mlp_ratio: MLP hidden length as a multiple of D.
        qkv_bias: whether the ``qkv`` projections have a bias.
        qk_scale: factor on the attention logits; head_dim ** -0.5 when None.
        pos_embed: ``"sincos"`` (the default: a fixed sinusoidal table, a buffer),
            ``"learned"`` (a trained parameter, as in the paper and timm) or ``"none"`` (no
            position embedding: the model cannot tell where a patch came from).
    """

    def __init__(
        self,
        img_size: int | tuple[int, int],
        patch_size: int,
        in_chans: int = 1,
        num_classes: int = 1,
        embed_dim: int = 768,
        depth: int = 12,
        num_heads: int = 1,
        mlp_ratio: float = 4.0,
        qkv_bias: bool = False,
        qk_scale: float | None = None,
        pos_embed: str = "sincos",
    ) -> None:
        check_backbone(num_classes, embed_dim, depth, mlp_ratio, pos_embed)
        super().__init__(
            PatchEmbed(img_size, patch_size, in_chans, embed_dim),
            "patch_embed",
            num_classes=num_classes,
            embed_dim=embed_dim,
            depth=depth,
            num_heads=num_heads,
            mlp_ratio=mlp_ratio,
            qkv_bias=qkv_bias,
            qk_scale=qk_scale,
            pos_embed=pos_embed,
        )
