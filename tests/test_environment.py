"""The descriptions of the environment must agree.

requirements.lock (exact pins, what the stored notebook outputs were produced with),
environment.yml (installs that lock for conda users) and pyproject.toml (ranges) are edited by hand
from time to time; these tests fail as soon as one of them drifts from the others. The site's
light environment (requirements-docs.lock, pyproject's `docs` extra, no torch) is checked the
same way, and a package pinned in both locks has one version.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml  # PyYAML is in the lock (jupyter-events needs it)
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
DOCS_LOCK = ROOT / "requirements-docs.lock"
DOCS_EXTRA = "docs"  # pyproject's extra for `make html`, pinned in DOCS_LOCK instead of LOCK
ENV_YML = ROOT / "environment.yml"
PYPROJECT = ROOT / "pyproject.toml"

PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9][A-Za-z0-9.+!_-]*)$"
)
TORCH_VERSION = "2.13.0"


def _parse_pins(lines: list[str], source: str) -> dict[str, tuple[str, str]]:
    """name==version lines -> {canonical name: (line, version)}; anything else is an error."""
    pins: dict[str, tuple[str, str]] = {}
    for line in lines:
        match = PIN.match(line)
        assert match, f"{source}: not an exact name==version pin: {line!r}"
        name = canonicalize_name(match["name"])
        assert name not in pins, f"{source}: {name} is pinned twice"
        try:
            Version(match["version"])
        except InvalidVersion:
            pytest.fail(f"{source}: invalid version in {line!r}")
        pins[name] = (line, match["version"])
    return pins


def lock_lines(lock: Path = LOCK) -> list[str]:
    lines = []
    for raw in lock.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def lock_pins() -> dict[str, tuple[str, str]]:
    return _parse_pins(lock_lines(), "requirements.lock")


def docs_lock_pins() -> dict[str, tuple[str, str]]:
    return _parse_pins(lock_lines(DOCS_LOCK), DOCS_LOCK.name)


def env_yml() -> dict:
    return yaml.safe_load(ENV_YML.read_text(encoding="utf-8"))


def env_pip_lines(keep_editable: bool = False) -> list[str]:
    deps = env_yml()["dependencies"]
    pip_sections = [d["pip"] for d in deps if isinstance(d, dict) and "pip" in d]
    assert len(pip_sections) == 1, "environment.yml needs exactly one pip: section"
    lines = [str(item).strip() for item in pip_sections[0]]
    return lines if keep_editable else [line for line in lines if line != "-e ."]


def pyproject() -> dict:
    with PYPROJECT.open("rb") as f:
        return tomllib.load(f)


def declared_requirements() -> list[Requirement]:
    """The package's dependencies and every extra but the site's (DOCS_EXTRA)."""
    project = pyproject()["project"]
    reqs = list(project["dependencies"])
    for name, extra in project.get("optional-dependencies", {}).items():
        if name != DOCS_EXTRA:
            reqs.extend(extra)
    return [Requirement(r) for r in reqs]


def docs_requirements() -> list[Requirement]:
    extras = pyproject()["project"].get("optional-dependencies", {})
    assert DOCS_EXTRA in extras, f"pyproject.toml has no `{DOCS_EXTRA}` extra (make html)"
    return [Requirement(r) for r in extras[DOCS_EXTRA]]


def _outside_range(reqs: list[Requirement], pins: dict, lock: str) -> list[str]:
    problems = []
    for req in reqs:
        name = canonicalize_name(req.name)
        if name not in pins:
            problems.append(f"{req} is declared in pyproject.toml but not pinned in {lock}")
            continue
        version = pins[name][1]
        if not req.specifier.contains(Version(version), prereleases=True):
            problems.append(f"{req} is declared but {lock} pins {name}=={version}")
    return problems


def test_lock_is_exact_pins_only():
    pins = lock_pins()
    # The full transitive closure of the dev environment is well over a hundred packages;
    # a lock with a handful of lines has lost its closure.
    assert len(pins) > 50, f"requirements.lock holds only {len(pins)} pins"


def test_torch_is_pinned_to_exactly_2_13_0():
    pins = lock_pins()
    assert "torch" in pins, "torch is missing from requirements.lock"
    line, version = pins["torch"]
    assert version == TORCH_VERSION, (
        f"requirements.lock pins {line!r}; it must be torch=={TORCH_VERSION} "
        "(any other or unpinned torch pulls a multi-GB CUDA build)"
    )


def test_environment_yml_installs_the_lock_then_the_package():
    # conda runs pip on these lines from the folder of environment.yml, so `-r requirements.lock`
    # is the lock beside it: one list of pins for pip and conda users alike.
    assert env_pip_lines(keep_editable=True) == ["-r requirements.lock", "-e ."]
    assert (ENV_YML.parent / "requirements.lock").is_file()


def test_environment_yml_python_and_channels():
    env = env_yml()
    assert env["channels"] == ["conda-forge"]
    deps = [d for d in env["dependencies"] if isinstance(d, str)]
    assert "pip" in deps
    pythons = [d for d in deps if re.match(r"^python(\s|=|$)", d)]
    assert pythons == ["python=3.11"], pythons
    requires_python = pyproject()["project"]["requires-python"]
    assert SpecifierSet(requires_python).contains("3.11"), requires_python


def test_every_declared_dependency_is_locked_within_its_range():
    problems = _outside_range(declared_requirements(), lock_pins(), LOCK.name)
    assert not problems, "\n".join(problems)


def test_the_docs_lock_pins_the_docs_extra_within_its_ranges_and_no_torch():
    pins = docs_lock_pins()
    problems = _outside_range(docs_requirements(), pins, DOCS_LOCK.name)
    assert not problems, "\n".join(problems)
    # A closure, not a handful of top-level names (Sphinx alone brings a dozen packages) ...
    assert len(pins) > 30, f"{DOCS_LOCK.name} holds only {len(pins)} pins"
    # ... and a light one: `make html` never installs torch or the notebooks' stack.
    heavy = {"torch", "numpy", "matplotlib", "scikit-learn", "jupyterlab"} & set(pins)
    assert not heavy, f"{DOCS_LOCK.name} pins {sorted(heavy)}"


def test_a_package_in_both_locks_has_one_version():
    main, docs = lock_pins(), docs_lock_pins()
    differ = {
        n: (main[n][1], docs[n][1]) for n in set(main) & set(docs) if main[n][1] != docs[n][1]
    }
    assert not differ, f"versions differ ({LOCK.name}, {DOCS_LOCK.name}): {differ}"


def test_pyproject_declares_the_runtime_dependencies():
    names = {canonicalize_name(Requirement(r).name) for r in pyproject()["project"]["dependencies"]}
    assert {"torch", "numpy", "matplotlib", "einops", "pillow", "scipy"} <= names
    assert "imageio" not in names  # only notebook 05 and the tests read images with it
    torch_req = next(
        Requirement(r)
        for r in pyproject()["project"]["dependencies"]
        if canonicalize_name(Requirement(r).name) == "torch"
    )
    # A range, never an exact pin, in the package metadata ...
    assert not any(s.operator in ("==", "===") for s in torch_req.specifier), torch_req
    # ... and one that excludes the next major release.
    assert not torch_req.specifier.contains("3.0.0"), torch_req


def test_the_lock_is_closed_under_its_packages_requirements():
    """Every requirement of a locked package (its markers on this machine, no extras) is locked
    too, so `pip install -r requirements.lock` resolves nothing from an index (scikit-learn 1.9
    brought narwhals, which the lock once missed)."""
    from importlib.metadata import PackageNotFoundError, distribution

    pins, missing = lock_pins(), []
    for name in pins:
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:  # pinned for another platform, not installed here
            continue
        for req in map(Requirement, requires):
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                if canonicalize_name(req.name) not in pins:
                    missing.append(f"{name} requires {req}")
    assert not missing, "\n".join(missing)
