"""Shared fixtures: the picture as a tensor, and deterministic torch defaults for every test.

Nothing heavy is imported at the top: under ``pytest -n 2`` the controlling process loads this
file too, and runs no test (importing vitexplain there cost 2.2 s of processor time)."""

from __future__ import annotations

import os
import random
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# OpenMP threads that wait for work sleep instead of spinning (set before torch is imported, which
# reads it once): under `pytest -n 2` two workers' threads share two cores, and a spinning thread
# burns the time its worker's other thread needs. Measured on test_attribution, test_digits and
# test_predictions: 13.8 s of processor time instead of 20.6 s (2 shared cores, load 11 to 15);
# the threads, and so the numbers, are the same.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

if TYPE_CHECKING:
    import torch

    from vitexplain import ViT

# The scripts the tests check are imported as modules (`import compare_figures`), as
# e2e/conftest.py does for its own.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


@pytest.fixture(autouse=True)
def _seed():
    """Every test starts from the same random state: torch's, NumPy's legacy global one and
    Python's (tests that need NumPy randomness make their own ``default_rng(seed)``)."""
    import numpy as np
    import torch

    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


@pytest.fixture(autouse=True)
def _figures_where_the_test_says(monkeypatch):
    """Unit tests write figures where they say: a VITEXPLAIN_FIGURES_DIR left in the shell (the
    notebook check sets it) must not redirect them."""
    monkeypatch.delenv("VITEXPLAIN_FIGURES_DIR", raising=False)


def approx_json(value, rel: float = 1e-12):
    """``value`` (parsed JSON) with every float replaced by ``pytest.approx(rel=rel)``, to compare
    a stored file with a fresh computation: NumPy and PyTorch pick SIMD kernels per CPU, so a
    float computed on another machine may differ in its last bits (DESIGN §2); ints, strings and
    the structure still compare exactly."""
    if isinstance(value, float):
        return pytest.approx(value, rel=rel, abs=0.0)
    if isinstance(value, dict):
        return {key: approx_json(item, rel) for key, item in value.items()}
    if isinstance(value, list):
        return [approx_json(item, rel) for item in value]
    return value


@pytest.fixture(scope="session")
def mountain() -> torch.Tensor:
    """The Mountain at Dusk as a (1, 1, 60, 100) float32 batch."""
    import torch

    from vitexplain import load_mountains

    return torch.tensor(load_mountains(), dtype=torch.float32)[None, None]


@pytest.fixture
def one_thread():
    """PyTorch on one thread for a training: `make test` runs two pytest-xdist workers on two
    cores, and the OpenMP threads of both would oversubscribe them (a training then runs about
    six times slower on a busy machine)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def model() -> ViT:
    """A small ViT (8 x 8 images, 2 x 2 patches, 3 blocks of 2 heads, a learned position table, 10
    classes) in eval mode, its weights shaken by 0.3 N(0, 1) so attention is far from uniform: the
    model the interpretation and attribution tests read (one per test module)."""
    import torch

    from vitexplain import ViT

    torch.manual_seed(0)
    vit = ViT((8, 8), 2, num_classes=10, embed_dim=16, depth=3, num_heads=2, pos_embed="learned")
    with torch.no_grad():
        for p in vit.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return vit.eval()


@pytest.fixture(scope="module")
def _warm_worker_ends():
    """A spawned grading worker is kept warm for the next grading (it takes seconds to start:
    it imports torch); the tests of a module share it, and it ends with the module."""
    from vitexplain.exercises import _run

    yield
    if _run._spare is not None:
        _run._stop(_run._spare, now=True)
        _run._spare = None


@pytest.fixture
def ctrl_c():
    """Ctrl-C raises KeyboardInterrupt, as in a kernel or a terminal, also when pytest started
    with SIGINT ignored (a background job of a shell without job control: Python then installs
    no handler, and a test's SIGINT would be lost)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def spawn(monkeypatch, _warm_worker_ends):
    """Grading without fork, as on macOS and Windows: in spawned workers."""
    from vitexplain.exercises import _run

    monkeypatch.setattr(_run, "START_METHOD", "spawn")


#: Tests that take seconds of one worker (a process that imports torch, a training, thousands of
#: forward passes): collected first, so that under `pytest -n 2` the short tests fill both
#: workers' ends (the wall time is the later worker's end; last, the robustness run left one
#: worker 6 s after the other).
SLOW_FIRST = (
    "test_scramble_robustness.py::test_one_perturbed_run_gives_its_stored_record",
    "test_exercises_output.py::test_a_real_kernel_shows_the_displays",
    "test_predictions.py::test_the_spec_answer_is_the_worked_solution_and_is_right[09.p3]",
    "test_digits.py::test_training_reads_no_held_out_picture",
    "test_api.py::test_import_loads_no_matplotlib_and_no_widgets",
)


def pytest_collection_modifyitems(items):
    """The tests of :data:`SLOW_FIRST` first, the others in their order (a stable sort)."""
    items.sort(key=lambda item: not any(slow in item.nodeid for slow in SLOW_FIRST))
