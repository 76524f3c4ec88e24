"""The site's exercise data (docs/_data/exercises.json) is a fresh export of the package's; a
prediction answered on a grid of patches carries its notebook's grid."""

import ast
import json
from pathlib import Path

import export_exercises
from conftest import approx_json

ROOT = Path(__file__).resolve().parent.parent


def test_the_tracked_exercise_data_equals_a_fresh_export():
    """Floats within 1e-12 (some answers are computed with NumPy, whose kernels differ per CPU)."""
    tracked = json.loads((ROOT / "docs" / "_data" / "exercises.json").read_text(encoding="utf-8"))
    fresh = json.loads(export_exercises.text())
    assert fresh == approx_json(tracked), "run `make figures` (scripts/export_exercises.py)"


def test_every_exercise_has_a_worked_solution_on_the_site():
    data = export_exercises.export()["exercises"]
    assert len(data) == 38
    for exercise_id, entry in data.items():
        assert entry["why"], exercise_id
        assert ("spec" in entry) != ("code" in entry), exercise_id
        if "code" in entry:
            assert entry["code"].startswith(f"def {entry['asks'].partition('(')[0]}(")


def _reveal_code(notebook: Path, prompt_id: str) -> str:
    """The source of the cell after a prediction's guess cell: the cell that shows the result."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    guess = next(i for i, c in enumerate(cells) if f'check("{prompt_id}"' in "".join(c["source"]))
    return "".join(cells[guess + 1]["source"])


def test_a_prediction_on_patches_carries_the_notebooks_grid():
    """07.p2's exported spec has the grid its reveal cell lays the similarities on (the model's
    60 x 100 picture in 20-pixel patches); its answer and its rules' patches lie on it."""
    prompts = export_exercises.export()["prompts"]
    with_grid = {i: e["spec"] for i, e in prompts.items() if "grid" in e["spec"]}
    assert "07.p2" in with_grid
    code = _reveal_code(next((ROOT / "notebooks").glob("07_*.ipynb")), "07.p2")
    assigned = next(
        node.value
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "grid"
    )
    assert tuple(with_grid["07.p2"]["grid"]) == ast.literal_eval(assigned) == (60 // 20, 100 // 20)
    for prompt_id, spec in with_grid.items():
        rows, cols = spec["grid"]
        assert spec["kind"] == "int_set", prompt_id
        named = set(spec["answer"]) | {n for r in spec["rules"] for n in r["equals"] or ()}
        assert named <= set(range(1, rows * cols + 1)), prompt_id
