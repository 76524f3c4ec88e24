"""Real images for notebook 08: the UCI handwritten digits that scikit-learn ships in its wheel.

1,797 grey images of 8 x 8 pixels, digits 0-9, values 0-16; ``load_digits()`` reads a file inside
the scikit-learn package, so nothing is downloaded. A ViT with 2 x 2 patches sees 16 patches.
The model notebook 08 studies is trained by :func:`train_digits_vit` and shipped in the package
(``vitexplain/weights/``, made by ``make weights``), so its figures are the same on every CPU.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .training import train_classifier
from .vit import ViT

__all__ = [
    "DIGITS_RECIPES",
    "DIGITS_VIT_CONFIG",
    "accuracy_standard_error",
    "digits_cnn",
    "digits_vit",
    "load_digit_split",
    "load_digit_validation_split",
    "load_digits_ablation",
    "load_digits_selection",
    "load_trained_digits_vit",
    "train_digits_cnn",
    "train_digits_vit",
]

#: The small ViT of notebook 08: 16 patches of 2 x 2 pixels, 64 channels, 4 blocks of 4 heads.
DIGITS_VIT_CONFIG = {
    "img_size": (8, 8),
    "patch_size": 2,
    "in_chans": 1,
    "num_classes": 10,
    "embed_dim": 64,
    "depth": 4,
    "num_heads": 4,
    "mlp_ratio": 2.0,
}
#: The training recipes of the ablation (``make ablation``), each a step on the one before: all
#: AdamW on batches of 64 with peak learning rate 2e-3, by :func:`vitexplain.train_classifier`.
DIGITS_RECIPES: dict[str, dict[str, object]] = {
    # the recipe shipped before: constant learning rate, 40 epochs
    "short": {"epochs": 40, "batch_size": 64, "lr": 2e-3},
    # + one-cycle schedule (warm-up, cosine annealing), twice the epochs
    "schedule": {"epochs": 80, "batch_size": 64, "lr": 2e-3, "schedule": "onecycle"},
    # + label smoothing 0.1 and weight decay 0.1
    "smoothing_decay": {
        "epochs": 80,
        "batch_size": 64,
        "lr": 2e-3,
        "schedule": "onecycle",
        "label_smoothing": 0.1,
        "weight_decay": 0.1,
    },
    # + random shifts of up to 1 pixel (the same 80 epochs: one change on the row before)
    "shift": {
        "epochs": 80,
        "batch_size": 64,
        "lr": 2e-3,
        "schedule": "onecycle",
        "label_smoothing": 0.1,
        "weight_decay": 0.1,
        "max_shift": 1,
    },
}
#: The rule that picks the shipped recipe from the validation pictures alone, written into
#: ``vitexplain/weights/digits_selection.json`` before any test count of the table is computed
#: (``scripts/ablation_digits.py select``, then ``... test``).
SELECTION_RULE = (
    "Among the ViT rows with learned position, in the order of the table (each adds one step "
    "to the row before), take the row with the most right answers on the 300 validation "
    "pictures summed over the seeds; two totals closer than one standard error of their "
    "difference, sqrt(2 n p (1 - p)) with n the number of answers and p the best row's "
    "accuracy, are tied; ship the first (simplest) row tied with the best."
)
#: The recipe of the shipped models (``make weights``): the row :data:`SELECTION_RULE` picks.
SHIPPED_RECIPE = "schedule"
#: Training of the shipped models: that recipe, from seed 0.
DIGITS_TRAINING = {**DIGITS_RECIPES[SHIPPED_RECIPE], "seed": 0}
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
TEST_SIZE = 397  # held out: 1,400 pictures to train on
VALIDATION_SIZE = 300  # carved from the 1,400 to choose a recipe: 1,100 to train on


def load_digit_split(
    seed: int = 0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The digits as tensors, split once into 1,400 training and 397 test pictures.

    Args:
        seed: seed of the split (a NumPy permutation of the 1,797 pictures).

    Returns:
        ``(train_images, train_labels, test_images, test_labels)``: images float32 of shape
        (n, 1, 8, 8) scaled from 0..16 to [0, 1], labels int64 of shape (n,).
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as error:  # pragma: no cover - scikit-learn is in the locked environment
        raise ImportError("notebook 08 needs scikit-learn: pip install scikit-learn") from error

    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int of at least 0, got {seed!r}")
    digits = load_digits()
    order = np.random.default_rng(seed).permutation(len(digits.target))
    images = torch.tensor(digits.images[order] / 16.0, dtype=torch.float32)[:, None]  # (n, 1, 8, 8)
    labels = torch.tensor(digits.target[order], dtype=torch.int64)  # (n,)
    cut = len(labels) - TEST_SIZE
    return images[:cut], labels[:cut], images[cut:], labels[cut:]


def load_digit_validation_split() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The 1,400 training pictures split again: 1,100 to train on, 300 to choose a recipe by.

    The 397 test pictures play no part: a recipe is chosen on these 300, and the test set is
    read once per finished recipe.

    Returns:
        ``(train_images, train_labels, validation_images, validation_labels)``, shaped as
        :func:`load_digit_split` returns them; the 300 are the last 300 of its training part.
    """
    train_images, train_labels, _, _ = load_digit_split()
    cut = len(train_labels) - VALIDATION_SIZE
    return train_images[:cut], train_labels[:cut], train_images[cut:], train_labels[cut:]


def accuracy_standard_error(accuracy: float, n: int) -> float:
    """Binomial standard error of an accuracy measured on ``n`` independent pictures.

    ``sqrt(p (1 - p) / n)``: the spread of the measured accuracy around the model's true rate
    ``p`` from which pictures happen to be in the test set (0.007 for p = 0.98, n = 397).

    Args:
        accuracy: the measured fraction of right answers, in [0, 1].
        n: the number of pictures it was measured on.
    """
    return math.sqrt(accuracy * (1.0 - accuracy) / n)


class DigitsCNN(nn.Module):
    """A small CNN for the 8 x 8 digits, with about the ViT's parameter count (126,154).

    Three 3 x 3 convolutions (32, 64, 128 channels, GELU), a 2 x 2 max-pool after the second
    and the third (8 -> 4 -> 2), then a 512 -> 64 -> 10 head: the baseline with a convolution's
    assumptions (locality, the same filter everywhere) built in.
    """

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1),  # (B, 32, 8, 8)
            nn.GELU(),
            nn.Conv2d(32, 64, 3, padding=1),  # (B, 64, 8, 8)
            nn.GELU(),
            nn.MaxPool2d(2),  # (B, 64, 4, 4)
            nn.Conv2d(64, 128, 3, padding=1),  # (B, 128, 4, 4)
            nn.GELU(),
            nn.MaxPool2d(2),  # (B, 128, 2, 2)
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(512, 64), nn.GELU(), nn.Linear(64, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits (B, 10) of images (B, 1, 8, 8)."""
        return self.head(self.features(x))


def digits_cnn() -> DigitsCNN:
    """The CNN baseline of notebook 08's ablation, freshly initialised (seed it yourself)."""
    return DigitsCNN()


def digits_vit(pos_embed: str = "learned") -> ViT:
    """The notebook's ViT, freshly initialised (seed the generator yourself to repeat it).

    Args:
        pos_embed: ``"learned"`` (the paper's choice) or ``"none"`` (the baseline without).
    """
    return ViT(**DIGITS_VIT_CONFIG, pos_embed=pos_embed)


def _train_digits(
    model: nn.Module, epochs: int | None, log, recipe: str, seed: int, validation: bool
) -> dict[str, list[float]]:
    """Train ``model`` (built after ``torch.manual_seed(seed)``) by a recipe; see below."""
    if validation:
        train_images, train_labels, _, _ = load_digit_validation_split()
    else:
        train_images, train_labels, _, _ = load_digit_split()
    settings = dict(DIGITS_RECIPES[recipe])
    if epochs is not None:
        settings["epochs"] = epochs
    # no held-out pictures: the 300 validation and the 397 test pictures are never read here
    return train_classifier(
        model, (train_images, train_labels), None, log=log, seed=seed, **settings
    )


def train_digits_vit(
    pos_embed: str = "learned",
    epochs: int | None = None,
    log=None,
    recipe: str = SHIPPED_RECIPE,
    seed: int = 0,
    validation: bool = False,
) -> tuple[ViT, dict[str, list[float]]]:
    """Train the notebook's ViT on the training split: the code ``make weights`` runs.

    Training reads the training pictures only: score the finished model yourself
    (:func:`vitexplain.evaluate`) on the validation or the test pictures, once.

    Args:
        pos_embed: ``"learned"`` or ``"none"``.
        epochs: passes over the data; the recipe's own (80 for the shipped one) when None.
        log: called with a line per epoch (``print``), or None.
        recipe: a key of :data:`DIGITS_RECIPES`; the shipped models' by default.
        seed: seeds the initial weights (``torch.manual_seed``), the order of the batches and
            the shifts.
        validation: train on the 1,100 pictures that :func:`load_digit_validation_split`
            keeps for training, instead of all 1,400.

    Returns:
        ``(model, history)``: the history as :func:`vitexplain.train_classifier` returns it
        without held-out data (loss and training accuracy per epoch).
    """
    _check_recipe(recipe)
    torch.manual_seed(seed)
    model = digits_vit(pos_embed)
    return model, _train_digits(model, epochs, log, recipe, seed, validation)


def train_digits_cnn(
    recipe: str = SHIPPED_RECIPE, seed: int = 0, validation: bool = False, epochs: int | None = None
) -> tuple[DigitsCNN, dict[str, list[float]]]:
    """Train the CNN baseline with the same loop and recipe as the ViT (:func:`train_digits_vit`).

    Args:
        recipe: a key of :data:`DIGITS_RECIPES` (the shipped ViT's by default: same budget).
        seed: seeds the initial weights, the order of the batches and the shifts.
        validation: train on 1,100 pictures, as :func:`train_digits_vit` does.
        epochs: passes over the data; the recipe's own when None.

    Returns:
        ``(model, history)`` as :func:`train_digits_vit` returns them.
    """
    _check_recipe(recipe)
    torch.manual_seed(seed)
    model = digits_cnn()
    return model, _train_digits(model, epochs, None, recipe, seed, validation)


def _check_recipe(recipe: str) -> None:
    if recipe not in DIGITS_RECIPES:
        raise ValueError(f"recipe must be one of {tuple(sorted(DIGITS_RECIPES))}, got {recipe!r}")


def load_trained_digits_vit(pos_embed: str = "learned") -> ViT:
    """The shipped model: weights made by :func:`train_digits_vit`, loaded strictly.

    Args:
        pos_embed: ``"learned"`` (the notebook's model) or ``"none"`` (its baseline).

    Returns:
        The ViT in eval mode.
    """
    if pos_embed not in ("learned", "none"):
        raise ValueError(f"pos_embed must be one of ('learned', 'none'), got {pos_embed!r}")
    path = WEIGHTS_DIR / f"digits_vit_{pos_embed}.pt"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: `make weights` trains and saves it")
    model = digits_vit(pos_embed)
    model.load_state_dict(torch.load(path, weights_only=True), strict=True)
    return model.eval()


def load_digits_ablation() -> list[dict[str, object]]:
    """The table ``make ablation`` wrote: accuracy of each training variant over several seeds.

    A row was trained on 1,100 pictures and scored on the 300 validation pictures if it was a
    candidate of the selection (or a baseline on the pixels), and trained on all 1,400 and
    scored once on the 397 test pictures if the committed selection named it
    (``scripts/ablation_digits.py``).

    Returns:
        One dict per row of the table, in its order: text columns as str, ``seeds`` and the
        ``*_right_by_seed`` columns as lists of int (empty where not measured), the other
        columns as float (None where not measured).
    """
    path = WEIGHTS_DIR / "digits_ablation.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: `make ablation` writes it")
    rows = []
    with path.open(newline="") as handle:
        for line in csv.DictReader(handle):
            row: dict[str, object] = {}
            for key, value in line.items():
                if key == "seeds" or key.endswith("_by_seed"):
                    row[key] = [int(v) for v in value.split()]  # [] if not measured
                elif key in ("row", "description"):
                    row[key] = value
                else:
                    row[key] = float(value) if value else None  # None if not measured
            rows.append(row)
    return rows


def load_digits_selection() -> dict[str, object]:
    """The selection ``scripts/ablation_digits.py select`` wrote before the test column existed.

    Returns:
        The JSON of ``vitexplain/weights/digits_selection.json``: ``rule`` (the text of
        :data:`SELECTION_RULE`), ``rows`` (the rows of the table, in order), ``candidates`` (the
        rows the rule chooses among), ``seeds``, ``validation_right_by_seed`` (row -> counts out
        of 300), ``tied`` (the candidates tied with the best) and ``chosen``.
    """
    path = WEIGHTS_DIR / "digits_selection.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: `make ablation-select` writes it")
    return json.loads(path.read_text())
