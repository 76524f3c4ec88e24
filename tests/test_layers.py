"""benchmarks/checks.py's budget holds: the package's argument checks fit in 600 lines, and its
imports form layers (idea modules, plotting, explore, exercises) with no circle and nothing
importing upward."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_checks_stay_within_budget_and_imports_form_layers():
    result = subprocess.run(
        [sys.executable, ROOT / "benchmarks" / "checks.py"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-2000:]  # 1 on a circle or an upward import
    total = int(re.search(r"(\d+)\s+in total", result.stdout).group(1))
    assert 0 < total <= 600
    assert "circles: 0" in result.stdout and "upward imports: 0" in result.stdout
