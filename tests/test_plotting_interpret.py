"""vitexplain.plotting.interpret: the figures of notebook 08 (the local-or-global figure)."""

import numpy as np
import torch

from vitexplain import show_attention_locality


def test_attention_locality_draws_every_head_and_every_reference():
    g = torch.Generator().manual_seed(0)
    distances, entropy, share = (torch.rand(3, 2, generator=g) for _ in range(3))
    references = {"self only": (0.0, 0.0, 1.0), "uniform": (4.0, 2.77, 0.0625)}
    fig = show_attention_locality(distances, entropy, share, references)
    assert len(fig.axes) == 3
    for ax, values in zip(fig.axes, (distances, entropy, share), strict=True):
        points = [c.get_offsets() for c in ax.collections]
        assert len(points) == 2  # one scatter per head
        for head, offsets in enumerate(points):
            assert np.allclose(offsets[:, 1], values[:, head].numpy())
            assert np.allclose(np.round(offsets[:, 0]), [1, 2, 3])  # blocks 1..3, offset a bit
        assert ax.get_xlabel() == "block"
    for i, ax in enumerate(fig.axes):
        levels = sorted(line.get_ydata()[0] for line in ax.lines)
        assert levels == sorted(r[i] for r in references.values())
    labels = fig.axes[2].get_legend_handles_labels()[1]
    assert labels == ["head 1", "head 2", "self only", "uniform"]
