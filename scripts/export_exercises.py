"""Write docs/_data/exercises.json: what the site's exercises need, from the package.

The site is built without torch, so it cannot import the package: this script (run by
``make figures``) exports, for every exercise, its grading spec (a value exercise: the same
:class:`~vitexplain.exercises.ValueSpec` that ``check`` grades by), its worked solution (a
value, or a function's source) and its explanation; likewise every prediction and warm-up
(``vx.exercises.prompts()``; a prediction's spec may be a ``ChoiceSpec``).
tests/test_exercises_site.py checks that the tracked file equals a fresh export. The concept
check (``vitexplain.exercises.concepts``) goes to docs/_data/concepts.json, for the concept page
(docs/_ext/vx_concepts.py); tests/test_concepts.py checks that file.

    python scripts/export_exercises.py [--out docs/_data/exercises.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from vitexplain import exercises as ex
from vitexplain.exercises import _typed, concepts

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "_data" / "exercises.json"
CONCEPTS_OUT = ROOT / "docs" / "_data" / "concepts.json"


def _shown(value: Any) -> str:
    """A reference value as the worked solution shows it."""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        value = tuple(value)
    return repr(value)


def _prompt(exercise_id: str, item: Any) -> dict[str, Any]:
    """A prediction's or warm-up's entry: its kind, spec, answer as shown, explanation."""
    kind = "prediction" if exercise_id[3] == "p" else "warmup"
    spec = item.grade
    if isinstance(spec, ex.ChoiceSpec):
        shown = f"({spec.answer}) {spec.options[spec.letters.index(spec.answer)]}"
    else:
        shown = _shown(spec.answer)
    return {"kind": kind, "spec": spec.to_json(), "answer": shown, "why": item.why}


def _prompt_verdicts() -> dict[str, dict[str, str]]:
    """The lines check() prints for a prediction and a warm-up, with {id}, {hint}, {why} to
    fill in; "none" is the page's line for an empty answer."""
    lines = {}
    for kind, sample in (("prediction", "00.p0"), ("warmup", "00.w0")):
        lines[kind] = {
            "right": ex.verdict(sample, None, "{why}").replace(sample, "{id}"),
            "hint": ex.verdict(sample, "{hint}").replace(sample, "{id}"),
        }
    lines["prediction"]["none"] = (
        "Prediction {id}: no guess yet: choose or type yours, then press Enter or Check."
    )
    lines["warmup"]["none"] = "Warm-up {id}: no answer yet: type yours, then press Enter or Check."
    return lines


def export() -> dict[str, Any]:
    """The site's data: one entry per exercise, in notebook order; then the predictions and
    warm-ups (``prompts``) and their verdict lines."""
    entries = {}
    for exercise_id, item in ex.exercises().items():
        entry: dict[str, Any] = {"why": item.why}
        if isinstance(item.grade, ex.ValueSpec):
            entry["spec"] = item.grade.to_json()
            entry["answer"] = _shown(item.grade.answer)
        else:
            entry["asks"] = item.asks
            entry["code"] = repr(ex.solution(exercise_id))
        entries[exercise_id] = entry
    return {
        "verdict": {
            "right": ex.verdict("{id}", None),
            "hint": ex.verdict("{id}", "{hint}"),
        },
        "typed": _typed.MESSAGES,
        "exercises": entries,
        "prompt_verdict": _prompt_verdicts(),
        "prompts": {i: _prompt(i, item) for i, item in ex.prompts().items()},
    }


def text() -> str:
    return json.dumps(export(), indent=1, ensure_ascii=False) + "\n"


def export_concepts() -> dict[str, Any]:
    """The concept page's data: the verdict lines of check() and, per question, its stem,
    spec, explanation and options, each option with the page and heading that address it."""
    pages = {p.name[:2]: p.stem for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))}
    items = []
    for concept in concepts.CONCEPTS:
        options = [
            {
                "text": o.text,
                "misconception": o.misconception,
                "page": f"notebooks/{pages[o.notebook]}",
                "section": concepts.title(o.section),
            }
            for o in concept.options
        ]
        item = {"id": concept.id, "question": concept.question, "why": concept.why}
        items.append(item | {"spec": concept.spec().to_json(), "options": options})
    return {
        "verdict": {
            "right": ex.verdict("cc.00", None, "{why}").replace("cc.00", "{id}"),
            "hint": ex.verdict("cc.00", "{hint}").replace("cc.00", "{id}"),
            "none": "Question {id}: no answer yet.",
        },
        "items": items,
    }


def concepts_text() -> str:
    return json.dumps(export_concepts(), indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text(), encoding="utf-8")
    CONCEPTS_OUT.write_text(concepts_text(), encoding="utf-8")
    print(f"wrote {args.out} and {CONCEPTS_OUT}")


if __name__ == "__main__":
    main()
