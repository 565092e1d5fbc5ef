"""Numbers as values: a red team had "-1" paid for the gold 1 (the word reading sees "1"), and
"1-2", "1.5" or "1,000" paid for 1 among the candidates 1, 2 and 3."""

from decimal import Decimal

import pytest

from tomgym.answers import judge_choice, judge_text
from tomgym.answers.numbers import number_value, numbers_said


@pytest.mark.parametrize(
    ("text", "values"),
    [("-1", ["-1"]), ("\u22121", ["-1"]), ("minus 1", ["-1"]), ("1-2", ["1", "2"]),
     ("x-1", ["1"]), ("1,000", ["1000"]), ("1,2", ["1", "2"]), ("1.5", ["1.5"]),
     ("1st", []), ("one", []), ("The answer is 3.", ["3"]), ("\uff13", ["3"])],
)  # fmt: skip
def test_numbers_said_reads_signs_thousands_and_decimals(text: str, values: list[str]) -> None:
    assert numbers_said(text) == [Decimal(v) for v in values]


def test_only_a_bare_number_is_a_numeric_gold() -> None:
    assert number_value(" 1,000 ") == Decimal(1000)
    assert number_value("-2") == Decimal(-2)
    assert number_value("2 apples") is None
    assert number_value("box") is None


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("-1", "wrong"), ("minus 1", "wrong"), ("1.5", "wrong"), ("1,000", "wrong"),
     ("1-2", "several_candidates"), ("2-1", "several_candidates"),
     ("1 to 2", "several_candidates"), ("1 or 2", "several_candidates"), ("not 1", "wrong"),
     ("1", "correct"), ("1 apple", "correct"), ("The answer is 1.", "correct"),
     ("x-1", "correct")],
)  # fmt: skip
def test_a_numeric_gold_is_judged_by_value(answer: str, verdict: str) -> None:
    assert judge_text(answer, "1").verdict == verdict, answer
    assert judge_choice(answer, "1", ["1", "2", "3"]).verdict == verdict, answer


def test_a_negative_gold_needs_its_sign() -> None:
    assert judge_text("-2", "-2").correct
    assert judge_text("2", "-2").verdict == "wrong"


def test_a_gold_that_is_no_number_is_read_as_words() -> None:
    assert judge_text("room 1-2", "room").correct


@pytest.mark.parametrize(
    ("answer", "gold", "verdict"),
    [("2.0", "2", "correct"), ("2", "2.0", "correct"), ("2 apples", "2.0", "correct"),
     ("1000", "1,000", "correct"), ("1,000 apples", "1000", "correct"),
     ("-1.0", "-1", "correct"), ("\uff12.\uff10", "2", "correct"),
     ("not 2.0", "2", "wrong"), ("2.0 is wrong", "2", "wrong"),
     ("2.0 or 3", "2", "several_candidates"), ("2.5", "2", "wrong")],
)  # fmt: skip
def test_the_golds_value_in_other_digits_is_the_gold(answer: str, gold: str, verdict: str) -> None:
    """A user's file had gold "2.0" from a CSV and "2" from JSONL: "2.0" was read as the words
    "2" and "0" (several candidates for gold 2), and "1000" missed the gold "1,000"."""
    assert judge_text(answer, gold).verdict == verdict, (answer, gold)
    candidates = [gold, "3", "7"]
    assert judge_choice(answer, gold, candidates).verdict == verdict, (answer, gold)


@pytest.mark.parametrize(
    ("answer", "gold", "verdict"),
    [("two", "2", "correct"), ("Two.", "2", "correct"), ("two or three", "2", "several_candidates"),
     ("three", "2", "wrong"), ("not two", "2", "wrong"), ("no one", "2", "wrong"),
     ("two three", "3", "several_candidates"), ("the other one", "1", "wrong"),
     ("1", "one", "correct"), ("2", "one", "wrong")],
)  # fmt: skip
def test_number_words_are_read_as_their_values(answer: str, gold: str, verdict: str) -> None:
    """Custom-data audit: "two" was wrong for the gold 2 (and "1" for "one"), the likeliest
    way a model answers a counting question; number words are now values, and "two or three"
    still names two numbers."""
    assert judge_text(answer, gold, ()).verdict == verdict
    if gold == "2":  # the same among the candidates 1, 2 and 3
        assert judge_choice(answer, gold, ("1", "2", "3")).correct is (verdict == "correct")
