"""vitexplain: the code behind a notebook series on how Vision Transformers work.

Everything a notebook needs is importable from here; each name lives in the module of the
notebook that introduces it.
"""

from .attention import Attention, attention
from .data import load_mountains, mountain_at_dusk
from .explore import interact_figure
from .patches import (
    PatchEmbed,
    count_tokens,
    one_hot_patch_kernels,
    patch_embed_to_conv,
    patchify,
    patchify_by_conv,
    patchify_by_slicing,
    scramble_patches,
    unpatchify,
)
from .plotting import (
    figure_to_array,
    figure_to_png,
    save_figure,
    save_gif,
    show_attention_heads,
    show_class_token_attention,
    show_clock_explorer,
    show_clocks,
    show_embedding,
    show_embedding_bases,
    show_fold_reconstruction,
    show_frequencies,
    show_grid_offsets,
    show_grid_similarity,
    show_image,
    show_logit_matrices,
    show_matrices,
    show_matrix,
    show_patch_and_token,
    show_patch_grid,
    show_relative_distances,
    show_resized_embedding,
    show_scramble_examples,
    show_scrambled_patches,
    show_similarity,
    show_skew_steps,
    show_softsplit_coverage,
    show_softsplit_explorer,
    show_softsplit_frame,
    show_token_matrix,
    show_tokenization,
    show_tokens_plus_embedding,
    show_training_curves,
    softsplit_frames,
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
    articles_rel_pos_2d,
    grid_offsets,
    relative_index,
    relative_to_absolute,
    skew_steps,
)
from .t2t import (
    T2TModule,
    T2TViT,
    TokenAttention,
    TokenTransformer,
    fold_tokens,
    overlap_count,
    soft_split,
    soft_split_boxes,
    trace_shapes,
)
from .training import (
    attention_by_origin,
    class_token_attention,
    count_parameters,
    evaluate,
    make_scramble_dataset,
    print_now,
    train_classifier,
)
from .vit import Block, Mlp, ViT, to_torch_encoder_layer

__version__ = "0.1.0"

__all__ = [
    "AbsPosEmb1D", "articles_rel_pos_2d", "attention", "Attention", "attention_by_origin", "Block",
    "class_token_attention", "clock_frequencies", "clock_pairs", "clock_periods",
    "count_parameters", "count_tokens", "embedding_similarity", "evaluate", "figure_to_array",
    "figure_to_png", "fold_tokens", "grid_offsets", "interact_figure", "load_mountains",
    "make_scramble_dataset", "Mlp", "mountain_at_dusk", "one_hot_patch_kernels", "overlap_count",
    "patch_embed_to_conv", "PatchEmbed", "patchify", "patchify_by_conv", "patchify_by_slicing",
    "print_now", "relative_index", "relative_rotation", "relative_to_absolute", "RelPosEmb1D",
    "RelPosEmb2D", "resize_pos_embed", "save_figure", "save_gif", "scramble_patches",
    "show_attention_heads", "show_class_token_attention", "show_clock_explorer", "show_clocks",
    "show_embedding", "show_embedding_bases", "show_fold_reconstruction", "show_frequencies",
    "show_grid_offsets", "show_grid_similarity", "show_image", "show_logit_matrices",
    "show_matrices", "show_matrix", "show_patch_and_token", "show_patch_grid",
    "show_relative_distances", "show_resized_embedding", "show_scramble_examples",
    "show_scrambled_patches", "show_similarity", "show_skew_steps", "show_softsplit_coverage",
    "show_softsplit_explorer", "show_softsplit_frame", "show_token_matrix", "show_tokenization",
    "show_tokens_plus_embedding", "show_training_curves", "sinusoid_encoding",
    "sinusoid_encoding_2d", "skew_steps", "soft_split", "soft_split_boxes", "softsplit_frames",
    "T2TModule", "T2TViT", "toeplitz_error", "to_torch_encoder_layer", "TokenAttention",
    "TokenTransformer", "trace_shapes", "train_classifier", "unpatchify", "ViT",
]  # fmt: skip
