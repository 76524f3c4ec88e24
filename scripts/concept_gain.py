"""The normalised gain of the concept check over a folder of the site's JSON files.

Each learner saves their answers on the concept page (docs/concepts.md, "Download my answers"):
a file with their answers before and after the series. This reads every ``*.json`` in a folder,
grades the answers again with ``vx.exercises`` (a score that does not match its answers is
refused), and prints, per learner, the scores before and after (percent right) and Hake's
(1998) normalised gain g = (post - pre) / (100 - pre); then the class: the number of learners
with both scores, the mean ± sd (sample) of their gains, and the gain of the class averages.
A file that is not such a file stops the script with one line naming it.

    python scripts/concept_gain.py FOLDER
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from vitexplain import exercises as ex
from vitexplain.exercises import concepts

FORMAT = "vitexplain-concept-check"


class Malformed(ValueError):
    """A file that is not a concept-check file; the message names what is wrong."""


def gain(pre: float, post: float) -> float | None:
    """Hake's normalised gain of percent scores; None when ``pre`` is 100 (nothing to gain)."""
    return None if pre == 100 else (post - pre) / (100 - pre)


def score(answers: dict[str, str]) -> float:
    """Percent of the questions answered right (an unanswered one counts as wrong)."""
    ids = [c.id for c in concepts.CONCEPTS]
    right = sum(ex.grade(i, answers[i]) is None for i in ids if answers.get(i))
    return 100 * right / len(ids)


def _attempt(data: dict[str, Any], when: str) -> float | None:
    attempt = data.get(when)
    if attempt is None:
        return None
    if not isinstance(attempt, dict) or not isinstance(attempt.get("answers"), dict):
        raise Malformed(f"'{when}' has no answers")
    answers = attempt["answers"]
    ids = {c.id for c in concepts.CONCEPTS}
    if set(answers) != ids or not all(a in ("", "a", "b", "c", "d") for a in answers.values()):
        raise Malformed(f"'{when}' must answer cc.01 to cc.{len(ids):02d} with a letter or ''")
    graded = score(answers)
    if attempt.get("score") != graded:
        raise Malformed(f"'{when}' says score {attempt.get('score')!r}, its answers give {graded}")
    return graded


def read(path: Path) -> tuple[float | None, float | None]:
    """A learner's scores (percent) before and after; None where not taken."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise Malformed(f"not JSON ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != 1:
        raise Malformed(f"not a {FORMAT} file of version 1")
    return _attempt(data, "before"), _attempt(data, "after")


def report(folder: Path) -> list[str]:
    """The lines the script prints for a folder of concept-check files."""
    files = sorted(folder.glob("*.json"))
    if not files:
        raise Malformed(f"{folder}: no .json files")
    lines, gains, pairs = [f"{'learner':24} {'before':>7} {'after':>7} {'g':>6}"], [], []
    for path in files:
        try:
            pre, post = read(path)
        except Malformed as error:
            raise Malformed(f"{path.name}: {error}") from None
        g = gain(pre, post) if pre is not None and post is not None else None
        if pre is not None and post is not None:
            pairs.append((pre, post))
            if g is not None:
                gains.append(g)

        def shown(x: float | None, form: str) -> str:
            return "-" if x is None else format(x, form)

        lines.append(
            f"{path.stem:24} {shown(pre, '7.1f')} {shown(post, '7.1f')} {shown(g, '6.2f')}"
        )
    if not pairs:
        return [*lines, "class: no learner has both a before and an after score"]
    sd = f"{statistics.stdev(gains):.2f}" if len(gains) > 1 else "n/a"
    mean = f"{statistics.fmean(gains):.2f}" if gains else "n/a"
    pre_mean = statistics.fmean(p for p, _ in pairs)
    post_mean = statistics.fmean(q for _, q in pairs)
    class_gain = gain(pre_mean, post_mean)
    lines.append(
        f"class: n = {len(pairs)} learners with both scores; g = {mean} ± {sd} (mean ± sd of "
        f"{len(gains)} learners' gains); before {pre_mean:.1f} %, after {post_mean:.1f} %, "
        f"gain of the averages {'n/a' if class_gain is None else f'{class_gain:.2f}'}"
    )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    try:
        print("\n".join(report(args.folder)))
    except Malformed as error:
        sys.exit(f"concept_gain: {error}")


if __name__ == "__main__":
    main()
