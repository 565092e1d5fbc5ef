"""The verifier: tag parsing, whole-word checks, and tricks that must earn nothing."""

from __future__ import annotations

import pytest

from tomgym.answers import (
    judge_choice,
    judge_names,
    judge_text,
    judge_yes_no,
    parse_response,
    question_commas,
    rival_names,
    story_places,
    words,
)
from tomgym.items import ToMItem
from tomgym.rewards import score_response

CANDIDATES = ("blue_pantry", "red_pantry", "green_box", "blue_crate", "box")
ITEM = ToMItem(
    id="t1",
    story="s",
    question="Where is the tangerine?",
    answer="blue_pantry",
    candidates=CANDIDATES,
)


def fmt(answer: str, think: str = "reasoning") -> str:
    return f"<think>{think}</think><answer>{answer}</answer>"


@pytest.mark.parametrize(
    "answer",
    [
        "The tangerine is in the blue_pantry.",
        "blue pantry",
        "Blue_Pantry",
        "in the blue pantry",
        "BLUE-PANTRY!",
    ],
)
def test_gold_spellings_are_right(answer: str) -> None:
    assert score_response(fmt(answer), ITEM).correct


def test_words_normalise_case_punctuation_underscores_and_articles() -> None:
    assert words("The Blue_Pantry, really!") == ["blue", "pantry", "really"]
    assert words("ＢＬＵＥ") == ["blue"]  # full-width letters fold to ASCII under NFKC


@pytest.mark.parametrize(
    ("name", "response"),
    [
        ("all candidates", fmt(", ".join(CANDIDATES))),
        ("gold only in think", fmt("red_pantry", think="it is the blue_pantry")),
        ("two answers", "<think>x</think><answer>blue_pantry</answer><answer>red_pantry</answer>"),
        ("empty", fmt("  ")),
        ("nested", "<think>x</think><answer><answer>blue_pantry</answer></answer>"),
        ("repeated think", "<think>a</think><think>b</think><answer>red_pantry</answer>"),
        ("inside word", fmt("xblue_pantryx")),
        ("no tags", "blue_pantry"),
        ("two candidates", fmt("blue_pantry or red_pantry")),
        ("confusable", fmt("blue_p\u0430ntry")),  # Cyrillic a
    ],
)
def test_tricks_are_not_correct(name: str, response: str) -> None:
    assert not score_response(response, ITEM).correct, name


def test_longer_candidate_is_not_also_its_suffix() -> None:
    box_item = ITEM.model_copy(update={"answer": "green_box"})
    assert judge_choice("green box", "green_box", CANDIDATES).correct
    assert score_response(fmt("the green box"), box_item).correct
    assert judge_choice("box", "box", CANDIDATES).correct
    assert judge_choice("green box and box", "box", CANDIDATES).verdict == "several_candidates"


def test_format_rule_counts_prefill() -> None:
    assert parse_response("reasoning</think><answer>x</answer>", prefill="<think>\n").format_ok
    assert not parse_response("reasoning</think><answer>x</answer>").format_ok
    assert not parse_response("<think>a</think>junk<answer>x</answer>").format_ok
    assert not parse_response("<think>a</think><answer>x</answer><think>b</think>").format_ok
    assert parse_response("  <think>a</think>\n<answer>x</answer>  ").format_ok


def test_verdicts_say_why() -> None:
    assert score_response("no tags at all", ITEM).verdict == "no_answer"
    assert score_response(fmt(""), ITEM).verdict == "empty_answer"
    assert score_response(fmt("red_pantry"), ITEM).verdict == "wrong"
    assert score_response(fmt("blue_pantry red_pantry"), ITEM).verdict == "several_candidates"
    assert score_response(fmt("the pantry"), ITEM).verdict == "no_candidate"
    assert (
        score_response("<think>x</think><answer>a</answer><answer>b</answer>", ITEM).verdict
        == "several_answers"
    )


def test_yes_no_is_judged_on_the_leading_word() -> None:
    assert judge_yes_no("Yes, she does.", "yes").correct
    assert judge_yes_no("no", "no:long").correct
    assert not judge_yes_no("I know", "no").correct
    assert not judge_yes_no("yesterday", "yes").correct
    assert judge_yes_no("maybe", "yes").verdict == "unparsable"


def test_free_text_needs_whole_gold_phrase_and_no_other_candidate() -> None:
    assert judge_text("In the wooden desk drawer.", "wooden desk drawer").correct
    assert not judge_text("drawer", "wooden desk drawer").correct
    assert not judge_text(
        "wooden desk drawer or the shelf", "wooden desk drawer", ["shelf"]
    ).correct
    assert (
        judge_text(" ".join(["word"] * 40) + " wooden desk drawer", "wooden desk drawer").verdict
        == "too_long"
    )


def test_name_lists_are_sets() -> None:
    assert judge_names("Bob, alice and Carol", ["Alice", "Bob", "Carol"]).correct
    assert not judge_names("Alice, Bob", ["Alice", "Bob", "Carol"]).correct
    assert not judge_names("Alice, Bob, Carol, Dan", ["Alice", "Bob", "Carol"]).correct


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("Only Ann", ["Ann"]), ("Both Ann and Bob", ["Ann", "Bob"]),
     ("Ann and Bob know about it.", ["Ann", "Bob"]), ("Ann knows.", ["Ann"]),
     ("The characters who know are Ann and Bob.", ["Ann", "Bob"]),
     ("Ann and Bob are aware of it", ["Ann", "Bob"]), ("Just Will", ["Will"]),
     ("1. Ann\n2. Bob", ["Ann", "Bob"]), ("1) Ann 2) Bob 3) Carl", ["Ann", "Bob", "Carl"]),
     ("Ann/Bob", ["Ann", "Bob"]), ("Ann, as well as Bob", ["Ann", "Bob"]),
     ("Ann and Bob, but not Carl", ["Ann", "Bob"]), ("Ann, not Carl", ["Ann"]),
     ("All three: Ann, Bob and Carl", ["Ann", "Bob", "Carl"]),
     ("Ann and Bob were in the conversation.", ["Ann", "Bob"]),
     ("Ann, Bob - they were present.", ["Ann", "Bob"])],
)  # fmt: skip
def test_a_name_list_said_in_a_sentence_is_its_names(answer: str, gold: list[str]) -> None:
    """Red team: "Only Ann" and "Ann and Bob know about it" were wrong (FANToM's list questions
    read the parts "only ann" and "bob know about it" as names). A false-negative audit: a
    numbered list ("1. Ann 2. Bob"), "Ann/Bob", "as well as", an exclusion after the list ("but
    not Carl") and "were in the conversation" were wrong too."""
    assert judge_names(answer, gold).correct


@pytest.mark.parametrize(
    "answer",
    ["Ann and maybe Bob", "All but Carl", "Ann, Bob, but not Bob", "Ann, Bob and Zed",
     "Ann and Bob do not know", "Everyone except Carl", "Ann, Bob, possibly Carl", "Only Ann",
     "Ann/Bob/Carl", "1. Ann 2. Bob 3. Carl", "Ann, not Bob", "Ann and Bob, or not",
     "Not Ann and Bob", "Not only Carl, but also Ann and Bob", "Ann and Bob, not to mention Carl",
     "Ann, Bob, not sure about Carl", "Ann and Bob, except maybe Carl",
     "Ann and Bob, not Carl but Dan", "Ann and Bob, not ruling out Carl",
     "Ann, Bob; not excluding Carl"],
)  # fmt: skip
def test_a_name_list_with_a_hedge_a_denial_or_another_name_is_not_credited(answer: str) -> None:
    assert not judge_names(answer, ["Ann", "Bob"]).correct


@pytest.mark.parametrize(
    "response",
    [
        "<think>" + "a" * 1_000_000 + "</think><answer>blue_pantry</answer>",
        "<think>x</think><answer>" + "blue " * 200_000 + "</answer>",
        "<" * 1_000_000,
        "<answer>" * 100_000,
        "blue_pantry " * 100_000,
    ],
)
def test_megabyte_responses_are_scored(response: str) -> None:
    # Timing is measured in benchmarks/verifier_fuzz.py (linear in the input), not asserted
    # here; a backtracking parser would hang this test rather than pass it.
    score = score_response(response, ITEM)
    expected = response.startswith("<think>a")  # only the well-formed gold answer is right
    assert score.correct is expected


def test_a_candidate_list_of_the_gold_alone_still_caps_the_answer_length() -> None:
    """A candidate list of the gold alone (items refuse one now; ExploreToM's room questions
    without another answer are free text) is judged as free text: pasting the story names
    the gold too, and must not be credited."""
    story = "Anna entered the kitchen. Ben entered the hall. Anna moved to the garden. " * 3
    assert not judge_text(story, "garden", candidates=["garden"]).correct
    assert judge_text(story, "garden", candidates=["garden"]).verdict == "too_long"
    for fine in ("garden", "The garden.", "It is in the garden."):
        assert judge_text(fine, "garden", candidates=["garden"]).correct, fine


@pytest.mark.parametrize(
    "answer",
    ["not the jar", "The ball is not in the jar.", "It isn't in the jar",
     "isn’t located in the jar", "never the jar",
     # denials a user review found credited: exclusions before, refutations after the gold
     "anywhere except the jar", "everything but the jar", "anything other than the jar",
     "it is no longer in the jar", "the jar is wrong", "The jar is incorrect.",
     "the jar is not the answer", "the jar isn't right",
     # reward red team: refutations that were paid as the gold
     "the jar is not true", "the jar cannot be right", "the jar would not be correct",
     "the jar is untrue"],
)  # fmt: skip
def test_a_negated_gold_is_not_credited(answer: str) -> None:
    assert judge_choice(answer, "jar", ["jar", "box"]).verdict == "wrong"
    assert judge_text(answer, "jar").verdict == "wrong"


@pytest.mark.parametrize(
    "answer",
    ["The jar, because Anne didn't see the move.", "Not sure, but the jar",
     "Anne does not know it moved, so she looks in the jar", "the jar is right",
     "the jar is the right answer", "the jar, not wrong",
     "the jar, which can not be wrong", "the jar is true"],
)  # fmt: skip
def test_a_negation_elsewhere_in_the_answer_does_not_negate_the_gold(answer: str) -> None:
    assert judge_choice(answer, "jar", ["jar", "box"]).correct
    assert judge_text(answer, "jar").correct


@pytest.mark.parametrize(
    "answer", ["garden, kitchen", "the garden or the hall", "garden / hall", "garden and kitchen"]
)
def test_free_text_without_candidates_refuses_a_list_of_alternatives(answer: str) -> None:
    judgement = judge_text(answer, "garden")
    assert judgement.verdict == "several_candidates", judgement
    assert judge_text(answer, "garden", candidates=["garden"]).verdict == "several_candidates"


def test_free_text_list_check_keeps_explanations_exclusions_and_list_golds() -> None:
    assert judge_text("In the garden, where Anne left it before going out", "garden").correct
    assert judge_text("the garden, not the hall", "garden").correct
    assert judge_text("Anne and Bob", "Anne and Bob").correct


@pytest.mark.parametrize(
    "answer",
    [
        "grand ballroom. Nobody moved it.",
        "The grand ballroom. It was never moved.",
        "grand ballroom (I'm confident)",
        "grand ballroom; Liam saw it.",
        "grand ballroom! Mia watched.",
        "grand ballroom. Reason: Mia was not present.",
        "grand ballroom, and it stayed there",
        "grand ballroom (it stayed put)",
        "grand ballroom: Mia witnessed the move.",
        "grand ballroom. Noah put it there.",
        "grand ballroom. Liam left first.",
    ],
)
def test_a_short_sentence_about_the_story_after_a_free_text_answer_is_no_alternative(
    answer: str,
) -> None:
    """A short reason after the answer read as a second answer (the list rule): "grand
    ballroom. Nobody moved it." scored 0 on ExploreToM's free-text items, where Hi-ToM's
    candidates credited the same reply (found by a user auditing false negatives)."""
    people = frozenset({"liam", "mia", "noah"})
    assert judge_text(answer, "grand ballroom", people=people).correct, answer
    assert judge_text(answer, "grand ballroom").verdict == "several_candidates"  # no story


@pytest.mark.parametrize(
    "answer",
    [
        "grand ballroom. It might be the pouch.",
        "grand ballroom. It's not there.",
        "grand ballroom. It's not.",
        "grand ballroom, or it was moved",
        "grand ballroom. Noah's.",
        "grand ballroom. It's the pouch.",
        "grand ballroom. nobody knows pouch",
        "grand ballroom. It's elsewhere.",
        "grand ballroom. Mia's room.",
        "grand ballroom. It went to Paris.",
        # a reward red team's: a hedge, or the object moved, held, gone or not there
        "grand ballroom? I don't know.",
        "grand ballroom (I don't know)",
        "grand ballroom. Nobody knows.",
        "grand ballroom. Noah took it.",
        "grand ballroom. Noah has it.",
        "grand ballroom. It's gone.",
        "grand ballroom. It never was there.",
        "grand ballroom. Nothing is there.",
        "grand ballroom and it was moved.",
        "grand ballroom. It left with Noah.",
    ],
)
def test_a_sentence_that_names_or_denies_something_is_still_an_alternative(answer: str) -> None:
    people = frozenset({"liam", "mia", "noah"})
    judgement = judge_text(answer, "grand ballroom", places=frozenset({"paris"}), people=people)
    assert judgement.verdict == "several_candidates", answer


def test_an_answer_may_repeat_the_question_s_commas_and_words() -> None:
    """Restating the asked object, "The small, leather-bound notebook is in the control room.",
    split at its comma into the alternative "small" (212 of 544 such ExploreToM replies
    scored 0). Words copied from the question still count towards the length limit: a long
    restatement may deny the belief asked about (reward red team)."""
    question = "In which room does Liam think Mia will search for the small, leather-bound book?"
    restated = "The small, leather-bound book is in the control room."
    assert judge_text(restated, "control room", question=question).correct
    assert judge_text(restated, "control room").verdict == "several_candidates"
    long = (
        "Liam thinks that Mia will search for the small, leather-bound book in the control "
        "room, since neither of them left."
    )
    assert judge_text(long, "control room", question=question).verdict == "too_long"
    denial = (
        "Mia will search for the small, leather-bound book in the control room, but Liam "
        "thinks Mia will search for the small, leather-bound book somewhere else."
    )
    assert not judge_text(denial, "control room", question=question).correct
    # only the question's own pair of words: "small, kitchen" still offers the kitchen
    assert not judge_text("control room, small, kitchen", "control room", question=question).correct
    assert not judge_text("small, kitchen", "kitchen", question=question).correct
    # a comma between places in the question is a list there too
    listing = "Was the ball in the kitchen, garden or hall at first?"
    assert question_commas(listing) == frozenset()
    assert not judge_text("kitchen, garden", "kitchen", question=listing).correct
    # nor after a place further back: copying it would hide the place beside the gold (red team)
    moved = (
        "In which container was the portable speaker before Lucas moved the portable speaker to "
        "the main information tent, leaving the duffel bag in its original location?"
    )
    assert question_commas(moved) == frozenset()
    echo = "main information tent, leaving the duffel bag"
    assert judge_text(echo, "duffel bag", question=moved).verdict == "several_candidates"


@pytest.mark.parametrize(
    ("gold", "hedge"),
    [
        ("Anne and Bob", "Anne and Bob or Carl or Dan"),
        ("the red, shiny box", "the red, shiny box or the garden or the attic"),
        ("No, she doesn't", "No, she doesn't, or yes she does"),
        ("salt / pepper", "salt / pepper, sugar"),
    ],
)
def test_a_gold_that_is_a_list_itself_still_refuses_alternatives_beside_it(
    gold: str, hedge: str
) -> None:
    """Golds with a comma, "and" or "/" turned the list check off, leaving only the length
    limit: a hedge of two more answers was credited (found by a user registering their own
    free-text data)."""
    assert judge_text(hedge, gold).verdict == "several_candidates"
    assert judge_text(gold, gold).correct
    assert judge_text(f"{gold}, because that is what the story says happened", gold).correct
    assert judge_text(f"{gold}, not the garden", gold).correct


def test_a_sentence_gold_is_denied_across_its_own_full_stop() -> None:
    """FANToM's golds are sentences: "The <gold> is wrong." split at the gold's own full stop
    and was credited; the stop ends the gold, not the refuting clause."""
    gold = "Kai believes the trip was to Peru."
    others = [gold, "Kai believes the trip was to Chile."]
    assert judge_choice(f"The {gold} is wrong.", gold, others).verdict == "wrong"
    assert judge_choice(f"Not sure. {gold}", gold, others).correct
    assert judge_choice(f"{gold} It is not wrong.", gold, others).correct
    assert judge_text("The jar. Wrong answers are found elsewhere.", "jar").correct  # own stop


def test_a_location_gold_with_its_preposition_is_named_by_the_place_alone() -> None:
    """A gold "in the box" refused "box" and "the box", though a gold "box" takes "in the
    box" (a user's own free-text data writes locations either way)."""
    for answer in ("box", "the box", "inside the box", "In the box."):
        assert judge_text(answer, "in the box").correct, answer
    assert judge_text("at home", "at home").correct and judge_text("home", "at home").correct
    assert judge_text("basket", "in the box").verdict == "wrong"
    assert judge_text("not the box", "in the box").verdict == "wrong"
    assert judge_text("box or basket", "in the box").verdict == "several_candidates"
    for elsewhere in ("outside the box", "out of the box", "next to the box"):
        assert judge_text(elsewhere, "in the box").verdict == "wrong", elsewhere
    assert judge_text("under the table", "on the table").verdict == "wrong"


@pytest.mark.parametrize(
    "hedge", ["yes or no", "yes/no", "Yes and no", "Yes? No!", "yes\n\nActually no, he doesn't."]
)
def test_a_yes_no_answer_that_says_both_is_not_credited(hedge: str) -> None:
    """Every one of these earned the full reward on a yes item: answering "yes or no" to
    every yes/no question was right on all of them (found by an RL user's review)."""
    assert judge_yes_no(hedge, "yes").verdict == "several_candidates"
    assert judge_yes_no("Yes, no one told him otherwise.", "yes").correct
    assert judge_yes_no("Yes.", "yes").correct


def test_contractions_name_the_same_phrase_as_the_words_written_out() -> None:
    """ExploreToM's candidate "does not know about it" refused "doesn't know about it"."""
    candidates = ["knows about it", "does not know about it"]
    said = ("doesn't know about it", "He doesn\u2019t know about it", "Does NOT know about it")
    for answer in said:
        assert judge_choice(answer, "does not know about it", candidates).correct, answer
    assert not judge_choice("doesn't know about it", "knows about it", candidates).correct
    assert words("can't won't cannot") == ["can", "not", "will", "not", "can", "not"]


@pytest.mark.parametrize(
    "denial",
    ["crate (wrong)", "crate: wrong", "nowhere near the crate", "the basket instead of the crate",
     "the bin rather than the crate"],
)  # fmt: skip
def test_more_denials_of_the_gold_earn_nothing(denial: str) -> None:
    assert judge_text(denial, "crate").verdict == "wrong", denial
    assert judge_text("the crate instead of the basket", "crate").correct
    assert judge_text("Not sure: the crate", "crate").correct


@pytest.mark.parametrize(
    "hedge",
    ["basket. box", "basket? box?", "basket then box", "basket (box)", "basket\uff0c box",
     "basket\u3001box", "basket + box", "basket vs box"],
)  # fmt: skip
def test_free_text_alternatives_split_by_other_marks_are_still_a_list(hedge: str) -> None:
    """Only commas, slashes, and/or split a free-text list: listing every place of the story
    joined by ". " took a registered free-text env from 19% to 76% (red team)."""
    assert judge_text(hedge, "box").verdict == "several_candidates"
    for fine in ("box, I think.", "The box, obviously.", "box. She never saw Bob move it."):
        assert judge_text(fine, "box").correct, fine


def test_a_candidate_the_answer_only_excludes_is_not_named() -> None:
    """'The red chest, not the blue box' was several_candidates on every choice item (the
    free-text judge already read it as an exclusion)."""
    cands = ["red_chest", "blue_box", "green_bin"]
    for fine in ("the red chest, not the blue box", "It is not in the blue_box; it is in "
                 "the red_chest.", "red_chest and never the green_bin"):  # fmt: skip
        assert judge_choice(fine, "red_chest", cands).correct, fine
    assert judge_choice("blue_box, not red_chest", "red_chest", cands).verdict == "wrong"
    assert judge_choice("red_chest or blue_box", "red_chest", cands).verdict == (
        "several_candidates"
    )


@pytest.mark.parametrize(
    "affirmed",
    ["It never left the red chest.", "It hasn't moved from the red_chest.",
     "None other than the red_chest.", "It can't be anywhere but the red_chest."],
)  # fmt: skip
def test_negated_leaving_and_negated_exclusions_affirm_the_gold(affirmed: str) -> None:
    cands = ["red_chest", "blue_box"]
    assert judge_choice(affirmed, "red_chest", cands).correct
    assert judge_choice("It is not in the red_chest.", "red_chest", cands).verdict == "wrong"


@pytest.mark.parametrize(
    ("said", "gold"),
    [("Answer: yes", "yes"), ("The answer is yes.", "yes"), ("Yeah", "yes"), ("Yep.", "yes"),
     ("Nope", "no"), ("Final answer: no", "no")],
)  # fmt: skip
def test_yes_no_answers_announced_or_said_informally_count(said: str, gold: str) -> None:
    """'Answer: yes', 'Yeah' and 'Nope' were unparsable on every ExploreToM and OpenToM
    yes/no item (red team)."""
    assert judge_yes_no(said, gold).correct
    assert judge_yes_no("yes or nope", "yes").verdict == "several_candidates"


@pytest.mark.parametrize(
    "affirmed",
    ["the box rather than the basket", "the box instead of the basket", "nowhere but the box",
     "nowhere except the box"],
)  # fmt: skip
def test_exclusions_of_another_candidate_and_nowhere_but_affirm_the_gold(affirmed: str) -> None:
    """Natural answers the red team found refused: an excluding pair before another candidate
    did not exclude it, and 'nowhere but' read as a denial."""
    assert judge_choice(affirmed, "box", ["box", "basket", "crate"]).correct
    assert judge_choice("the basket rather than the box", "box", ["box", "basket"]).verdict == (
        "wrong"
    )


WHO_STORY = "Ann put the ball in the box. Ann left. Bob moved the ball. Then Carl came in."


@pytest.mark.parametrize(
    "hack",
    ["Ann Bob Carl", "Ann otherwise Bob otherwise Carl", "Ann unless Bob unless Carl",
     "Ann with Bob with Carl", "Bob Carl"],
)  # fmt: skip
def test_a_free_text_name_gold_refuses_the_story_s_other_names_however_joined(hack: str) -> None:
    """Free-text items without candidates (a user's "Who...?" data): the story's names joined by
    spaces or words the list check does not split on scored correct for every gold."""
    for gold in ("Ann", "Bob", "Carl"):
        item = ToMItem(
            id="w", story=WHO_STORY, question="Who moved the ball?", answer=gold, answer_type="text"
        )
        if gold.lower() in hack.lower().split():
            assert score_response(fmt(hack), item).verdict == "several_candidates", (hack, gold)


@pytest.mark.parametrize(
    "answer",
    ["Bob", "Bob moved it", "It was Bob.", "Bob, not Ann", "Bob did, after Ann left the room",
     "Then Bob"],
)  # fmt: skip
def test_a_free_text_name_gold_keeps_plain_answers_and_the_question_s_own_names(
    answer: str,
) -> None:
    item = ToMItem(
        id="w", story=WHO_STORY, question="Who moved the ball?", answer="Bob", answer_type="text"
    )
    judged = score_response(fmt(answer), item)
    # "after Ann left" names Ann as part of the story, not as an answer: refused, as a list is
    assert judged.correct == ("Ann left" not in answer), (answer, judged.verdict)
    asked = ToMItem(
        id="w", story=WHO_STORY, question="Whom did Ann see?", answer="Bob", answer_type="text"
    )
    assert score_response(fmt("Ann saw Bob"), asked).correct  # Ann is the question's


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("not the hamper but the box", "correct"), ("not hamper but box", "correct"),
     ("it is not in the hamper but rather in the box", "correct"),
     ("She won't look in the box or the basket", "several_candidates"),
     ("not the box but the hamper", "wrong"), ("She would not look in the box", "wrong"),
     ("not in the box but in the hamper", "wrong")],
)  # fmt: skip
def test_a_negation_turned_round_by_but(answer: str, verdict: str) -> None:
    """ToMi: "not the hamper but the box" was "wrong (negates the gold)", since a "not" up to
    3 words before the gold counted across the "but". A verb between a negation and a
    candidate still keeps it named: excluding "the box" from "won't look in the box or the
    basket" credited the basket."""
    assert judge_choice(answer, "box", ["box", "hamper", "basket"]).verdict == verdict


def test_the_names_rule_covers_a_question_offering_the_gold_and_spares_sentence_openers() -> None:
    """Review: with the gold named by the question ("Who has the key, Anne or Bob?") the rule
    turned off, so "Anne Bob" scored for both; June, Will, Zoë and McKenzie were never names;
    an opener such as "Luckily" or "Actually" was one, refusing "Actually Carl"."""

    def verdict(story: str, question: str, gold: str, answer: str) -> str:
        item = ToMItem(id="w", story=story, question=question, answer=gold, answer_type="text")
        return score_response(fmt(answer), item).verdict

    story = "Anne met Bob in the hall. Bob gave the key to Carl. Carl left."
    for gold in ("Anne", "Bob"):
        assert verdict(story, "Who has the key, Anne or Bob?", gold, "Anne Bob") != "correct"
    assert verdict(story, "Who has the key, Anne or Bob?", "Anne", "Anne, not Bob") == "correct"
    odd = "June met Zoë in the hall. Zoë gave the key to Will. McKenzie left with Will."
    for gold in ("June", "Zoë", "Will", "McKenzie"):
        assert verdict(odd, "Who has it?", gold, "June Zoë Will McKenzie") != "correct"
    openers = "Actually, nobody saw it. Luckily Anne met Bob. Then Bob gave the key to Carl."
    for answer in ("Carl", "Carl, probably", "Actually Carl", "Luckily Carl has it", "Then Carl"):
        assert verdict(openers, "Who has the key now?", "Carl", answer) == "correct", answer


def test_an_option_quoted_whole_is_not_read_for_labels() -> None:
    """Second review: "plan B." inside option (a)'s own text was read as label b, so quoting
    option (a) word for word scored correct for gold (b); "A:" opening an answer was option a."""
    first = "Kailey believes they settled on plan B."
    second = "Kailey does not know which plan they settled on."
    labels = {"a": first, "b": second}

    def verdict(answer: str, gold: str) -> str:
        item = ToMItem(
            id="f",
            story="s",
            question="q",
            answer=gold,
            candidates=(first, second),
            metadata={"option_labels": labels},
        )
        return score_response(fmt(answer), item).verdict

    assert verdict(first, second) == "wrong" and verdict(first, first) == "correct"
    assert verdict(f"(a) {first}", first) == "correct"
    assert verdict(f"A: {second}", second) == "correct"
    assert verdict("A B)", second) == "several_candidates"  # two labels, not an article
    assert verdict("(b)", second) == "correct"
    item = ToMItem(
        id="f",
        story="s",
        question="q",
        answer="x",
        candidates=("x", "y"),
        metadata={"option_labels": {"": "x", "b": "y"}},
    )  # an empty label: no crash
    assert score_response(fmt("(b)"), item).verdict == "wrong"


def test_names_ending_in_ly_and_the_asker_of_an_offering_question() -> None:
    """Second review: Emily and Lily were taken for -ly adverbs ("Emily Carl" credited for
    both); "Who does Anne think has the key, Bob or Carl?" made the asker Anne a rival."""

    def verdict(story: str, question: str, gold: str, answer: str) -> str:
        item = ToMItem(id="w", story=story, question=question, answer=gold, answer_type="text")
        return score_response(fmt(answer), item).verdict

    story = "Emily met Carl. Carl gave the key to Lily. Lily left."
    for gold in ("Emily", "Carl", "Lily"):
        assert verdict(story, "Who has the key?", gold, "Emily Carl Lily") != "correct"
    offering = "Who does Anne think has the key, Bob or Carl?"
    tale = "Anne met Bob. Bob gave the key to Carl."
    assert verdict(tale, offering, "Bob", "Anne thinks Bob has it") == "correct"
    assert verdict(tale, offering, "Bob", "Bob Carl") == "several_candidates"


@pytest.mark.parametrize(
    "answer",
    ["none other than operations room none other than briefing room",
     "none other than the operations room, none other than the briefing room",
     "nowhere except the operations room and nowhere except the briefing room",
     "not anywhere but the operations room, not anywhere but the briefing room",
     "it isn't anything but the operations room or the briefing room",
     "never anywhere but the operations room; never anywhere but the briefing room"],
)  # fmt: skip
def test_a_negated_exclusion_affirms_every_place_it_names(answer: str) -> None:
    """'none other than A none other than B' was correct whatever the gold (red team: 167 of
    167 ExploreToM free-text items with two places paid): 'other than' excluded each place
    though 'none' turned it round, as it already did for the gold."""
    story = "Ann entered the briefing room. Ann moved to the operations room."
    places = story_places(story)
    for gold in ("briefing room", "operations room"):
        assert judge_text(answer, gold, places=places).verdict == "several_candidates"
        assert judge_text(f"none other than the {gold}", gold, places=places).correct
    cands = ["bin", "cabinet"]
    assert judge_choice("none other than the bin, none other than the cabinet", "bin",
                        cands).verdict == "several_candidates"  # fmt: skip
    assert judge_choice("the bin. nowhere except the cabinet", "bin", cands).verdict == (
        "several_candidates"
    )
    assert judge_choice("It is none other than the bin, not the cabinet", "bin", cands).correct


@pytest.mark.parametrize(
    ("answer", "gold", "candidates"),
    [("neutral, not positive or negative", "neutral", ["positive", "negative", "neutral"]),
     ("neutral, neither positive nor negative", "neutral", ["positive", "negative", "neutral"]),
     ("the red basket, not the red hamper or the blue basket", "red_basket",
      ["red_basket", "red_hamper", "blue_basket"]),
     ("It is not in the hamper or in the crate; it is in the box.", "box",
      ["box", "hamper", "crate"])],
)  # fmt: skip
def test_a_negation_excludes_every_item_of_its_or_list(
    answer: str, gold: str, candidates: list[str]
) -> None:
    """Red team: 'neutral, not positive or negative' was several_candidates: the negation
    excluded only the first item of its 'or' list."""
    assert judge_choice(answer, gold, candidates).correct
    listed = " or ".join(c for c in candidates if c != gold)
    assert judge_choice(f"{gold} or {listed}", gold, candidates).verdict == "several_candidates"
    assert not judge_choice(f"not sure, {gold} or {listed}", gold, candidates).correct


@pytest.mark.parametrize(
    ("said", "gold"),
    [("Not really.", "no"), ("Probably not.", "no"), ("I don't think so", "no"),
     ("Answer: I think not", "no"), ("Of course!", "yes"), ("I think so.", "yes")],
)  # fmt: skip
def test_a_whole_answer_saying_yes_or_no_without_the_word_counts(said: str, gold: str) -> None:
    """Red team: 'Not really.' and 'Probably not.' were unparsable on yes/no items."""
    assert judge_yes_no(said, gold).correct
    assert judge_yes_no(said, "yes" if gold == "no" else "no").verdict == "wrong"
    # whole answers only: "Probably not the box" says no "no"; a first clause of its own does
    bare = said.rstrip(".!")
    assert judge_yes_no(f"{bare} the box", gold).verdict == "unparsable"
    if "not" in bare.casefold() and "probably" not in bare.casefold() and ":" not in bare:
        assert judge_yes_no(f"{bare} - she saw it", gold).correct  # a first clause of its own


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("So, the answer is no.", "no"), ("The correct answer is yes.", "yes"),
     ("Therefore, no.", "no"), ("In short, yes.", "yes"), ("Based on the story, no.", "no"),
     ("From Anthony's perspective, no.", "no"), ("My answer would be no.", "no"),
     ("I'd say yes.", "yes"), ("Most likely yes.", "yes"), ("She doesn't.", "no"),
     ("He does, because he saw it.", "yes"),
     ("Kaitlyn left before it happened, so no.", "no"), ("She was there all along. Yes.", "yes"),
     ("She saw the move.\nAnswer: yes", "yes"), ("Does Kaitlyn know about it? No.", "no"),
     ("Definitely not - she left before it happened.", "no"), ("False - she left.", "no"),
     ("Not at all - she left.", "no"), ("Yes, he does, but it isn't.", "yes"),
     ("Yes, he does, even though it isn't.", "yes"), ("Affirmative.", "yes"),
     ("Negative.", "no"), ("Indeed.", "yes")],
)  # fmt: skip
def test_a_yes_or_no_after_a_lead_in_or_a_reason_or_said_by_its_subject_counts(
    answer: str, gold: str
) -> None:
    """A yes/no audit (81 phrasings over 400 ExploreToM and OpenToM items): these were
    unparsable (or, for "False - ...", read as labelled wrong); each is credited for its gold
    and wrong for the other."""
    from tomgym.items import ToMItem
    from tomgym.rewards import judge_answer

    item = ToMItem(id="y", story="S.", question="Q?", answer=gold, answer_type="yes_no")
    assert judge_answer(answer, item)[0], answer
    other = item.model_copy(update={"answer": "no" if gold == "yes" else "yes"})
    assert judge_answer(answer, other)[1] == "wrong", answer


@pytest.mark.parametrize(
    "answer",
    ["Hmm... no?", "No idea.", "I'm not sure, maybe yes maybe no", "Yes or no?", "Not, yes",
     "She left. Yes. No.", "Probably, but I'm not sure", "She doesn't, so yes",
     # a reward red team's: conditions, hedges, questions asked back, markers, refusals
     "It depends on whether she saw the move; if she did, yes.", "If she saw it, yes.",
     "Had she stayed, yes.", "Yes if she saw it, no otherwise.", "She may or may not know.",
     "She might.", "She could have, but the story doesn't say.", "I don't know. Yes.",
     "Hard to say, it could go either way. Yes.", "She does?", "She does - or does she?",
     "So... no? \U0001f914", "**Yes?**", "Of course, Ann was not there when it happened.",
     "Indeed, she has no way of knowing.", "Definitely, she was gone by then.",
     "It is. But Ann doesn't know that.", "It isn't.", "False: the story doesn't say.",
     "False - can't be determined.", "False - or true, hard to say.", "Unlikely, yes.",
     "Possibly, no.", "Either, yes.", "Yes, she does. Then again, it might not.",
     "No, he doesn't. It does.", "She does, and also she does not.",
     "She does, or at least she might.", "Most likely yes, most likely not.",
     "The correct answer is yes, but I disagree.", "I cannot determine this. No.",
     "No one can say."],
)  # fmt: skip
def test_a_yes_no_answer_that_asks_hedges_or_says_both_stays_refused(answer: str) -> None:
    for gold in ("yes", "no"):
        assert not judge_yes_no(answer, gold).correct, (answer, gold)


@pytest.mark.parametrize(
    "template",
    ["Nowhere, except the {0}. Nowhere, except the {1}.",
     "not in in in the {0} not in in in the {1}",
     "never to to to the {0}; never to to to the {1}", "The {0}, nowhere (except the {1})."],
)  # fmt: skip
def test_a_template_that_excludes_every_place_pays_for_no_gold(template: str) -> None:
    """Red team (round 2): the gold's denial and another place's exclusion read the same words
    differently (clause, reach), so 'Nowhere, except P1. Nowhere, except P2.' paid 188 of 188
    ExploreToM free-text items whatever the gold. A gold excluded as another place would be
    is now wrong, so no template pays for two golds."""
    story = "Ann entered the briefing room. Ann moved to the operations room."
    places = story_places(story)
    rooms = ("briefing room", "operations room")
    for answer in (template.format(*rooms), template.format(*rooms[::-1])):
        paid = [g for g in rooms if judge_text(answer, g, places=places).correct]
        assert len(paid) <= 1, (answer, paid)
    assert not judge_text("It is not in in in the briefing room", "briefing room").correct


def test_an_announced_free_text_answer_and_a_person_after_to_are_no_alternatives() -> None:
    """Red team: 'Answer: hotel lobby' was several_candidates on every free-text item ('answer'
    read as another answer), and 'told it privately to Lachlan' made Lachlan a place."""
    story = ("Lachlan entered the hotel lobby. Kai told it privately to Lachlan. Kai left the "
             "lobby. Then Kai flew to Paris.")  # fmt: skip
    places = story_places(story)
    assert "lachlan" not in places and {"hotel", "paris"} <= places  # a place never a subject
    hedge = "the hotel lobby, or it went to Paris"
    assert not judge_text(hedge, "hotel lobby", places=places).correct
    for said in ("Answer: hotel lobby", "Final answer: the hotel lobby"):
        assert judge_text(said, "hotel lobby", places=places).correct


def test_a_candidate_the_question_names_still_reads_whole() -> None:
    """Final review: with the question's candidate 'red box' left out of the rivals, the gold
    'box' inside it was all the judge saw, and 'the red box' scored correct."""
    asked = ("red box",)
    for wrong in ("the red box", "It was in the red box."):
        assert not judge_text(wrong, "box", ("box", "red box"), asked=asked).correct
    assert judge_text("the box, before Bob moved it to the red box", "box", ("box", "red box"),
                      asked=asked).correct  # fmt: skip


def test_an_invisible_mark_inside_a_word_reads_as_the_prompt_shows_it() -> None:
    """Final review: a soft hyphen in a gold ('cup\\u00adboard') is dropped from the prompt, but
    the judge split the gold there, so the answer 'cupboard' named nothing."""
    assert judge_choice("cupboard", "cup\u00adboard", ["cup\u00adboard", "drawer"]).correct
    assert words("bo\u200bx") == ["box"]


def test_an_invisible_mark_does_not_hide_the_other_yes_no_word() -> None:
    """A zero-width space inside 'no' hid it from the both-words check while words() reads it."""
    assert judge_yes_no("Yes, n\u200bo!", "yes").verdict == "several_candidates"


def test_an_invisible_or_and_a_shared_first_word_offer_no_second_place() -> None:
    """Red team (round 3): 'not in the briefing o\\u200br the briefing room, not in the
    operations o\\u200br the operations room' paid for either room (the list check did not see
    the 'or' the judge read), and 'hospital staff lounge hospital conference room' paid for
    either of two places sharing a first word."""
    story = ("Ann entered the briefing room. Ann entered the operations room. Bob entered the "
             "hospital staff lounge. Bob entered the hospital conference room.")  # fmt: skip
    places = story_places(story)
    hidden = ("not in the briefing o\u200br the briefing room, not in the operations o\u200br "
              "the operations room")  # fmt: skip
    for gold in ("briefing room", "operations room"):
        assert not judge_text(hidden, gold, places=places).correct
    shared = "hospital staff lounge hospital conference room"
    for gold in ("hospital staff lounge", "hospital conference room"):
        assert judge_text(shared, gold, places=places).verdict == "several_candidates"
    assert judge_text("It was in the hospital staff lounge since the hospital was quiet",
                      "hospital staff lounge", places=places).correct  # fmt: skip


@pytest.mark.parametrize(
    "said",
    ["It can't be anywhere other than the box.", "She wouldn't search anywhere except the box.",
     "It can't be anywhere but the box."],
)  # fmt: skip
def test_an_exclusion_negated_a_few_words_back_affirms(said: str) -> None:
    """Red team (round 3): a negation 3-4 words before 'other than' / 'except' read as a
    denial of the gold."""
    assert judge_choice(said, "box", ["box", "basket"]).correct
    assert judge_choice(said.replace("box", "basket"), "box", ["box", "basket"]).verdict == (
        "wrong"
    )


@pytest.mark.parametrize(
    ("said", "gold"),
    [("I think yes.", "yes"), ("Probably no.", "no"), ("I believe yes, because she saw it", "yes"),
     ("Perhaps, yes", "yes"), ("I would say no!", "no"), ("Likely no", "no")],
)  # fmt: skip
def test_a_yes_or_no_after_a_hedge_counts(said: str, gold: str) -> None:
    """Left open last session: 'I think yes.' was unparsable on yes/no items."""
    assert judge_yes_no(said, gold).correct
    assert judge_yes_no(said, "yes" if gold == "no" else "no").verdict == "wrong"


@pytest.mark.parametrize("said", ["I think no one saw it", "Maybe yes or no", "I think, well"])
def test_a_hedge_before_a_word_that_only_starts_a_sentence_says_neither(said: str) -> None:
    assert judge_yes_no(said, "no").verdict == "unparsable"
    assert judge_yes_no(said, "yes").verdict == "unparsable"


def test_a_short_reason_after_a_free_text_answer_is_no_alternative() -> None:
    """Left open last session: 'staff room, where she left it' was several_candidates (the
    reason read as a second answer), and 'Location: staff room' too."""
    places = story_places("Ann entered the staff room. Ann moved the key to the kitchen.")
    for answer in ("staff room, where she left it", "The staff room, because she saw it",
                   "Location: staff room", "Place: the staff room"):  # fmt: skip
        assert judge_text(answer, "staff room", places=places).correct, answer
    for answer in ("kitchen, where staff room", "where kitchen, staff room",
                   "staff room, where she left the kitchen", "Place: kitchen, staff room",
                   "staff room, garden"):  # fmt: skip
        assert not judge_text(answer, "staff room", places=places).correct, answer
    # with no story places to check the reason against, it still pays for one gold only
    for answer in ("happy, because sad", "sad, because happy"):
        paid = [g for g in ("happy", "sad") if judge_text(answer, g).correct]
        assert len(paid) == 1, (answer, paid)


@pytest.mark.parametrize(
    "answer",
    ["hospital staff lounge, as well as the common room",
     "hospital staff lounge or where the common room is"],
)  # fmt: skip
def test_a_reason_word_does_not_hide_another_place(answer: str) -> None:
    """Red team of the reason rule: "as well as" read as a reason, and "or where B is" as one.
    (A possessive, "where the hospital's conference room", still reads as no place: read as
    one, it refused "The hotel lobby, on the hotel's upper floor" on 424 ExploreToM items.)"""
    story = ("Ann entered the hospital staff lounge. Bob entered the hospital conference room. "
             "Carl walked into the common room.")  # fmt: skip
    verdict = judge_text(answer, "hospital staff lounge", places=story_places(story)).verdict
    assert verdict == "several_candidates"


@pytest.mark.parametrize(
    ("said", "gold"),
    [("Maybe yes, maybe not.", "yes"), ("I think yes. I think not.", "yes"),
     ("Probably yes\u2014not really.", "yes"), ("Yes, maybe not.", "yes"),
     ("Maybe no, maybe so.", "no"), ("No, maybe so.", "no"), ("I think no. I think so.", "no")],
)  # fmt: skip
def test_a_yes_or_no_taken_back_in_a_later_clause_says_both(said: str, gold: str) -> None:
    """Red team: 'Maybe yes, maybe not.' paid on 6,949 ExploreToM and OpenToM yes/no items (and
    'Yes, maybe not.' before the hedge rule): the other answer was looked for as a yes/no word
    only."""
    assert judge_yes_no(said, gold).verdict == "several_candidates"


@pytest.mark.parametrize(
    ("said", "gold"),
    [("Yes, I think so.", "yes"), ("No, I don't think so.", "no"), ("No, of course not", "no"),
     ("No, it is not.", "no"), ("Yes. She saw it, so she knows.", "yes"),
     ("No, so she does not know.", "no")],
)  # fmt: skip
def test_a_later_clause_that_agrees_or_says_neither_keeps_the_answer(said: str, gold: str) -> None:
    assert judge_yes_no(said, gold).correct


def test_a_possessive_after_the_gold_is_no_other_place() -> None:
    """Red team (round 2): reading "the hotel's upper floor" as another place refused 424
    committed ExploreToM answers."""
    places = story_places("Ann entered the hotel lobby. Bob entered the hotel kitchen.")
    for answer in ("The hotel lobby on the hotel's upper floor.",
                   "the hotel lobby, in the hotel's east wing"):  # fmt: skip
        assert judge_text(answer, "hotel lobby", places=places).correct, answer


@pytest.mark.parametrize(
    "said",
    ["Yes, or maybe not.", "Yes, but probably not.", "Yes, though possibly not.",
     "Yes or maybe not.", "Yes (or not).", "Yes, or not really.", "Yes, unless not.",
     "Maybe yes, or not.", "I think yes, but maybe not.", "Yes, then again maybe not."],
)  # fmt: skip
def test_a_yes_taken_back_by_a_connective_says_both(said: str) -> None:
    """Red team (round 2): a later clause opening with "or", "but", "though"... was not read,
    so these paid on all 4,013 gold-yes ExploreToM and OpenToM items (two of them only since
    the hedged yes); and "No, but probably." takes a no back."""
    assert judge_yes_no(said, "yes").verdict == "several_candidates"
    if "really" not in said:  # ("so really" says nothing)
        flipped = said.replace("Yes", "No").replace("yes", "no").replace("not", "so")
        assert judge_yes_no(flipped, "no").verdict == "several_candidates", flipped
    assert judge_yes_no("No, but probably.", "no").verdict == "several_candidates"


@pytest.mark.parametrize(
    ("said", "gold"),
    [("No. Of course, Kaitlyn had left before it happened.", "no"), ("No, definitely.", "no"),
     ("No. Certainly.", "no"), ("No, she does not. I think that is so.", "no"),
     ("No. Is that so? No.", "no"), ("No, and rightly so", "no"), ("Yes, is it not?", "yes"),
     ("Yes, though not fully", "yes"), ("Yes, although she was not there", "yes"),
     ("No, but she thinks so", "no")],
)  # fmt: skip
def test_a_later_clause_that_only_affirms_keeps_the_answer(said: str, gold: str) -> None:
    """Red team (round 2): "Of course" after a no read as a yes, and "that is so" or "is it
    not?" as answers, refusing committed answers on 1,844 gold-no items."""
    assert judge_yes_no(said, gold).correct


NOTE_STORY = ("Ann entered the staff room. Ann moved the key to the kitchen. Liam entered the "
              "garden.")  # fmt: skip


@pytest.mark.parametrize(
    "answer",
    ["staff room (last known location)", "The staff room (as far as she knows)",
     "staff room (in her belief)", "staff room (Ann's last known location)",
     "In Liam's view, the staff room.", "According to Liam, the staff room.",
     "From Ann's perspective, the staff room", "From Ann's point of view: the staff room",
     "staff room, according to Ann", "staff room (as far as Liam knows)",
     "Liam's guess: the staff room", "Liam thinks it is in the staff room"],
)  # fmt: skip
def test_a_note_on_a_free_text_answer_is_no_alternative(answer: str) -> None:
    """Left open last session: a parenthetical note that names no place ("staff room (last
    known location)") and a leading perspective ("In Liam's view, the staff room") were read
    as a second answer on every free-text item without candidates."""
    places = story_places(NOTE_STORY)
    assert judge_text(answer, "staff room", places=places).correct, answer
    assert not judge_text(answer, "kitchen", places=places).correct, answer


@pytest.mark.parametrize(
    "answer",
    ["staff room (or the kitchen)", "staff room (kitchen)",
     "In Liam's view, the staff room; in Emma's, the kitchen",
     "According to Liam, the staff room or the kitchen", "In the kitchen's view, the staff room",
     "According to the kitchen, the staff room", "staff room (according to kitchen)",
     "staff room (last known location: kitchen)", "staff room (last known location), kitchen",
     "staff room (kitchen's last known location)", "From the garden's perspective, staff room",
     "staff room, garden thinks", "Kitchen's view: staff room", "staff room (per kitchen)",
     "In Liam's and the kitchen's view, the staff room", "staff room (her place)",
     "staff room (Liam's room)", "staff room (according to nobody)"],
)  # fmt: skip
def test_a_note_that_names_another_place_is_still_an_alternative(answer: str) -> None:
    """The note rule's red team: a place in the holder's slot ("In the kitchen's view"), in the
    note ("her place"), or after it still names a second answer; nobody holds no view."""
    places = story_places(NOTE_STORY)
    assert judge_text(answer, "staff room", places=places).verdict == "several_candidates", answer


@pytest.mark.parametrize(
    "answer",
    ["staff room, or its original location", "staff room (or its last known location)",
     "staff room or where it was before", "staff room, then its previous location",
     "staff room and its original location"],
)  # fmt: skip
def test_a_note_joined_by_a_coordinator_offers_what_it_describes(answer: str) -> None:
    """Left open: "{gold}, or its original location" was paid as the gold alone on every
    free-text item without candidates, the note rule reading "its original location" as a
    note on the answer rather than a second answer it describes."""
    places = story_places(NOTE_STORY)
    assert judge_text(answer, "staff room", places=places).verdict == "several_candidates", answer


@pytest.mark.parametrize(
    "answer", ["staff room, or so she thinks", "staff room, its original location"]
)
def test_a_note_after_or_so_or_in_apposition_is_still_a_note(answer: str) -> None:
    assert judge_text(answer, "staff room", places=story_places(NOTE_STORY)).correct, answer


@pytest.mark.parametrize(
    "template",
    ["{0} ({1})", "In the {1}'s view, the {0}", "According to the {1}, the {0}",
     "{0} (according to the {1})", "{0} ({1}'s last known location)", "{0} (as far as {1} knows)",
     "{1}'s view: {0}", "{0}, {1} thinks", "{0} (per {1})", "In her view, {0}; in his, {1}",
     "{0} (last known location), {1}", "In the {0}'s view, the {1}; according to {1}, {0}"],
)  # fmt: skip
def test_no_note_template_pays_for_two_golds(template: str) -> None:
    """Whatever slot a place takes in a note, an answer pays for one gold at most: with story
    places, with candidates, and with nothing to check against but the holder's one-word slot
    (a two-word place is never a holder)."""
    story = "Ann entered the office. Ann moved the key to the red box. Bob entered the garden."
    for pair in (("office", "garden"), ("red box", "office"), ("garden", "red box")):
        for answer in (template.format(*pair), template.format(*pair[::-1])):
            paid = [g for g in pair if judge_text(answer, g, places=story_places(story)).correct]
            assert len(paid) <= 1, (answer, paid)
            paid = [g for g in pair if judge_text(answer, g, pair).correct]
            assert not paid, (answer, paid)
    for answer in ("According to the red box, the staff room", "staff room (red box's view)"):
        assert not judge_text(answer, "staff room").correct, answer  # no story places at all


def test_a_note_on_an_answer_the_question_narrows_is_no_alternative() -> None:
    """With a question's candidate to repeat, the list rule also read a note as an answer;
    the question's candidate may still not hold a view."""
    candidates = ("cardboard box", "leather satchel", "plastic storage bin")
    asked = ("plastic storage bin",)
    for answer in ("leather satchel (last known location)", "In Ann's view, the leather satchel"):
        assert judge_text(answer, "leather satchel", candidates, asked=asked).correct, answer
    for answer in ("leather satchel (bin's view)", "leather satchel (according to storage)"):
        assert not judge_text(answer, "leather satchel", candidates, asked=asked).correct, answer


def test_a_person_who_holds_a_view_is_no_second_person() -> None:
    """A perspective names a person: on a person question the holder is a rival unless the
    question asks about them, and a candidate person never holds a view."""
    story = "Anne entered the kitchen. Bob entered the kitchen. Carl saw Bob."
    names = rival_names(story, "Who saw Bob?", "Carl")
    assert not judge_text("In Anne's view, Carl", "Carl", names=names).correct
    assert not judge_text("According to Carl, Anne", "Carl", names=names).correct
    asked = rival_names(story, "Who does Anne think saw Bob?", "Carl")
    assert judge_text("In Anne's view, Carl", "Carl", names=asked).correct
    assert not judge_text("In Carl's view, Anne", "Carl", names=asked).correct
    people = ("Anne", "Carl")
    assert judge_choice("In Anne's view, Carl", "Carl", people).verdict == "several_candidates"
    assert not judge_text("In Anne's view, Carl", "Carl", people).correct


NESTED_PAIRS = (("box", "red box"), ("kitchen", "kitchen table"), ("drawer", "another drawer"))
"""Candidate pairs where one's words sit inside the other's (OpenToM's "another drawer")."""


@pytest.mark.parametrize(("short", "long"), NESTED_PAIRS)
@pytest.mark.parametrize(
    "template",
    ["{g}, not the {o}", "the {g}, not {o}", "{g} rather than {o}", "the {g} and not the {o}",
     "{g} (not {o})", "not the {o}, the {g}", "not the {o} but the {g}", "{g} instead of {o}",
     "It is in the {g}, not in the {o}."],
)  # fmt: skip
def test_a_candidate_inside_another_is_credited_when_the_other_is_excluded(
    short: str, long: str, template: str
) -> None:
    """Review: with candidates 'box' and 'red box', 'box, not the red box' read the 'box' of
    'red box' as a negated gold ('wrong'), and 'red box, not the box' read it as the box named
    beside the red box ('several_candidates'): the longer candidate's words are its own."""
    candidates = (long, short)
    for gold, other in ((short, long), (long, short)):
        answer = template.format(g=gold, o=other)
        assert judge_choice(answer, gold, candidates).correct, (gold, answer)
        assert judge_text(answer, gold, candidates).correct, (gold, answer)
        # and never under the other gold: the same words exclude it
        assert not judge_choice(answer, other, candidates).correct, (other, answer)
        assert not judge_text(answer, other, candidates).correct, (other, answer)


@pytest.mark.parametrize(("short", "long"), NESTED_PAIRS)
@pytest.mark.parametrize(
    "template",
    ["not the {g}", "{g} or {o}", "{g} and {o}", "{o} or {g}", "the {g}, maybe the {o}",
     "{g}, or the {o}", "{o}, not the {g}", "not {g}, {o}", "not the {g}, the {o}",
     "{o}", "the {g}, if not the {o}", "not the {g} or the {o}", "not the {o} or the {g}",
     "{g}, not the {o}, or the {o}", "neither {g} nor {o}", "{g} / {o}"],
)  # fmt: skip
def test_a_candidate_inside_another_still_refuses_hedges_and_denials(
    short: str, long: str, template: str
) -> None:
    candidates = (long, short)
    for gold, other in ((short, long), (long, short)):
        answer = template.format(g=gold, o=other)
        assert not judge_choice(answer, gold, candidates).correct, (gold, answer)
        assert not judge_text(answer, gold, candidates).correct, (gold, answer)


def test_a_candidate_inside_the_question_candidate_is_no_cover_for_it() -> None:
    """The list rule read the 'box' of the question's 'red box' as the gold, so 'box or red
    box' was one answer; the red box is offered beside the gold now, and still may be
    repeated or excluded."""
    candidates, asked = ("box", "red box"), ("red box",)
    for hedge in ("box or red box", "the box, or maybe the red box", "red box or box",
                  "box and red box", "the box (red box)"):  # fmt: skip
        assert judge_text(hedge, "box", candidates, asked=asked).verdict == "several_candidates"
    for fine in ("the box", "box, not the red box",
                 "the box, before Bob moved it to the red box"):  # fmt: skip
        assert judge_text(fine, "box", candidates, asked=asked).correct, fine


def test_if_not_offers_a_candidate_rather_than_excluding_it() -> None:
    """'the box, if not the chest' says the box or maybe the chest (as 'good, if not great'):
    no exclusion of the chest, with or without overlapping words."""
    for answer in ("the box, if not the chest", "box if not chest",
                   "the box, if it isn't in the chest"):  # fmt: skip
        assert judge_choice(answer, "box", ("box", "chest")).verdict == "several_candidates"
        assert not judge_text(answer, "box", ("box", "chest")).correct
    assert not judge_choice("the box, if not the red box", "box", ("box", "red box")).correct
    assert judge_choice("the box, not the chest", "box", ("box", "chest")).correct


def test_a_nested_candidate_is_credited_through_score_response() -> None:
    """The reviewer's env-level reproduction: a registered env with 'box' / 'red box'."""
    story = "Ann put the ball in the red box. Ann left. Bob moved the ball to the box."
    item = ToMItem(id="x", story=story, question="Where is the ball?", answer="box",
                   candidates=("box", "red box"))  # fmt: skip
    assert score_response(fmt("box, not the red box"), item).correct
    assert not score_response(fmt("box or the red box"), item).correct
    red = item.model_copy(update={"answer": "red box"})
    assert score_response(fmt("red box, not the box"), red).correct
    assert not score_response(fmt("box, not the red box"), red).correct


def test_a_long_question_candidate_offered_with_a_hedge_is_an_alternative() -> None:
    """ExploreToM item r11804: a part that offers the question's candidate was 'short' only
    up to two words beyond the gold, so 'metal toolbox, maybe the black plastic storage bin'
    paid; it is short beside the candidate it names now, and the story still may be told."""
    candidates = ("metal toolbox", "black plastic storage bin")
    asked = ("black plastic storage bin",)
    for hedge in ("metal toolbox, maybe the black plastic storage bin",
                  "metal toolbox (or perhaps the black plastic storage bin)",
                  "metal toolbox, possibly the black plastic storage bin"):  # fmt: skip
        assert not judge_text(hedge, "metal toolbox", candidates, asked=asked).correct, hedge
    for fine in ("metal toolbox", "metal toolbox, not the black plastic storage bin",
                 "the metal toolbox, before Clayton moved it to the black plastic storage bin",
                 "The metal toolbox. Clayton moved it to the black plastic storage bin later."
                 ):  # fmt: skip
        assert judge_text(fine, "metal toolbox", candidates, asked=asked).correct, fine


HITOM_CONTAINERS = ("blue_basket", "green_basket", "green_cabinet", "red_cabinet", "blue_box")
FULLNESS = ("more full", "less full", "equally full")
KNOWLEDGE = ("knows about it", "does not know about it")
KNOWLEDGE_ALIASES = {
    "knows about it": ["does know", "knows"],
    "does not know about it": ["does not know", "knows nothing", "nobody knows", "no one knows"],
}


def judge_knowledge(answer: str, gold: str) -> str:
    (other,) = set(KNOWLEDGE) - {gold}
    return judge_choice(
        answer, gold, KNOWLEDGE, KNOWLEDGE_ALIASES[gold], {other: KNOWLEDGE_ALIASES[other]}
    ).verdict


@pytest.mark.parametrize(
    "answer",
    ["blue or green basket", "blue/green basket", "blue-green basket", "blue green basket",
     "blue, green basket", "blue and green basket", "the blue or the green basket",
     "green basket or cabinet", "green basket/cabinet", "green basket, cabinet",
     "green basket and cabinet", "green basket cabinet", "green basket or blue",
     "the green basket or the blue one"],
)  # fmt: skip
def test_a_hedge_writing_a_shared_word_once_names_both_candidates(answer: str) -> None:
    """Red team (round 3): a hedge that wrote the colour or the container the two candidates
    share once ("blue or green basket", "green basket or cabinet") was paid as the gold alone,
    on 86 to 339 (item, candidate) pairs per pattern of the Hi-ToM envs."""
    assert judge_choice(answer, "green_basket", HITOM_CONTAINERS).verdict == "several_candidates"
    written_out = judge_choice("blue basket or green basket", "green_basket", HITOM_CONTAINERS)
    assert written_out.verdict == "several_candidates"  # refused already


@pytest.mark.parametrize(
    "answer",
    ["green basket", "the green basket, which is blue-lidded", "not blue, the green basket",
     "the green basket, not the blue one", "green basket, not cabinet",
     "The green basket and the cabinet is red", "blue? no, the green basket",
     "It is in the green basket.", "green basket, I think"],
)  # fmt: skip
def test_a_shared_word_that_names_no_other_candidate_keeps_the_answer(answer: str) -> None:
    """The elided-candidate reading must give back another candidate, unexcluded: a colour
    describing the gold or a container excluded by a negation is no hedge."""
    assert judge_choice(answer, "green_basket", HITOM_CONTAINERS).correct, answer


@pytest.mark.parametrize("answer", ["more or less full", "more/less full", "more and less full",
                                    "less full or more", "more or less equally full"])  # fmt: skip
def test_more_or_less_names_both_fullness_labels(answer: str) -> None:
    """Red team (round 3): OpenToM multihop, gold "less full": "more or less full" (an idiom,
    but as an answer to a more/less/equally-full choice it names both) was paid."""
    gold = "equally full" if "equally" in answer else "less full"
    assert judge_choice(answer, gold, FULLNESS).verdict == "several_candidates"
    assert judge_choice("It is less full, not more.", "less full", FULLNESS).correct


@pytest.mark.parametrize(
    "answer",
    ["does know or does not", "knows about it (or not)", "knows about it, or maybe not",
     "probably knows about it, probably does not", "no idea whether she knows about it",
     "I wonder whether she knows about it", "does know or does not know"],
)  # fmt: skip
def test_a_knowledge_answer_that_also_offers_the_other_side_names_both(answer: str) -> None:
    """Red team (round 3): ExploreToM knowledge items, gold "knows about it": "does know or
    does not", "knows about it (or not)", "probably knows about it, probably does not" and
    "no idea whether she knows about it" were paid, while "does know or does not know" was
    refused."""
    assert judge_knowledge(answer, "knows about it") == "several_candidates"
    assert judge_knowledge("does or does not know about it", "does not know about it") == (
        "several_candidates"
    )


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("She knows about it.", "knows about it"), ("She does know.", "knows about it"),
     ("She knows about it and nothing else", "knows about it"),
     ("she knows nothing about it", "does not know about it"),
     ("She doesn't know about it.", "does not know about it"),
     ("She does not know about it, probably not.", "does not know about it"),
     ("She does not know, does she?", "does not know about it")],
)  # fmt: skip
def test_a_knowledge_answer_said_again_keeps_the_answer(answer: str, gold: str) -> None:
    """A denial repeated after a gold that is itself the denial takes nothing back."""
    assert judge_knowledge(answer, gold) == "correct"


@pytest.mark.parametrize("said", ["yes no yes", "Yes/not", "Yes, not.", "Yes - not", "yes nope"])
def test_a_yes_beside_a_bare_no_or_not_says_both(said: str) -> None:
    """Red team (round 3): "yes no yes", "Yes/not" and "Yes, not." were paid for gold yes
    while "yes or no" was refused."""
    assert judge_yes_no(said, "yes").verdict == "several_candidates"
    assert judge_yes_no("Yes, no one saw it.", "yes").correct
    assert judge_yes_no("No, not.", "no").correct


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("non-negative", "negative"), ("non negative", "negative"), ("far from positive", "positive"),
     ("hardly positive", "positive"), ("un-positive", "positive"),
     ("scarcely positive", "positive")],
)  # fmt: skip
def test_a_prefix_or_adverb_that_denies_the_gold_is_wrong(answer: str, gold: str) -> None:
    """Red team (round 3): OpenToM attitude answers "non-negative", "far from positive",
    "hardly positive" and "un-positive" were paid for the label they deny."""
    attitudes = ("positive", "negative", "neutral")
    assert judge_choice(answer, gold, attitudes).verdict == "wrong"
    assert judge_choice(f"{gold}, far from neutral", gold, attitudes).correct  # excludes it


@pytest.mark.parametrize(
    "answer",
    ["Landon doesn't think that Hailey knows about it.",
     "Landon is not aware that Hailey knows about it.",
     "Landon does not believe that Hailey knows about it.",
     "I'm not sure that Hailey knows about it."],
)  # fmt: skip
def test_a_denied_belief_denies_what_is_believed(answer: str) -> None:
    """Red team (round C): the negation of the thinker's belief sat 4 words before "knows
    about it", beyond the reach of 3, so these paid the label "knows" on every ExploreToM
    knowledge item whose gold it is (230 of 230) while saying she does not know."""
    assert judge_knowledge(answer, "knows about it") == "wrong"


def test_a_belief_bridge_still_credits_what_is_believed() -> None:
    assert judge_knowledge("Landon thinks that Hailey knows about it.", "knows about it") == (
        "correct"
    )
    assert judge_knowledge("Landon thinks Hailey doesn't know about it.",
                           "does not know about it") == "correct"  # fmt: skip
    assert judge_text("I don't think it's the box.", "box").verdict == "wrong"


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("Yes (or maybe she doesn't)", "yes"), ("Yes, but she probably doesn't.", "yes"),
     ("Yes, though she might not.", "yes"), ("Yes, it is not.", "yes"), ("No, it is.", "no"),
     ("No. She did.", "no"), ("No, I think she does", "no")],
)  # fmt: skip
def test_a_later_short_answer_with_a_subject_says_the_other_side(answer: str, gold: str) -> None:
    """Red team (round C): a take-back with a subject ("Yes, but she probably doesn't") paid on
    every ExploreToM yes/no item whose gold it leads with (81 of 81), while "Yes, but probably
    not" named both."""
    assert judge_yes_no(answer, gold).verdict == "several_candidates"


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("No, she does not.", "no"), ("Yes, she does.", "yes"), ("Yes, is it not?", "yes"),
     ("No, I do not.", "no"), ("Yes, and she will.", "yes")],
)  # fmt: skip
def test_a_later_short_answer_that_agrees_keeps_the_answer(answer: str, gold: str) -> None:
    assert judge_yes_no(answer, gold).correct


def test_a_knowledge_answer_taken_back_with_a_subject_names_both() -> None:
    answer = "Elijah knows about it, but maybe he doesn't."
    assert judge_knowledge(answer, "knows about it") == "several_candidates"


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("\\boxed{Yes}", "yes"), ("$\\boxed{\\text{no}}$", "no"), ("My answer: yes", "yes"),
     ("Short answer: no.", "no"), ("Final answer: \\boxed{no}", "no"), ("Definitely yes", "yes"),
     ("I believe so.", "yes"), ("I believe not.", "no"), ("I guess not", "no")],
)  # fmt: skip
def test_a_yes_no_answer_in_a_common_model_format_is_read(answer: str, gold: str) -> None:
    """Red team (round C): "\\boxed{Yes}" (R1 and Qwen style), "My answer: yes" or "I believe
    so" was unparsable on every OpenToM and ExploreToM yes/no item (0 of 53, 0 of 81), though
    "\\boxed{box}" paid on choice items."""
    assert judge_yes_no(answer, gold).correct
    assert not judge_yes_no(answer, "no" if gold == "yes" else "yes").correct


OPTION_TEXTS = {"a": "positive", "b": "negative", "c": "neutral"}


def option_item(gold: str) -> ToMItem:
    """A FANToM-like item whose question labels its options (a), (b), (c)."""
    candidates = tuple(OPTION_TEXTS.values())
    metadata = {"option_labels": OPTION_TEXTS}
    return ToMItem(id="f", story="s", question="q", answer=gold, candidates=candidates,
                   metadata=metadata)  # fmt: skip


@pytest.mark.parametrize(
    "answer",
    ["(a/b)", "(a,b)", "(a, b)", "(B or C)", "(b/c)", "(b|c)", "(b;c)", "Answer: (b,c)",
     "( a / c )", "(a and c)"],
)  # fmt: skip
def test_option_letters_paired_in_parentheses_name_every_letter(answer: str) -> None:
    """Red team C: a letter right after "(" matched no label form, so "(a/b)" stayed a bare
    letter and paid for option (b) alone; on FANToM every item with gold (b) paid for it."""
    for gold in OPTION_TEXTS.values():
        item = option_item(gold)
        assert score_response(fmt(answer), item).verdict == "several_candidates", (answer, gold)


def test_a_parenthesis_opening_with_an_article_or_one_letter_is_unchanged() -> None:
    """The pair form needs a second label after the separator: "(a dog)" is an article,
    "(b)" one option, "(c, probably)" one option with a hedge."""

    def verdict(answer: str, gold: str) -> str:
        return score_response(fmt(answer), option_item(gold)).verdict

    assert verdict("(b)", "negative") == "correct"
    assert verdict("(c, probably)", "neutral") == "correct"
    assert verdict("neutral (a bit, at least)", "neutral") == "correct"


@pytest.mark.parametrize(
    "answer",
    ["the green basket, or maybe the blue one", "the green basket (maybe blue)",
     "green basket, if not blue", "green basket; blue also possible",
     "the green basket + the blue one", "the green basket/blue one",
     "green basket, though it could also be the blue one", "green basket, or perhaps blue",
     "the green basket, or maybe the cabinet", "green basket (possibly cabinet)",
     "green basket, if not cabinet", "the green basket (either the blue or the green one)"],
)  # fmt: skip
def test_a_hedge_word_between_the_gold_and_a_shared_word_still_names_both(answer: str) -> None:
    """Red team C: with a hedge word between the gold and the other candidate's own word ("or
    maybe the blue one", "(maybe blue)", "if not blue") the elided-candidate reading missed it,
    and these paid on every Hi-ToM item where they applied (239/239, 300/300)."""
    assert judge_choice(answer, "green_basket", HITOM_CONTAINERS).verdict == "several_candidates"


@pytest.mark.parametrize(
    "answer",
    ["the green basket, not the blue one", "green basket, maybe", "green basket; blue lid",
     "the green basket, which is blue-lidded", "green basket, probably", "green basket (not blue)",
     "the green basket, I think", "green basket, perhaps blue-lidded",
     "It is in the green basket. Maybe she thinks of the blue one"],
)  # fmt: skip
def test_a_hedge_word_after_the_gold_alone_offers_nothing_else(answer: str) -> None:
    """The hedged reading needs another candidate's word right after the lead, ending its
    clause: a colour describing the gold, a lone hedge or an exclusion is no second answer."""
    assert judge_choice(answer, "green_basket", HITOM_CONTAINERS).correct, answer


@pytest.mark.parametrize("answer", ["less full (maybe more)", "less full, or perhaps more"])
def test_a_hedged_fullness_label_names_both(answer: str) -> None:
    """Red team C, OpenToM multihop: "less full (maybe more)" paid for "less full"."""
    assert judge_choice(answer, "less full", FULLNESS).verdict == "several_candidates"


@pytest.mark.parametrize(
    "answer",
    ["the box is false", "box: false", "The box is false, she thinks", "the box is not it",
     "~~box~~", "~~box~~ no idea"],
)  # fmt: skip
def test_a_gold_refuted_after_it_or_struck_through_is_not_paid(answer: str) -> None:
    """Red team C: "the box is false", "the box is not it" and the markdown strikethrough
    "~~box~~" paid on every item of ToMi, Hi-ToM and OpenToM (300/300, 400/400)."""
    item = ToMItem(
        id="c", story="s", question="q", answer="box", candidates=("box", "basket", "chest")
    )
    assert not score_response(fmt(answer), item).correct, answer


@pytest.mark.parametrize(
    "answer",
    ["~~basket~~ box", "~~the basket~~ the box", "box (false belief)",
     "box, because of her false belief", "she has a false belief: box", "It is the box."],
)  # fmt: skip
def test_a_struck_through_rival_or_a_false_belief_keeps_the_gold(answer: str) -> None:
    """What a response strikes through it does not answer; "false" refutes only as the last
    word of the gold's clause, not as a description ("false belief")."""
    item = ToMItem(
        id="c", story="s", question="q", answer="box", candidates=("box", "basket", "chest")
    )
    assert score_response(fmt(answer), item).correct, answer


def test_tildes_that_markdown_does_not_strike_through_strike_nothing() -> None:
    """Reward red team: "box ~~ or basket ~~" was read as "box", but Markdown strikes nothing
    with a space inside the tildes, so the reader sees the hedge."""
    item = ToMItem(id="c", story="s", question="q", answer="box", candidates=("box", "basket"))
    assert not score_response(fmt("box ~~ or basket ~~"), item).correct
    assert score_response(fmt("~~basket~~ box"), item).correct
    yes_no = ToMItem(id="y", story="s", question="q", answer="yes", answer_type="yes_no")
    assert not score_response(fmt("Yes ~~ or no ~~"), yes_no).correct


def test_a_struck_through_yes_no_word_is_not_the_leading_word() -> None:
    yes_no = ToMItem(id="y", story="s", question="q", answer="yes", answer_type="yes_no")
    assert score_response(fmt("~~No~~ Yes"), yes_no).correct
    assert not score_response(fmt("~~Yes~~ No"), yes_no).correct


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("green basket (blue box is wrong)", "correct"),
     ("the green basket; the blue basket is wrong", "correct"),
     ("the blue box is not the answer; green basket", "correct"),
     ("blue box (wrong) green basket", "correct"),
     ("the green basket is wrong, the blue box", "wrong"),
     ("the green basket is not it, the blue box is", "wrong"),
     ("green basket or blue box", "several_candidates"),
     ("the green basket (the blue one is wrong)", "correct"),
     ("green basket; the red one is wrong", "correct"),
     ("the green basket is wrong, the blue one", "wrong"),
     ("the green basket or the blue one", "several_candidates")],
)  # fmt: skip
def test_a_candidate_refuted_after_it_is_excluded_and_its_refutation_is_its_own(
    answer: str, verdict: str
) -> None:
    """Red team C: "the green basket (the box is wrong)" was judged to deny the gold, the
    "wrong" after the box read as the gold's; a rival refuted after it ("blue box is wrong")
    still counted as a second answer. Last session's leftover: named by its own word and "one"
    ("the blue one is wrong"), the rival's refutation was still read as the gold's."""
    item = ToMItem(
        id="c", story="s", question="q", answer="green_basket", candidates=HITOM_CONTAINERS
    )
    assert score_response(fmt(answer), item).verdict == verdict


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("green basket, it cannot be the blue box", "correct"),
     ("green basket; it can't be in the blue box", "correct"),
     ("it won't be the blue box, so the green basket", "correct"),
     ("it cannot be the green basket, so the blue box", "wrong"),
     ("it can be the green basket or the blue box", "several_candidates"),
     ("it could not be sure: the green basket or the blue box", "several_candidates")],
)  # fmt: skip
def test_a_rival_after_cannot_be_is_excluded(answer: str, verdict: str) -> None:
    """Last session's leftover: "green basket, it cannot be the blue box" was refused as naming
    two candidates, while "cannot be the green basket" already denied the gold: "be" between a
    negation and a candidate now excludes it on both sides."""
    assert score_response(fmt(answer), basket_item()).verdict == verdict


@pytest.mark.parametrize(
    "answer", ["green basket (the blue one is wrong)", "green basket. Blue one: wrong"]
)
def test_a_rival_named_by_its_colour_and_one_owns_its_refutation(answer: str) -> None:
    """Candidates sharing no word with the gold: "the blue one" is the blue box (its words but
    the last), so "wrong" after it is not the gold's."""
    assert judge_choice(answer, "green_basket", ("green_basket", "blue_box", "red_drawer")).correct


def basket_item() -> ToMItem:
    """A Hi-ToM-like choice item: gold green_basket, rivals sharing no word with it."""
    return ToMItem(
        id="c",
        story="s",
        question="q",
        answer="green_basket",
        candidates=("green_basket", "blue_box", "red_drawer"),
    )


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("green basket ✅ blue box ❌", "correct"),
     ("blue box ❌, green basket ✅", "correct"),
     ("- ❌ blue box\n- ✅ green basket", "correct"),
     ("1. blue box ✗\n2. green basket ✓", "correct"),
     ("🚫 blue box, green basket", "correct"),
     ("green basket ✔️", "correct"),
     ("green basket ❌", "wrong"),
     ("❌ green basket", "wrong"),
     ("✅ blue box\n❌ green basket", "wrong"),
     ("green basket ✅ blue box ✅", "several_candidates"),
     ("Is it the blue box? ❌ It's the green basket ✅", "correct"),
     ("Is it the green basket? ❌", "wrong"),
     ("❌ blue box? ❌ green basket", "several_candidates")],
)  # fmt: skip
def test_check_and_cross_marks_say_which_candidate_is_meant(answer: str, verdict: str) -> None:
    """A checklist answer: the bare words of "green basket ✅ blue box ❌" named two candidates
    (several_candidates), and "green basket ❌" alone paid for the green basket. A cross marks
    what follows it on a line that opens with a mark, else what comes before it, a question it
    answers included ("Is it the blue box? ❌" was read as the next clause's)."""
    assert score_response(fmt(answer), basket_item()).verdict == verdict


def test_marks_in_a_free_text_answer_are_read_too() -> None:
    item = ToMItem(
        id="t",
        story="Ann walked to the kitchen.",
        question="Where is Ann?",
        answer="kitchen",
        answer_type="text",
        candidates=("kitchen", "garden"),
    )
    assert score_response(fmt("garden ❌ kitchen ✅"), item).correct
    assert not score_response(fmt("kitchen ❌"), item).correct


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("Is it the blue box? No. The green basket.", "correct"),
     ("the blue box? nope, green basket", "correct"),
     ("Blue box?No\nGreen basket", "correct"),
     ("Is it the green basket? No.", "wrong"),
     ("the blue box? No doubt the green basket", "several_candidates"),
     ("blue box? No one would look there. Green basket", "several_candidates"),
     ("blue box? Yes. Green basket", "several_candidates")],
)  # fmt: skip
def test_a_question_answered_no_denies_what_it_asks(answer: str, verdict: str) -> None:
    """Last session's leftover: "Is it the blue box? No. The green basket." named two candidates
    (several_candidates), and "Is it the green basket? No." paid for the green basket."""
    assert score_response(fmt(answer), basket_item()).verdict == verdict


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("the green basket is not the one", "wrong"),
     ("green basket - not the one.", "wrong"),
     ("The green basket isn't the one, I think", "wrong"),
     ("the blue box is not the one; the green basket", "correct"),
     ("the green basket, not the one it is in now", "correct"),
     ("the green basket is the one", "correct")],
)  # fmt: skip
def test_not_the_one_at_the_end_of_its_clause_denies_the_mention(answer: str, verdict: str) -> None:
    """Last session's leftover: "the green basket is not the one" paid for the green basket.
    Only at the end of its clause: "not the one it is in now" may say where the object is."""
    assert score_response(fmt(answer), basket_item()).verdict == verdict


@pytest.mark.parametrize(
    "answer",
    ["Answer: b (Kai thinks it was Peru.)", "The answer is b (Kai thinks it was Peru.)",
     "b (Kai thinks it was Peru.)"],
)  # fmt: skip
def test_an_option_letter_before_a_bracket_is_read_beside_the_text(answer: str) -> None:
    """Last session's leftover: "Answer: b (<option a's text>)" paid for option a, the letter
    before "(" read as no label; letter and text now name both options."""
    texts = {"a": "Kai thinks it was Peru.", "b": "Kai thinks it was Chile."}
    item = ToMItem(
        id="f",
        story="s",
        question="q",
        answer=texts["a"],
        candidates=tuple(texts.values()),
        metadata={"option_labels": texts},
    )
    assert score_response(fmt(answer), item).verdict == "several_candidates"
    agreeing = answer.replace("b (", "a (")
    assert score_response(fmt(agreeing), item).correct, agreeing


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("the green basket or its blue twin", "several_candidates"),
     ("green basket, possibly its blue sibling", "several_candidates"),
     ("green basket / blue", "several_candidates"),
     ("green basket; blue", "several_candidates"),
     ("green basket, perhaps blue-lidded", "correct"),
     ("the green basket and blue lid", "correct"),
     ("the green basket, or its blue twin is wrong", "correct")],
)  # fmt: skip
def test_a_rival_offered_by_its_own_word_beside_a_noun_or_a_mark_is_a_second_answer(
    answer: str, verdict: str
) -> None:
    """Last sessions' leftover: "the green basket or its blue twin" and "green basket / blue"
    paid for the green basket while offering the blue one. After "or" (or "maybe", "possibly"),
    the rival's own word may stand before one more word that ends the clause; set apart by a
    mark, it may end the clause alone. A compound ("blue-lidded") or "and" describes."""
    item = ToMItem(
        id="c",
        story="s",
        question="q",
        answer="green_basket",
        candidates=("green_basket", "blue_basket", "red_box", "blue_box"),
    )
    assert score_response(fmt(answer), item).verdict == verdict


@pytest.mark.parametrize(
    ("answer", "correct"),
    [("kitchen (false belief)", True), ("kitchen (her false belief)", True),
     ("kitchen (true belief)", True), ("kitchen, false", False), ("kitchen (false)", False),
     ("kitchen (false belief), garden", False)],
)  # fmt: skip
def test_a_free_text_answer_may_note_a_false_belief(answer: str, correct: bool) -> None:
    """Last sessions' leftover: "kitchen (false belief)" on a free-text item was
    several_candidates, the note read as a second answer. "false"/"true" before "belief" note
    the answer; alone they may deny it."""
    item = ToMItem(
        id="t",
        story="Ann walked to the kitchen. Ann moved the ball to the garden.",
        question="Where will Ann look for the ball?",
        answer="kitchen",
        answer_type="text",
    )
    assert score_response(fmt(answer), item).correct is correct


def test_a_no_that_declines_to_answer_is_no_answer() -> None:
    """Custom-data audit: "No idea", "no clue" and "No way to tell" were read as the answer
    "no" (credited on every no item, like a model always saying no), and "Yes?" as a yes.
    They are unparsable now; "True"/"False" answer yes/no (they were unparsable)."""
    for declining in ("no idea", "No idea.", "no clue", "No way to tell", "Answer: no idea"):
        verdict = judge_yes_no(declining, "no")
        assert (verdict.correct, verdict.verdict) == (False, "unparsable"), declining
    assert judge_yes_no("Yes?", "yes").verdict == "unparsable"
    for answer in ("No.", "No way!", "No, she does not.", "No one told her, so no."):
        assert judge_yes_no(answer, "no").correct, answer
    assert judge_yes_no("True", "yes").correct and judge_yes_no("False.", "no").correct
    assert judge_yes_no("True, she does not.", "yes").verdict == "several_candidates"
