"""vitexplain.plotting.clocks: the clocks of notebook 03 and their explorer."""

import numpy as np
import pytest

from vitexplain import (
    figure_to_array,
    sinusoid_encoding,
)


def test_clocks_put_each_pair_on_its_unit_circle():
    from matplotlib.patches import Circle

    from vitexplain import clock_periods, show_clocks

    table = sinusoid_encoding(100, 18).numpy()
    fig = show_clocks(table)
    ax, cbar = fig.axes
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    assert len(circles) == 9 and cbar.get_xlabel() == "position (token)"  # the bar lies below
    assert figure_to_array(fig).shape[:2] == (560, 480)  # 480 px wide instead of 560
    titles = [t.get_text() for t in ax.texts]
    assert titles[0] == "pair 0\nperiod 6.3" and titles[8] == "pair 8\nperiod 22,581"
    assert f"{clock_periods(18)[3]:.1f}" in titles[3]
    points = ax.collections[0].get_offsets()  # (9 * 100, 2): pair by pair, position by position
    assert points.shape == (900, 2)
    for n, circle in enumerate(circles):
        centred = points[100 * n : 100 * (n + 1)] - np.array(circle.center)
        assert np.allclose(np.hypot(*centred.T), 1, atol=1e-6)  # on the unit circle
        assert np.allclose(centred, table[:, 2 * n : 2 * n + 2])  # (sin, cos) of pair n
    assert np.array_equal(ax.collections[0].get_array(), np.tile(np.arange(100), 9))
    wide = show_clocks(sinusoid_encoding(10, 768), pairs=[0, 383])
    assert len([p for p in wide.axes[0].patches if isinstance(p, Circle)]) == 2
    with pytest.raises(ValueError, match=r"pairs must hold 1 to 9 indices in \[0, 384\), got"):
        show_clocks(sinusoid_encoding(10, 768), pairs=[384])


def test_clock_explorer_redraws_for_each_base_and_dim():
    from vitexplain import show_clock_explorer

    fig = show_clock_explorer(base=1e4, dim=18)
    table_ax, table_bar, clock_ax, clock_bar = fig.axes
    assert table_ax.images[0].get_array().shape == (100, 18)
    assert table_ax.images[0].get_clim() == (-1.0, 1.0)
    assert clock_bar.get_ylabel() == "position (token)" and table_bar.get_ylabel() == "value"
    assert "base $10^{4}$" in table_ax.get_title()
    other = show_clock_explorer(base=1e2, dim=40).axes
    assert other[0].images[0].get_array().shape == (100, 40)
    points = clock_ax.collections[0].get_offsets()
    assert not np.array_equal(other[2].collections[0].get_offsets(), points)
    assert len(show_clock_explorer(dim=8).axes[2].texts) == 4  # only 4 pairs to draw
    assert not np.array_equal(figure_to_array(fig), figure_to_array(show_clock_explorer(1e8, 18)))
