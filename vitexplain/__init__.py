"""vitexplain: the code behind a notebook series on how Vision Transformers work.

Everything a notebook needs is importable from here; each name lives in the module of the
notebook that introduces it.
"""

from .attention import Attention, attention
from .data import load_mountains, mountain_at_dusk
from .patches import PatchEmbed, count_tokens, patchify, scramble_patches, unpatchify
from .plotting import (
    figure_to_array,
    save_figure,
    save_gif,
    show_embedding,
    show_image,
    show_matrix,
    show_patch_grid,
)
from .position import (
    clock_periods,
    relative_rotation,
    resize_pos_embed,
    sinusoid_encoding,
    sinusoid_encoding_2d,
)
from .relative_position import (
    AbsPosEmb1D,
    RelPosEmb1D,
    RelPosEmb2D,
    relative_index,
    relative_to_absolute,
)
from .t2t import T2TModule, T2TViT, TokenAttention, TokenTransformer, soft_split
from .vit import Block, Mlp, ViT

__version__ = "0.1.0"

__all__ = [
    "AbsPosEmb1D", "Attention", "Block", "Mlp", "PatchEmbed", "RelPosEmb1D", "RelPosEmb2D",
    "T2TModule", "T2TViT", "TokenAttention", "TokenTransformer", "ViT", "attention",
    "clock_periods", "count_tokens", "figure_to_array", "load_mountains", "mountain_at_dusk",
    "patchify", "relative_index", "relative_rotation", "relative_to_absolute", "resize_pos_embed",
    "save_figure", "save_gif", "scramble_patches", "show_embedding", "show_image", "show_matrix",
    "show_patch_grid", "sinusoid_encoding", "sinusoid_encoding_2d", "soft_split", "unpatchify",
]  # fmt: skip
