"""vitexplain.plotting.scramble: the figures of notebook 06: the ViT on the scramble task."""

import numpy as np

from vitexplain import (
    load_mountains,
)


def test_scramble_examples_label_each_patch_with_its_origin():
    from vitexplain import make_scramble_dataset, show_scramble_examples

    images, labels, orders = make_scramble_dataset(4, seed=0, return_orders=True)
    fig = show_scramble_examples(images, labels, orders, ncols=2)
    assert len(fig.axes) == 4
    assert [ax.get_title() for ax in fig.axes] == [
        "example 1: intact (label 0)",
        "example 2: intact (label 0)",
        "example 3: scrambled (label 1)",
        "example 4: scrambled (label 1)",
    ]
    for ax, image, order in zip(fig.axes, images, orders, strict=True):
        assert np.array_equal(ax.images[0].get_array(), image[0].numpy())
        assert [t.get_text() for t in ax.texts] == [str(int(o) + 1) for o in order]
    assert [t.get_text() for t in fig.axes[0].texts] == [str(n) for n in range(1, 16)]


def test_scramble_examples_fill_the_grid_by_column_or_by_row():
    from vitexplain import make_scramble_dataset, show_scramble_examples

    images, labels, orders = make_scramble_dataset(6, seed=0, return_orders=True)

    def cells(fig):  # (row, column) of each example's axes, in the order given
        return [
            (ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start)
            for ax in fig.axes
        ]

    # by column (the default): 1-3 down the first column, their twins 4-6 beside them
    by_column = show_scramble_examples(images, labels, orders)
    assert cells(by_column) == [(k % 3, k // 3) for k in range(6)]
    by_row = show_scramble_examples(images, labels, orders, ncols=3, by_column=False)
    assert cells(by_row) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert [ax.get_title()[:9] for ax in by_row.axes] == [f"example {k}" for k in range(1, 7)]


def test_training_curves_two_panels_with_chance_lines():
    from vitexplain import show_training_curves

    history = {
        "epoch": [1, 2, 3],
        "loss": [0.7, 0.4, 0.1],
        "train_accuracy": [0.5, 0.8, 1.0],
        "test_accuracy": [0.5, 0.75, 0.95],
    }
    blind = {**history, "test_accuracy": [0.5, 0.5, 0.5]}
    fig = show_training_curves({"with PE": history, "without PE": blind})
    loss_ax, acc_ax = fig.axes
    assert loss_ax.get_title() == "loss" and acc_ax.get_xlabel() == "epoch"
    # one above the other: loss in row 0, accuracy in row 1 of a single column
    assert [ax.get_subplotspec().get_geometry() for ax in fig.axes] == [(2, 1, 0, 0), (2, 1, 1, 1)]
    assert list(loss_ax.lines[0].get_ydata()) == [0.7, 0.4, 0.1]
    chance = [line for line in acc_ax.lines if line.get_linestyle() == "--"]
    assert len(chance) == 1 and list(chance[0].get_ydata()) == [0.5, 0.5]
    ln2 = [line for line in loss_ax.lines if line.get_linestyle() == "--"]
    assert np.allclose(ln2[0].get_ydata(), np.log(2))
    # the loss axis is fixed by round numbers: 0 .. 0.1 above the largest loss rounded up to a
    # tenth, so losses moved in their last bits (another CPU) leave its grid lines in place
    assert loss_ax.get_ylim() == (0.0, 0.8)
    nudged = {**history, "loss": [0.67 * (1 + 1e-7), 0.4, 0.1]}
    assert show_training_curves({"a": nudged}).axes[0].get_ylim() == (0.0, 0.8)
    high = {**history, "loss": [1.23, 0.4, 0.1]}
    assert show_training_curves({"a": high}).axes[0].get_ylim() == (0.0, 1.4)
    tests = [line for line in acc_ax.lines if line.get_label().endswith(": test")]
    assert [list(line.get_ydata()) for line in tests] == [[0.5, 0.75, 0.95], [0.5, 0.5, 0.5]]
    legend = [t.get_text() for t in acc_ax.get_legend().get_texts()]
    assert "with PE: test" in legend and "chance (50%)" in legend


def test_class_token_attention_draws_the_weights_on_the_patch_grid():
    from vitexplain import show_class_token_attention

    weights = np.random.default_rng(0).dirichlet(np.ones(15), size=2) * 0.9  # (2 heads, 15)
    fig = show_class_token_attention(load_mountains(), weights)
    # picture, mean, head 1, head 2, colour bar
    assert len(fig.axes) == 5
    assert [ax.get_title() for ax in fig.axes[:4]] == [
        "the picture, patches 1-15",
        "mean over heads",
        "head 1",
        "head 2",
    ]
    mean_ax, head2_ax = fig.axes[1], fig.axes[3]
    assert np.allclose(mean_ax.images[0].get_array(), weights.mean(0).reshape(3, 5))
    assert np.allclose(head2_ax.images[0].get_array(), weights[1].reshape(3, 5))
    # one colour scale for all maps: 0 .. the largest weight rounded up to a tenth
    assert mean_ax.images[0].get_clim() == head2_ax.images[0].get_clim()
    assert mean_ax.images[0].get_clim() == (0.0, np.ceil(weights.max() * 10) / 10)
    fixed = show_class_token_attention(load_mountains(), weights, vmax=0.7)
    assert fixed.axes[3].images[0].get_clim() == (0.0, 0.7)
    texts = [t.get_text() for t in head2_ax.texts]
    assert texts[11] == f"#12\n{weights[1, 11]:.2f}"  # row 3, column 2: patch 12
    single = show_class_token_attention(load_mountains(), weights[0])
    assert len(single.axes) == 3 and single.axes[1].get_title() == "class token"


def test_training_curves_keep_a_train_curve_visible_where_it_meets_the_test_curve():
    from vitexplain import show_training_curves

    flat = {"epoch": [1, 2], "loss": [0.7, 0.7], "train_accuracy": [0.5, 0.5]}
    flat["test_accuracy"] = [0.5, 0.5]
    _, acc_ax = show_training_curves({"blind": flat}).axes
    test, train = [line for line in acc_ax.lines if line.get_label().startswith("blind")]
    chance = next(line for line in acc_ax.lines if line.get_linestyle() == "--")
    # the same points: the train curve is drawn on top, with larger open markers
    assert list(test.get_ydata()) == list(train.get_ydata()) == [0.5, 0.5]
    assert train.get_zorder() > test.get_zorder() > chance.get_zorder()
    assert train.get_marker() == "s" and train.get_markerfacecolor() == "none"
    assert train.get_markersize() > test.get_markersize()


def test_attention_by_origin_figure_labels_rows_cells_and_colour_bar():
    from vitexplain import show_attention_by_origin

    table = np.array([[0.01, 0.12, 0.27], [0.004, 0.06, 0.13], [0.001, 0.002, 0.007]])
    fig = show_attention_by_origin(table)
    ax, bar = fig.axes
    assert np.array_equal(ax.images[0].get_array(), table)
    assert ax.images[0].get_clim() == (0.0, 0.3)  # the largest entry, rounded up to a tenth
    assert [t.get_text() for t in ax.texts][:3] == ["0.01", "0.12", "0.27"]
    assert ax.get_xlabel() == "grid row the patch came from"
    assert ax.get_ylabel() == "grid row the patch sits in"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3"]
    assert bar.get_ylabel() == "mean attention weight"
