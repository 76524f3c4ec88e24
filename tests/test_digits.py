"""vitexplain.digits: the digits split and the shipped models of notebook 08."""

import torch

from vitexplain import DIGITS_VIT_CONFIG, digits_vit, load_digit_split, load_trained_digits_vit


def test_split_is_fixed_disjoint_and_scaled():
    train_x, train_y, test_x, test_y = load_digit_split()
    assert train_x.shape == (1400, 1, 8, 8) and test_x.shape == (397, 1, 8, 8)
    assert train_x.dtype == torch.float32 and train_y.dtype == torch.int64
    assert 0 <= train_x.min() and train_x.max() == 1.0
    assert set(train_y.tolist()) == set(range(10)) == set(test_y.tolist())
    again = load_digit_split()
    assert torch.equal(again[2], test_x) and torch.equal(again[3], test_y)
    from sklearn.datasets import load_digits

    everything = {tuple(x.flatten().tolist()) for x in torch.cat([train_x, test_x])}
    originals = {tuple((row / 16.0).astype("float32").tolist()) for row in load_digits().data}
    assert everything == originals  # every picture once, nothing invented


def test_shipped_models_load_strictly_and_classify():
    _, _, test_x, test_y = load_digit_split()
    for pos_embed, better_than in (("learned", 0.9), ("none", 0.5)):
        model = load_trained_digits_vit(pos_embed)
        assert not model.training
        assert set(model.state_dict()) == set(digits_vit(pos_embed).state_dict())
        with torch.no_grad():
            accuracy = (model(test_x).argmax(-1) == test_y).double().mean().item()
        assert accuracy > better_than
    assert DIGITS_VIT_CONFIG["patch_size"] == 2
