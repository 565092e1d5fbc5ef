"""Reading a restated yes/no question (tomgym.answers.restatements), on the release's
question forms."""

from __future__ import annotations

import pytest

from tomgym.answers.restatements import parse_question, restated_answer

KNOW = "Does Hailey know about artist hospitality arrangements? Answer yes or no."
PLACE = (
    "From Diego's perspective, is the scarf in its initial location by the end of the story? "
    "Answer yes or no."
)


def test_the_release_question_forms_parse_and_others_do_not() -> None:
    know = parse_question(KNOW)
    assert know is not None and know.verb == "know" and "hailey" in know.subjects
    assert know.rest == ("about", "artist", "hospitality", "arrangements")
    place = parse_question(PLACE)
    assert place is not None and place.verb is None and "scarf" in place.subjects
    assert parse_question("Where will Ann look for the pen?") is None
    assert parse_question("Who knows about it?") is None


@pytest.mark.parametrize(
    ("question", "clause", "says"),
    [
        (KNOW, "Hailey does not know about it", "no"),
        (KNOW, "she didn't know", "no"),
        (KNOW, "Hailey knows about artist hospitality arrangements", "yes"),
        (KNOW, "Hailey knows", "yes"),
        (KNOW, "Hailey does not know where it is", None),
        (KNOW, "Hailey knows only the old plan", None),
        (KNOW, "Hailey knows nothing about it", None),
        (KNOW, "but Hailey does not know", None),
        (KNOW, "Hailey does not know about the knife", None),
        (PLACE, "it is still in its initial location", "yes"),
        (PLACE, "the scarf is no longer in its initial location", "no"),
        (PLACE, "it is not in its initial location", "no"),
        (PLACE, "it is in the basket", None),
        (PLACE, "it is not", None),
    ],
)
def test_only_a_close_restatement_says_yes_or_no(question: str, clause: str, says: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None
    assert restated_answer(clause, parsed) == says
