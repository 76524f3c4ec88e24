"""The site's exercise data (docs/_data/exercises.json) is a fresh export of the package's."""

import importlib.util
import json
from pathlib import Path

from conftest import approx_json

ROOT = Path(__file__).resolve().parent.parent


def _exporter():
    spec = importlib.util.spec_from_file_location("export", ROOT / "scripts/export_exercises.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tracked_exercise_data_equals_a_fresh_export():
    """Floats within 1e-12 (some answers are computed with NumPy, whose kernels differ per CPU)."""
    tracked = json.loads((ROOT / "docs" / "_data" / "exercises.json").read_text(encoding="utf-8"))
    fresh = json.loads(_exporter().text())
    assert fresh == approx_json(tracked), "run `make figures` (scripts/export_exercises.py)"


def test_every_exercise_has_a_worked_solution_on_the_site():
    data = _exporter().export()["exercises"]
    assert len(data) == 38
    for exercise_id, entry in data.items():
        assert entry["why"], exercise_id
        assert ("spec" in entry) != ("code" in entry), exercise_id
        if "code" in entry:
            assert entry["code"].startswith(f"def {entry['asks'].partition('(')[0]}(")
