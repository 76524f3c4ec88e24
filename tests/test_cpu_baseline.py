"""The Makefile's baseline run (`make test-baseline`, `make test-notebooks-baseline`) really runs
NumPy on its baseline kernels: NumPy picks SIMD code per CPU (DESIGN §2), and only its own variable,
NPY_DISABLE_CPU_FEATURES, limits it (PyTorch's ATEN/MKL/ONEDNN variables do not touch it)."""

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FEATURES = "from numpy._core._multiarray_umath import __cpu_features__ as f; print(json.dumps(f))"


def _baseline_env() -> dict[str, str]:
    """The variables of the Makefile's ISA_BASELINE (one definition, read from the Makefile)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    line = re.search(r"^ISA_BASELINE := (.*)$", text, re.M).group(1)
    return dict(pair.split("=", 1) for pair in line.split())


def _numpy_features(env: dict[str, str]) -> dict[str, bool]:
    code = f"import json; {FEATURES}"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 feature names")
def test_the_baseline_run_turns_numpys_simd_dispatch_down():
    env = _baseline_env()
    assert {"ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA"} <= set(env)
    disabled = env["NPY_DISABLE_CPU_FEATURES"].split(",")
    plain = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    native = _numpy_features(plain)
    limited = _numpy_features({**plain, **env})
    assert not any(limited.get(name) for name in disabled), limited
    if not native["X86_V3"]:
        pytest.skip("this CPU has no AVX2: NumPy runs its baseline kernels anyway")
    assert not limited["X86_V3"]  # AVX2 (and AVX-512) kernels NumPy would use here are not used
