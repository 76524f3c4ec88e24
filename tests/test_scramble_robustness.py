"""scripts/robustness_06.py: the stored record of notebook 06's claims is what the code gives.

Retrains one perturbed run of notebook 06's model (about 20 s of one core; minutes on a busy
machine) and compares its claims with the record in vitexplain/weights/scramble_robustness.json,
which notebook 06 reads. Like the notebook, it depends on the CPU only through near ties, which
the claims' margin absorbs.
"""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    path = ROOT / "scripts" / "robustness_06.py"
    spec = importlib.util.spec_from_file_location("robustness_06", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_record_covers_every_claim_and_ten_runs_per_level():
    script = _script()
    record = json.loads(script.OUT.read_text())
    assert record["conclusions"] == script.CONCLUSIONS and record["details"] == script.DETAILS
    assert set(record["levels"]) == {f"{eps:g}" for eps in script.LEVELS}
    for runs in record["levels"].values():
        assert len(runs) == 10
        assert all(set(run) == {*script.CONCLUSIONS, *script.DETAILS} for run in runs)


def test_one_perturbed_run_gives_its_stored_record():
    script = _script()
    record = json.loads(script.OUT.read_text())
    reference = script.run(0.0, 0)
    # the notebook's own model: every claim holds (it is the reference of the printed tables)
    assert all(reference["held"].values())
    again = script.run(1e-6, 0, reference)["held"]
    assert again == record["levels"]["1e-06"][0]
