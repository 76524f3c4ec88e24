"""vitexplain.plotting.t2t: the figures of notebook 05: T2T soft split."""

import numpy as np

from vitexplain import (
    load_mountains,
)


def test_fold_reconstruction_draws_three_panels_with_colour_bars():
    import torch

    from vitexplain import overlap_count, show_fold_reconstruction

    counts = overlap_count(60, 100, 20, 10, 5)
    image = torch.tensor(load_mountains(), dtype=torch.float32)
    fig = show_fold_reconstruction(image * counts, counts, image)
    assert len(fig.axes) == 6  # three panels, three colour bars
    summed, count_map, recovered = (fig.axes[i].images[0] for i in (0, 1, 2))
    assert summed.get_clim() == (0.0, 4.0) and recovered.get_clim() == (0.0, 1.0)
    assert np.array_equal(count_map.get_array(), counts.numpy())
    assert list(fig.axes[4].get_yticks()) == [1.0, 2.0, 4.0]  # the count colour bar


def test_softsplit_coverage_outlines_every_patch_and_counts_overlaps():
    from matplotlib.collections import LineCollection

    from vitexplain import overlap_count, show_softsplit_coverage

    fig = show_softsplit_coverage(load_mountains(), 20, 10, 5)
    title = fig.get_suptitle()
    assert "6 x 10 = 60 tokens of length 400" in title and "every pixel" in title
    picture, counts = fig.axes[:2]  # then their two colour bars
    (outlines,) = [c for c in picture.collections if isinstance(c, LineCollection)]
    assert len(outlines.get_segments()) == 60
    assert np.array_equal(counts.images[0].get_array(), overlap_count(70, 110, 20, 10, 0).numpy())
    # s = k: no overlap; the last 5 rows and columns of the picture fall outside the 3 x 5 patches
    fig = show_softsplit_coverage(load_mountains(), 20, 20, 5)
    assert "3 x 5 = 15 tokens" in fig.get_suptitle()
    assert "775 pixels of the picture lie in no patch" in fig.get_suptitle()  # 5*100 + 5*60 - 5*5
    fig = show_softsplit_coverage(load_mountains(), 2, 1, 20)  # 99 x 139 patches: not outlined
    assert "13761 patches: too many to outline" in fig.axes[0].get_title()
    assert not [c for c in fig.axes[0].collections if isinstance(c, LineCollection)]
    assert fig.axes[1].images[0].get_array().max() == 4  # k = 2, s = 1: up to 4 patches a pixel


def test_softsplit_explorer_shows_the_error_message_for_impossible_splits():
    from vitexplain import show_softsplit_explorer

    fig = show_softsplit_explorer(load_mountains(), 80, 10, 5)
    (text,) = fig.axes[0].texts
    message = " ".join(text.get_text().split())  # the message is wrapped over lines
    assert "ValueError: kernel k=80 is larger than the padded image height 60 + 2*5 = 70" in message
    assert fig.axes[0].get_title() == "no soft split with k = 80, s = 10, p = 5"
    assert len(show_softsplit_explorer(load_mountains(), 20, 10, 5).axes) == 4  # the coverage


def test_padded_token_hatches_the_padding():
    from matplotlib.patches import PathPatch

    from vitexplain import show_padded_token

    patch = np.pad(load_mountains(), 5)[:20, :20]
    from_picture = np.pad(np.ones((60, 100)), 5)[:20, :20]
    fig = show_padded_token(patch, from_picture, number=1)
    ax_patch, ax_strip = fig.axes[:2]
    (hatched,) = [p for p in ax_patch.patches if isinstance(p, PathPatch)]
    centres = [(c, r) for r in range(20) for c in range(20)]
    assert hatched.get_path().contains_points(centres).sum() == 175  # the padding values
    (strip,) = [p for p in ax_strip.patches if isinstance(p, PathPatch)]
    assert strip.get_path().contains_points([(i, 0) for i in range(400)]).sum() == 175
    assert ax_strip.child_axes[0].xaxis.get_ticklabels()[0].get_fontsize() == 9
    # a narrow figure: the patch above its token
    fig.draw_without_rendering()
    assert ax_patch.get_position().y0 > ax_strip.get_position().y1
