"""Shared fixtures: the picture as a tensor, and deterministic torch defaults for every test."""

import random

import numpy as np
import pytest
import torch

from vitexplain import load_mountains


@pytest.fixture(autouse=True)
def _seed():
    """Every test starts from the same random state: torch's, NumPy's legacy global one and
    Python's (tests that need NumPy randomness make their own ``default_rng(seed)``)."""
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
    return torch.tensor(load_mountains(), dtype=torch.float32)[None, None]


def pytest_terminal_summary(terminalreporter):
    """The bad-input sweep's count (tests/test_sweep.py), when it ran: callables and calls."""
    outcomes = {}
    for outcome in ("passed", "failed", "xfailed", "xpassed", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            nodeid = getattr(report, "nodeid", "")
            if "test_sweep.py::" in nodeid and getattr(report, "when", "call") == "call":
                kind = nodeid.split("::")[1].split("[")[0]
                outcomes.setdefault(kind, {}).setdefault(outcome, 0)
                outcomes[kind][outcome] += 1
    if not outcomes:
        return
    bad = sum(sum(outcomes.get(k, {}).values()) for k in _SWEEP_BAD_CALLS)
    refused = sum(outcomes.get(k, {}).get("passed", 0) for k in _SWEEP_BAD_CALLS)
    callables = sum(
        outcomes.get("test_base_arguments_work_and_many_bad_inputs_are_tried", {}).values()
    )
    sensible = outcomes.get("test_round_three_sensible_input_is_accepted", {})
    terminalreporter.write_line(
        f"bad-input sweep: {callables} public callables, {bad} bad calls, {refused} refused by "
        f"name; {sum(sensible.values())} sensible inputs, {sensible.get('passed', 0)} accepted"
    )


_SWEEP_BAD_CALLS = ("test_bad_input_is_refused_by_name", "test_round_three_is_refused_by_name")
