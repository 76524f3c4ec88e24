"""vitexplain: the code behind a notebook series on how Vision Transformers work.

Every public name is importable from here (``import vitexplain as vx; vx.patchify(...)``) and
lives in the module of the notebook that introduces it; the imports below say which. The figure
functions (``vitexplain.plotting``) and the sliders (``vitexplain.explore``) load matplotlib, so
they are imported on first use (PEP 562), not by ``import vitexplain``; editors and type checkers
read them from the ``TYPE_CHECKING`` block.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .attention import Attention, attention
from .data import load_mountains, mountain_at_dusk, save_mountains
from .digits import (
    DIGITS_RECIPES,
    DIGITS_VIT_CONFIG,
    accuracy_standard_error,
    digits_cnn,
    digits_vit,
    load_digit_split,
    load_digit_validation_split,
    load_digits_ablation,
    load_digits_selection,
    load_trained_digits_vit,
    train_digits_cnn,
    train_digits_vit,
)
from .errata import articles_rel_pos_2d
from .inspection import (
    attention_by_origin,
    attention_maps,
    check_shape,
    class_token_attention,
    count_parameters,
    trace_shapes,
)
from .interpret import (
    attention_entropy,
    attention_rollout,
    embedding_components,
    fixed_top_key,
    logit_lens,
    mean_attention_distance,
    occlusion_map,
    rank_correlation,
    reference_attention,
    top_k_overlap,
    top_key_share,
)
from .learned_position import (
    grid_neighbours,
    grid_similarity,
    neighbour_contrast,
    neighbour_wins,
    position_targets,
    token_position_logits,
    train_where_am_i,
)
from .patches import (
    PatchEmbed,
    one_hot_patch_kernels,
    patchify,
    patchify_by_conv,
    patchify_by_slicing,
    scramble_patches,
    unpatchify,
)
from .position import (
    clock_frequencies,
    clock_pairs,
    clock_periods,
    embedding_similarity,
    relative_rotation,
    resize_pos_embed,
    sinusoid_encoding,
    sinusoid_encoding_2d,
    toeplitz_error,
)
from .relative_position import (
    AbsPosEmb1D,
    RelPosEmb1D,
    RelPosEmb2D,
    attention_with_position,
    grid_offsets,
    relative_index,
    relative_to_absolute,
    skew_steps,
)
from .scramble import (
    filled_patch_outputs,
    make_scramble_dataset,
    moved_patch_outputs,
    swap_patches,
)
from .t2t import T2TModule, T2TViT, TokenAttention, TokenTransformer, soft_split
from .torch_modules import (
    patch_embed_to_conv,
    to_torch_encoder_layer,
    to_torch_multihead_attention,
)
from .training import evaluate, fit, random_shift, train_classifier
from .unfold import count_tokens, fold_tokens, overlap_count, soft_split_boxes
from .vit import Block, Mlp, ViT

if TYPE_CHECKING:  # imported on first use at run time (see __getattr__)
    from . import exercises
    from .explore import (
        Choice,
        Number,
        clock_explore,
        interact_figure,
        softsplit_explore,
        tokenization_explore,
    )
    from .plotting import (
        display_figure,
        display_gif,
        figure_to_array,
        figure_to_png,
        gif_bytes,
        save_figure,
        save_gif,
        show_attention_by_origin,
        show_attention_heads,
        show_attention_locality,
        show_class_token_attention,
        show_class_token_maps,
        show_clock_explorer,
        show_clocks,
        show_columns,
        show_digits,
        show_embedding,
        show_embedding_bases,
        show_fold_reconstruction,
        show_frequencies,
        show_grid_offsets,
        show_grid_similarity,
        show_image,
        show_logit_lens,
        show_logit_matrices,
        show_looks_and_uses,
        show_matrices,
        show_matrix,
        show_padded_token,
        show_patch_and_token,
        show_patch_grid,
        show_position_similarity,
        show_probe_comparison,
        show_relative_distances,
        show_resized_embedding,
        show_scramble_examples,
        show_scrambled_patches,
        show_similarity,
        show_skew_steps,
        show_softsplit_coverage,
        show_softsplit_explorer,
        show_softsplit_frame,
        show_table_bands,
        show_token_matrix,
        show_tokenization,
        show_tokens_plus_embedding,
        show_training_curves,
        show_vit_figure7,
        softsplit_frames,
    )

__version__ = "0.1.0"

# Modules loaded on first use (they import matplotlib or ipywidgets); the public names they hold
# are those of __all__ that the imports above do not bind.
_LAZY_SOURCES = ("plotting", "explore")
_LAZY_MODULES = ("exercises", "explore", "plotting")

# What a reader uses. Building blocks of the figures (axes helpers, colour constants) stay in
# vitexplain.plotting, module internals in their modules.
__all__ = [
    "AbsPosEmb1D",
    "articles_rel_pos_2d",
    "Attention",
    "attention",
    "attention_by_origin",
    "attention_entropy",
    "attention_maps",
    "attention_rollout",
    "attention_with_position",
    "Block",
    "check_shape",
    "Choice",
    "class_token_attention",
    "clock_explore",
    "clock_frequencies",
    "clock_pairs",
    "clock_periods",
    "count_parameters",
    "count_tokens",
    "accuracy_standard_error",
    "digits_cnn",
    "digits_vit",
    "DIGITS_RECIPES",
    "DIGITS_VIT_CONFIG",
    "display_figure",
    "display_gif",
    "embedding_components",
    "embedding_similarity",
    "evaluate",
    "exercises",
    "filled_patch_outputs",
    "fit",
    "fixed_top_key",
    "figure_to_array",
    "figure_to_png",
    "fold_tokens",
    "gif_bytes",
    "grid_neighbours",
    "grid_offsets",
    "grid_similarity",
    "interact_figure",
    "load_digit_split",
    "load_digit_validation_split",
    "load_digits_ablation",
    "load_digits_selection",
    "load_mountains",
    "load_trained_digits_vit",
    "logit_lens",
    "make_scramble_dataset",
    "moved_patch_outputs",
    "mean_attention_distance",
    "Mlp",
    "mountain_at_dusk",
    "neighbour_contrast",
    "neighbour_wins",
    "Number",
    "occlusion_map",
    "one_hot_patch_kernels",
    "overlap_count",
    "patch_embed_to_conv",
    "PatchEmbed",
    "patchify",
    "patchify_by_conv",
    "patchify_by_slicing",
    "position_targets",
    "random_shift",
    "rank_correlation",
    "reference_attention",
    "relative_index",
    "relative_rotation",
    "relative_to_absolute",
    "RelPosEmb1D",
    "RelPosEmb2D",
    "resize_pos_embed",
    "save_figure",
    "save_gif",
    "save_mountains",
    "scramble_patches",
    "show_attention_by_origin",
    "show_attention_locality",
    "show_attention_heads",
    "show_class_token_attention",
    "show_class_token_maps",
    "show_clock_explorer",
    "show_clocks",
    "show_columns",
    "show_digits",
    "show_embedding",
    "show_embedding_bases",
    "show_fold_reconstruction",
    "show_frequencies",
    "show_grid_offsets",
    "show_grid_similarity",
    "show_image",
    "show_logit_lens",
    "show_logit_matrices",
    "show_looks_and_uses",
    "show_probe_comparison",
    "show_matrices",
    "show_matrix",
    "show_padded_token",
    "show_patch_and_token",
    "show_patch_grid",
    "show_position_similarity",
    "show_relative_distances",
    "show_resized_embedding",
    "show_scramble_examples",
    "show_scrambled_patches",
    "show_similarity",
    "show_skew_steps",
    "show_softsplit_coverage",
    "show_softsplit_explorer",
    "show_softsplit_frame",
    "show_table_bands",
    "show_token_matrix",
    "show_tokenization",
    "show_tokens_plus_embedding",
    "show_training_curves",
    "show_vit_figure7",
    "sinusoid_encoding",
    "sinusoid_encoding_2d",
    "skew_steps",
    "soft_split",
    "soft_split_boxes",
    "softsplit_explore",
    "softsplit_frames",
    "swap_patches",
    "T2TModule",
    "T2TViT",
    "to_torch_encoder_layer",
    "to_torch_multihead_attention",
    "toeplitz_error",
    "token_position_logits",
    "tokenization_explore",
    "top_k_overlap",
    "top_key_share",
    "TokenAttention",
    "TokenTransformer",
    "trace_shapes",
    "train_classifier",
    "train_digits_cnn",
    "train_digits_vit",
    "train_where_am_i",
    "unpatchify",
    "ViT",
]


def __getattr__(name: str) -> object:
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in __all__:  # a figure or slider function: load its module now
        for module_name in _LAZY_SOURCES:
            module = importlib.import_module(f".{module_name}", __name__)
            if hasattr(module, name):
                globals()[name] = value = getattr(module, name)  # later look-ups skip this
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_LAZY_MODULES})
