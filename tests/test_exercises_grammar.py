"""One number grammar for both graders (vitexplain/exercises/_typed.py; the page's copy in
docs/_js/exercises.js is compared with it in e2e/test_site_exercises.py).

* What the grammar reads equals what Python's own ``eval`` makes of the same text (the
  reference: the test's own strings, nothing typed by anyone), and text outside it stays text.
* Graded from text, an answer gets the kernel's verdict for the value Python reads, except where
  the learner's intent and Python's reading differ (issue 38's inputs): a thousands or decimal
  comma, a number too large for a float, a division by zero.
* The hints of issue 38: 01.1's swapped pair; 08.1's 0.11 is not "the median".
"""

import pytest

from vitexplain import exercises as ex
from vitexplain.exercises import _typed

ALL = ex.exercises()
SPECS = {i: e.grade for i, e in ALL.items() if e.returns is None}

# Python reads these (eval is the reference): literals, underscores, arithmetic, containers.
PYTHON = [
    "94714", "94_714", "0.5", ".5", "5.", "1e-3", "1_000.000_1", "0x1F", "0o17", "0b101", "007.5",
    "00", "True", "False", "14*14", "9*5", "24+1", "16/8", "2**10", "2**-1", "-2**2", "2**3**2",
    "(3)", "-(3)", "--3", "+3", "2*(3+4)", "1-2-3", "8/2/2", "1/3", "0.1 + 0.2", "True + 1",
    "-True", "2 ** 0.5", "(1, 2)", "1, 2", "13,", "(13,)", "()", "[]", "[13]", "[1, 2]",
    "{1, 2}", "{1, 1.0, True}", "{(1, 2)}", "((20, 20), (20, 20), (0, 0))", "1 # a comment",
    "94,714", "0,5", "1,2,3", "2**1023", "123456789012345678901234567890",
]  # fmt: skip
# Python refuses these or reads something that is no answer here: they stay the text.
TEXT = [
    "abc", "'abc'", "None", "true", "0777", "4,080", "1__0", "1_", "5e", "1j", "1.2.3", "1 2",
    "1+", "(1", "1)", "{}", "{[1]}", "~1", "1//2", "1<2", "not 1", "1 if 1 else 2", "(1,)*2",
    "[1]+[2]", "(-8)**(1/3)", "1.real", "(1)(2)", "[1][0]", "__import__('os').getcwd()", "x",
]  # fmt: skip


@pytest.mark.parametrize("text", PYTHON)
def test_the_grammar_reads_what_python_reads(text):
    expected = eval(text, {"__builtins__": {}})  # the reference: Python itself
    value = _typed.read(text)
    assert value == expected and type(value) is type(expected), (value, expected)


@pytest.mark.parametrize("text", TEXT)
def test_other_text_stays_text_and_nothing_runs(text):
    assert _typed.read(text) == text.strip()


def test_a_number_too_large_or_a_division_by_zero_is_named():
    too_large = _typed.MESSAGES["too_large"]
    for text in ("1" + "0" * 400, "1" + "0" * 5000, "1e400", "10**400", "10.0**400", "1e308*10"):
        with pytest.raises(ex._rules.Unusable, match=too_large.replace("*", r"\*")):
            _typed.read(text)
    for text in ("1/0", "0.0**-1", "0**-1", "1/(2-2)"):
        with pytest.raises(ex._rules.Unusable, match="divides by zero"):
            _typed.read(text)
    assert _typed.read("9" * 307) == int("9" * 307)  # just below


def test_a_percentage_where_the_spec_allows_one():
    assert _typed.read("6.67%", percent=True) == pytest.approx(0.0667)
    assert _typed.read("50 %", percent=True) == 0.5
    assert _typed.read("50%") == "50%"  # elsewhere: text


# --- graded from text: issue 38's inputs --------------------------------------------------------

ISSUE = [
    ("06.1", "94,714", "94,714 reads as a pair (94, 714) in Python; write 94714 or 94_714"),
    ("03.1", "4,080", "4,080 is not a number in Python (a comma separates items); "
                      "write 4080 or 4_080"),
    ("05.1", "3,136", "3,136 reads as a pair (3, 136) in Python; write 3136 or 3_136"),
    ("07.1", "443,136", "443,136 reads as a pair (443, 136) in Python; write 443136 or 443_136"),
    ("06.3", "0,5", "0,5 reads as a pair (0, 5) in Python; write 0.5"),
    ("06.1", "1,234,567", "1,234,567 reads as a tuple (1, 234, 567) in Python; "
                          "write 1234567 or 1_234_567"),
    ("06.1", "94_714", None),
    ("05.2", "14*14", None),
    ("04.2", "9*5", None),
    ("03.5", "24+1", None),
    ("02.4", "16/8", None),
    ("06.1", "1" + "0" * 400, _typed.MESSAGES["too_large"]),
]  # fmt: skip


@pytest.mark.parametrize(("exercise_id", "text", "hint"), ISSUE)
def test_issue_38_inputs_get_what_python_reads_and_what_to_write(exercise_id, text, hint):
    assert _typed.grade_text(SPECS[exercise_id], text) == hint


@pytest.mark.parametrize("text", PYTHON + TEXT)
def test_from_text_the_verdict_is_the_kernels_but_for_the_named_slips(text):
    """Everywhere else the page says what check() says for the value Python reads."""
    for exercise_id, spec in SPECS.items():
        hint = _typed.grade_text(spec, text)
        if _typed.comma_hint(spec, text) is not None:
            assert hint == _typed.comma_hint(spec, text)
            continue
        assert hint == ex.grade(exercise_id, _typed.read(text, spec.percent)), exercise_id


def test_a_swapped_pair_is_called_swapped():
    assert "swapped" in ex.grade("01.1", (768, 196))
    assert "swapped" not in ex.grade("01.1", (196, 256))  # one item wrong: its own hint


def test_08_1_calls_only_the_median_the_median():
    """0.11 is the median rounded to the task's 2 decimals, but also what a mean a little off
    rounds to: the hint names the median only closer to it than that."""
    from vitexplain.exercises import nb08

    median = nb08._MEDIAN_WITHOUT_RESIDUAL
    assert round(median, 3) == 0.112 and "median" in ex.grade("08.1", 0.112)
    assert "median" in ex.grade("08.1", median)
    assert "median" not in ex.grade("08.1", 0.11)
    assert "median" not in ex.grade("08.1", 0.109)
