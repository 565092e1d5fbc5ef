"""Reward presets and specs."""

from __future__ import annotations

import pytest

import tomgym
from tomgym.items import ToMItem
from tomgym.rewards import REWARD_PRESETS, RewardSpec, resolve_reward, score_response

ITEM = ToMItem(
    id="r", story="s", question="q", answer="red_box", candidates=("red_box", "blue_box")
)
RIGHT = "<think>x</think><answer>red_box</answer>"
WRONG = "<think>x</think><answer>blue_box</answer>"
UNFORMATTED_RIGHT = "<answer>red_box</answer>"


@pytest.mark.parametrize(
    ("preset", "right", "wrong", "unformatted_right"),
    [("rlvr", 1.1, 0.1, 1.0), ("tomrl", 3.0, -1.0, 1.0), ("accuracy", 1.0, 0.0, 1.0)],
)
def test_presets(preset: str, right: float, wrong: float, unformatted_right: float) -> None:
    assert score_response(RIGHT, ITEM, preset).reward == pytest.approx(right)
    assert score_response(WRONG, ITEM, preset).reward == pytest.approx(wrong)
    assert score_response(UNFORMATTED_RIGHT, ITEM, preset).reward == pytest.approx(
        unformatted_right
    )
    assert REWARD_PRESETS[preset].max_reward == pytest.approx(right)


def test_parts_add_up() -> None:
    s = score_response(RIGHT, ITEM, "tomrl")
    assert s.parts == {"format": 1.0, "answer": 2.0}
    assert s.reward == sum(s.parts.values())


def test_custom_spec_and_bad_input() -> None:
    spec = resolve_reward({"format_ok": 0.5, "correct": 2.0})
    assert isinstance(spec, RewardSpec) and spec.max_reward == 2.5
    with pytest.raises(ValueError, match="unknown reward preset 'nope'"):
        resolve_reward("nope")
    with pytest.raises(ValueError):
        resolve_reward({"format_ok": 0.5, "bogus": 1})
    with pytest.raises(TypeError):
        resolve_reward(3)  # type: ignore[arg-type]


def test_lenient_preset_judges_untagged_responses_whole() -> None:
    assert score_response("The ball is in the red_box.", ITEM, "lenient").reward == 1.0
    assert score_response("red_box or blue_box", ITEM, "lenient").correct is False
    assert score_response("The ball is in the red_box.", ITEM, "rlvr").correct is False
    assert score_response(RIGHT, ITEM, "lenient").reward == pytest.approx(1.1)
    # an answer block, when present, is still the only place the answer is read
    assert not score_response("red_box <answer>blue_box</answer>", ITEM, "lenient").correct


def test_lenient_never_reads_the_answer_from_the_think_part() -> None:
    """Untagged judging skips the reasoning, as tagged judging does: the gold only in the
    think part earns nothing under every preset."""
    think_only = "<think>It is in the red_box.</think>"
    assert score_response(think_only, ITEM, "lenient").verdict == "no_answer"
    assert not score_response("<think>red_box", ITEM, "lenient").correct  # never closed
    assert score_response("<think>hmm</think> red_box", ITEM, "lenient").correct
    with_prefill = score_response("red_box</think> blue_box", ITEM, "lenient", "<think>\n")
    assert with_prefill.verdict == "wrong"  # red_box was reasoning after the prefill


def test_a_trace_weight_where_no_trace_is_checked_is_said() -> None:
    """reward={'trace_weight': 0.5} on a family the simulator cannot check was taken and
    silently paid nothing."""
    import warnings

    items = [ToMItem(id="t1", story="S.", question="Q?", answer="yes", answer_type="yes_no")]
    tomgym.register_tom_env("NoTrace-v0", items=items, family="custom")
    try:
        with pytest.warns(UserWarning, match="trace_weight is paid on generated and released"):
            tomgym.make("NoTrace-v0", reward={"trace_weight": 0.5})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tomgym.make("ToM-HiToM-O1-v0", reward={"trace_weight": 0.5})
    finally:
        tomgym.registry.unregister_tom_env("NoTrace-v0")
    # registration red team: prose items registered as family "hitom" got 0 in silence
    story = "Ann hid the ball in a box while Bob slept."
    prose = ToMItem(id="p1", story=story, question="Where is the ball?", answer="box",
                    candidates=("box", "bag"))  # fmt: skip
    tomgym.register_tom_env("ProseTrace-v0", items=[prose], family="hitom")
    try:
        with pytest.warns(UserWarning, match="item 'p1' is not .* a trace part of 0"):
            tomgym.make("ProseTrace-v0", reward={"trace_weight": 0.5})
    finally:
        tomgym.registry.unregister_tom_env("ProseTrace-v0")


def test_a_free_text_answer_naming_two_of_the_storys_places_is_not_credited() -> None:
    """Places joined with no list mark ('box basket', 'box -> basket') were credited for
    either gold: space-joining every room of an ExploreToM story scored 100% (red team)."""
    story = "Anne put the ball in the box. Anne left the room. Bob moved the ball to the basket."
    item = ToMItem(id="f", story=story, question="Where will Anne look for the ball?",
                   answer="box", answer_type="text")  # fmt: skip
    for hedge in ("box basket", "box -> basket", "It went from the box to the basket"):
        assert score_response(f"<answer>{hedge}</answer>", item).verdict == "several_candidates"
    for fine in ("box", "In the box.", "the box, not the basket", "box, I think"):
        assert score_response(f"<answer>{fine}</answer>", item).correct, fine


def test_hedges_and_denials_of_one_label_earn_only_the_format_reward() -> None:
    """Red team (round 3): through env.step, "blue or green basket" (Hi-ToM), "does know or
    does not" (ExploreToM, with the other side's aliases in the item's metadata), "yes no yes"
    and "non-negative" (OpenToM) earned the full 1.1 for the gold they hedge or deny."""
    hitom = ToMItem(
        id="h", story="s", question="q", answer="green_basket",
        candidates=("blue_basket", "green_basket", "green_cabinet"),
    )  # fmt: skip
    knowledge = ToMItem(
        id="k", story="s", question="q", answer="knows about it",
        candidates=("knows about it", "does not know about it"), aliases=("does know", "knows"),
        metadata={"candidate_aliases": {"does not know about it": ["does not know"]}},
    )  # fmt: skip
    yes = ToMItem(id="y", story="s", question="q", answer="yes", answer_type="yes_no")
    attitude = ToMItem(
        id="a", story="s", question="q", answer="negative",
        candidates=("positive", "negative", "neutral"),
    )  # fmt: skip
    for item, hedge, verdict in [
        (hitom, "blue or green basket", "several_candidates"),
        (hitom, "green basket/cabinet", "several_candidates"),
        (knowledge, "does know or does not", "several_candidates"),
        (yes, "yes no yes", "several_candidates"),
        (attitude, "non-negative", "wrong"),
    ]:
        score = score_response(f"<think>x</think><answer>{hedge}</answer>", item)
        assert (score.reward, score.verdict) == (pytest.approx(0.1), verdict), hedge
        gold = score_response(f"<think>x</think><answer>{item.gold_text}</answer>", item)
        assert gold.reward == pytest.approx(1.1)


HEAD_STORY = "Ann put the key in the wooden desk drawer. Ann left. Bob moved it to the briefcase."


def _head_item(answer_type: str) -> ToMItem:
    return ToMItem(id="h", story=HEAD_STORY, question="Where will Ann look for the key?",
                   answer="wooden desk drawer", answer_type=answer_type,  # type: ignore[arg-type]
                   candidates=("wooden desk drawer", "leather briefcase"))  # fmt: skip


@pytest.mark.parametrize("answer_type", ["choice", "text"])
@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("the drawer", "correct"), ("the desk drawer", "correct"),
     ("the wooden desk drawer, not the leather briefcase", "correct"),
     ("not the briefcase but the drawer", "correct"),
     ("either the wooden desk drawer or the briefcase", "several_candidates"),
     ("the wooden desk drawer or maybe the briefcase", "several_candidates"),
     ("the briefcase", "wrong")],
)  # fmt: skip
def test_a_candidate_is_named_by_its_last_word_where_no_other_holds_it(
    answer_type: str, answer: str, verdict: str
) -> None:
    """Red team (round C): "either the wooden desk drawer or the briefcase" paid on 60 of 74
    ExploreToM items (the briefcase, "leather briefcase" in full, went unseen), and "the
    drawer" for the wooden desk drawer on none of 72."""
    from tomgym.rewards import judge_answer

    assert judge_answer(answer, _head_item(answer_type))[1] == verdict


def test_a_shared_or_generic_last_word_names_no_candidate() -> None:
    from tomgym.answers import head_aliases

    assert head_aliases(("green basket", "blue basket", "red box")) == {"red box": ("box",)}
    assert head_aliases(("staff room", "kitchen")) == {}  # "in the same room"
    assert head_aliases(("knows about it", "does not know about it")) == {}
    assert head_aliases(("Kai believes the trip was to Peru.", "Kai believes it was Chile.")) == {}


def test_a_last_word_the_story_uses_of_something_else_names_no_candidate() -> None:
    """Custom-data audit: a candidate's last word named it even where the story has another
    thing or person by that word: "the box" (where the ball was first) paid as "the red box",
    "Ann" as "Mary Ann", "John Smith" as "Jane Smith"."""
    from tomgym.answers import story_head_aliases
    from tomgym.rewards import judge_answer

    boxes = ToMItem(id="w1", story="Ann put the ball in the box. Bob moved it to the red box.",
                    question="Where is the ball now?", answer="red box",
                    candidates=("red box", "basket"))  # fmt: skip
    assert not judge_answer("the box", boxes)[0] and judge_answer("the red box", boxes)[0]
    people = ToMItem(id="w3", story="Mary Ann, Ann and Bob were in the kitchen. Mary Ann hid "
                     "the key while Ann and Bob were outside.", question="Who knows where the key"
                     " is?", answer="Mary Ann", candidates=("Mary Ann", "Bob", "Carl"))  # fmt: skip
    assert not judge_answer("Ann", people)[0] and judge_answer("Mary Ann", people)[0]
    smiths = ToMItem(id="w2", story="John Smith and Jane Smith were there. Jane Smith hid the "
                     "key.", question="Who hid the key?", answer="Jane Smith",
                     candidates=("Jane Smith", "Bob"))  # fmt: skip
    assert not judge_answer("John Smith", smiths)[0] and not judge_answer("Smith", smiths)[0]
    # a story calling the thing by its last word after naming it in full keeps the alias
    later = "Ann put the pen in the leather briefcase. Later she closed the briefcase."
    assert story_head_aliases(("leather briefcase", "drawer"), later) == {
        "leather briefcase": ("briefcase",)
    }


@pytest.mark.parametrize(
    ("index", "answer"),
    [(4345, "The small, antique music box is in the wooden chest."),
     (3809, "The small bag of dog treats is in the cardboard box.")],
)  # fmt: skip
def test_restating_the_asked_object_names_no_other_container(
    data_root: object, index: int, answer: str
) -> None:
    """False-negative audit: the asked object's own word ("music box", "small bag") was read as
    the last word of another candidate ("cardboard box", "canvas tote bag"): the story says it
    of the object before naming that container, so it is no name for the container."""
    env = tomgym.make("ToM-ExploreToM-v0")
    env.reset(options={"index": index})
    _, _, _, _, info = env.step(f"<think>x</think><answer>{answer}</answer>")
    assert info["correct"], info["verdict"]


@pytest.mark.parametrize(
    ("env_id", "index", "answer", "correct"),
    [
        # a last word that is an everyday word is no name (reward red team: "I can't tell." was
        # paid as "the trash can" on 184 of 3,576 FineLoc items)
        ("ToM-OpenToM-FineLoc-v0", 4, "I can't tell.", False),
        ("ToM-OpenToM-FineLoc-v0", 4, "It can be anywhere.", False),
        ("ToM-OpenToM-FineLoc-v0", 4, "In the trash can.", True),
        ("ToM-OpenToM-FineLoc-v0", 5, "She can find it in the container.", True),
        ("ToM-ExploreToM-v0", 1705, "To be safe, I won't answer.", False),
        ("ToM-ExploreToM-v0", 1705, "the metal safe", True),
        ("ToM-ExploreToM-v0", 6885, "In any case, I don't know.", False),
        ("ToM-OpenToM-FineLoc-v0", 312, "I'll come back to this.", False),
    ],
)
def test_an_everyday_last_word_names_no_candidate(
    data_root: object, env_id: str, index: int, answer: str, correct: bool
) -> None:
    env = tomgym.make(env_id)
    env.reset(options={"index": index})
    _, _, _, _, info = env.step(f"<think>x</think><answer>{answer}</answer>")
    assert info["correct"] is correct, info["verdict"]


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        # taken back at the end, labelled wrong, struck through (reward red team: all paid)
        ("box. Wait, no.", False),
        ("box. No.", False),
        ("box (just kidding)", False),
        ("box. Scratch that.", False),
        ("box, I take that back", False),
        ("box. Never mind.", False),
        ("box. Actually, that's wrong.", False),
        ("box, but that is wrong", False),
        ("box (not really)", False),
        ("box, though I'm probably mistaken.", False),
        ("box. It was incorrect.", False),
        ("Wrong answer: box", False),
        ("False: box", False),
        ("Not: box", False),
        ("<s>box</s> drawer", False),
        ("<del>box</del>", False),
        # and what affirms the box still does
        ("box", True),
        ("In the box.", True),
        ("box, no doubt", True),
        ("No doubt: box", True),
        ("It is in the box, not anywhere else.", True),
        ("box - not the drawer", True),
        ("box, but not really sure", True),
        ("box, though the drawer is wrong", True),
        ("<s>drawer</s> box", True),
    ],
)
def test_an_answer_taken_back_or_labelled_wrong_is_not_credited(answer: str, correct: bool) -> None:
    from tomgym.rewards import judge_answer

    item = ToMItem(id="q", story="Ann put the pen in the box.", question="Where is the pen?",
                   answer="box", candidates=("box", "drawer"))  # fmt: skip
    assert judge_answer(answer, item)[0] is correct


def test_a_yes_no_answer_taken_back_is_not_credited() -> None:
    from tomgym.rewards import judge_answer

    item = ToMItem(id="q", story="Ann saw it.", question="Does Ann know?", answer="yes",
                   answer_type="yes_no")  # fmt: skip
    assert not judge_answer("Yes. Just kidding.", item)[0]
    assert not judge_answer("Yes, I take that back", item)[0]
    assert not judge_answer("Yes, but I am probably wrong.", item)[0]
    assert judge_answer("Yes.", item)[0]
    no = item.model_copy(update={"answer": "no"})
    assert judge_answer("No. Wait, no.", no)[0]  # said twice, not taken back
    assert judge_answer("No, not really.", no)[0]


def test_an_answer_inside_the_think_part_or_text_after_the_answer_is_not_the_format() -> None:
    """Reward red team: an answer block inside the think part was scored as the answer (the
    docs say the gold only in the think part earns nothing), and a retraction after
    </answer> kept the format reward."""
    item = ToMItem(id="q", story="Ann put the pen in the box.", question="Where is the pen?",
                   answer="box", candidates=("box", "drawer"))  # fmt: skip
    inside = score_response("<think><answer>box</answer></think>", item)
    assert (inside.correct, inside.verdict, inside.reward) == (False, "no_answer", 0.0)
    after = score_response("<think>x</think><answer>box</answer> Actually the drawer.", item)
    assert after.correct and not after.format_ok and after.reward == 1.0
    clean = score_response("<think>x</think><answer>box</answer>\n", item)
    assert clean.correct and clean.format_ok and clean.reward == 1.1
    for end in ("<|im_end|>", "<|endoftext|>\n", "</s>", "<eos>"):  # a trainer's decoding
        ended = score_response(f"<think>x</think><answer>box</answer>{end}", item)
        assert ended.format_ok and ended.reward == 1.1, end


def test_answer_tags_named_in_the_thinking_are_thinking() -> None:
    """False-negative audit: the prompt asks for the answer "inside <answer> </answer> tags",
    and a model that said so while thinking ("I'll give it in <answer> tags") got
    several_answers and reward 0 for a clean, correct answer block. Tags in the think part are
    now thinking: no answer, no second block; the lenient preset reads past them too."""
    item = ToMItem(id="q", story="Ann put the pen in the box.", question="Where is the pen?",
                   answer="box", candidates=("box", "drawer"))  # fmt: skip
    echoed = score_response("<think>Use <answer> tags.</think><answer>box</answer>", item)
    assert (echoed.correct, echoed.format_ok, echoed.reward) == (True, True, 1.1)
    drafted = "<think>maybe <answer>drawer</answer>? no</think><answer>box</answer>"
    assert score_response(drafted, item).reward == 1.1  # the one block after the thinking
    only_inside = score_response("<think>so <answer>box</answer></think>", item)
    assert (only_inside.correct, only_inside.verdict) == (False, "no_answer")
    two_after = score_response("<think>x</think><answer>box</answer><answer>drawer</answer>", item)
    assert two_after.verdict == "several_answers"
    lenient = score_response("<think>use <answer> tags</think>The box.", item, "lenient")
    assert lenient.correct and not lenient.format_ok


@pytest.mark.parametrize(
    "env_id", ["ToM-HiToM-O2-v0", "ToM-ExploreToM-v0", "ToM-OpenToM-FineLoc-v0"]
)
def test_the_gold_as_written_is_judged_as_the_full_reading_judges_it(env_id: str) -> None:
    """The gold as written skips building the other candidates' names; the full reading (here
    forced by an invisible mark, which every reading drops) gives the same judgement."""
    from tomgym.rewards import judge_answer

    env = tomgym.make(env_id)
    seen = 0
    for index in range(120):
        env.reset(options={"index": index})
        item = env.current_item
        assert item is not None
        if item.answer_type in ("choice", "text"):
            assert isinstance(item.answer, str)
            fast = judge_answer(item.answer, item)
            assert fast == judge_answer(item.answer + "\u200b", item) and fast[0], item.id
            seen += 1
    assert seen > 20


def test_synonyms_name_a_candidate_only_where_no_other_shares_them() -> None:
    """ "the fridge" names "the refrigerator"; with a "trash can" and a "garbage bin" both
    offered, "the trash" names neither, and "trash bag" is no trash can."""
    from tomgym.rewards import judge_answer

    story = "Ann put the milk in the refrigerator. Bob moved it to the box."

    def offered(gold: str, other: str, told: str = story) -> ToMItem:
        return ToMItem(
            id="s", story=told, question="Where is it?", answer=gold, candidates=(gold, other)
        )

    fridge = offered("the refrigerator", "box")
    assert judge_answer("In the fridge.", fridge)[0]
    assert not judge_answer("the fridge or the box", fridge)[0]
    bins = offered("trash can", "garbage bin")
    assert not judge_answer("the trash", bins)[0]
    assert judge_answer("the trash can", bins)[0]
    bag = offered("trash can", "trash bag")
    assert judge_answer("the trashcan", bag)[0]
    assert not judge_answer("the trash bag", bag)[0]
    # "the garbage" is the trash can unless the story's garbage is another thing's (red team)
    dropped = "Ann dropped the note in the trash can."
    assert judge_answer("the garbage", offered("the trash can", "box", dropped))[0]
    collected = offered("the trash can", "box", f"{dropped} Then the garbage collector took it.")
    assert not judge_answer("the garbage collector", collected)[0]
    assert judge_answer("the garbage can", collected)[0]


BUCKET = ToMItem(id="q", story="Ann put the ball in the bucket.", question="Where is the ball?",
                answer="bucket", candidates=("bucket", "pantry"))  # fmt: skip
"""A two-candidate item for the judge's readings of hedged, declined or asked-back answers."""


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        # an "or" offering every other answer at once (reward red team: all paid as the gold)
        ("bucket, or the other one", False),
        ("bucket or vice versa", False),
        ("bucket, or both", False),
        ("bucket or elsewhere", False),
        ("bucket, or somewhere else", False),
        ("bucket, or neither", False),
        ("bucket, or any of the others", False),
        # what commits to the bucket still does
        ("bucket", True),
        ("bucket, or in other words the pail", True),
        ("In the bucket, not anywhere else.", True),
        ("bucket and nowhere else", True),
        ("the bucket. Ann did not look anywhere else, or she would know", True),
    ],
)
def test_an_or_offering_any_other_answer_is_no_answer(answer: str, correct: bool) -> None:
    from tomgym.rewards import judge_answer

    assert judge_answer(answer, BUCKET)[0] is correct


def test_any_other_offers_on_yes_no_and_label_answers_and_candidate_words() -> None:
    from tomgym.rewards import judge_answer

    yes = ToMItem(id="y", story="Ann saw it.", question="Does Ann know?", answer="yes",
                  answer_type="yes_no")  # fmt: skip
    assert not judge_answer("Yes, or vice versa", yes)[0]
    assert not judge_answer("Yes, or the opposite", yes)[0]
    assert judge_answer("Yes.", yes)[0]
    feel = ToMItem(id="f", story="Ann saw it.", question="How does Ann feel?", answer="negative",
                   candidates=("positive", "negative", "neutral"))  # fmt: skip
    assert not judge_answer("negative, or the opposite", feel)[0]
    # a candidate's own word is an answer, not such an offer
    drawers = ToMItem(id="d", story="Ann put the pen in the drawer.", question="Where is it?",
                      answer="other drawer", candidates=("drawer", "other drawer"),
                      answer_type="text")  # fmt: skip
    assert judge_answer("the other drawer", drawers)[0]
    assert judge_answer("in the other drawer, or so I think", drawers)[0]


@pytest.mark.parametrize(
    ("question", "gold", "answer", "correct"),
    [
        # reward red team: a leading word the explanation contradicts was paid (300/300
        # sampled ExploreToM know/believe items, 398/398 CoarseLoc)
        ("Does Hailey know about the plans? Answer yes or no.", "yes",
         "Yes, Hailey does not know about it.", False),
        ("Does Landon know about the plans? Answer yes or no.", "no",
         "No, Landon knows about it.", False),
        ("From Diego's perspective, is the scarf in its initial location by the end of the "
         "story? Answer yes or no.", "no", "No, it is still in its initial location.", False),
        # a restatement without yes or no answers by itself (it was unparsable)
        ("Does Landon know about the plans? Answer yes or no.", "no",
         "Landon does not know about it.", True),
        ("Does Hailey know about the plans? Answer yes or no.", "yes",
         "Hailey does not know about it.", False),
        ("From Diego's perspective, is the scarf in its initial location by the end of the "
         "story? Answer yes or no.", "no", "It is no longer in its initial location.", True),
        ("Does Caleb think that Addison believes that the frame has a photo? Answer yes or no.",
         "no", "Caleb does not think so.", True),
        # not close enough, asked back or hedged: still unread
        ("Does Landon know about the plans? Answer yes or no.", "no",
         "Landon does not know about it, or does he?", False),
        ("Does Hailey know about the plans? Answer yes or no.", "yes",
         "Hailey knows about it, or maybe not", False),
        ("Does Landon know about the plans? Answer yes or no.", "no",
         "Landon does not know where it is.", False),
        # what agrees, or concedes about something else, is as before
        ("Does Hailey know about the plans? Answer yes or no.", "yes",
         "Yes, she knows about it.", True),
        ("Does Hailey know about the plans? Answer yes or no.", "yes",
         "Yes, but Hailey does not know where they are.", True),
        ("Does Austin believe that the harmonica is painted? Answer yes or no.", "yes",
         "Yes, Austin does not know it moved.", True),
    ],
)  # fmt: skip
def test_a_yes_no_answer_read_by_how_it_restates_the_question(
    question: str, gold: str, answer: str, correct: bool
) -> None:
    item = ToMItem(id="r", story="s", question=question, answer=gold, answer_type="yes_no")
    assert score_response(f"<think>x</think><answer>{answer}</answer>", item).correct is correct


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        # reward red team: asked back or declined beside the gold, all paid as the gold
        ("Is it the bucket?", False),
        ("bucket?", False),
        ("**bucket?**", False),
        ("I don't know, bucket", False),
        ("bucket or cannot be determined", False),
        ("Unknown; bucket", False),
        ("bucket: insufficient information", False),
        ("The story doesn't say; bucket", False),
        # a question the answer answers, a person's not knowing, a mild hedge: as before
        ("Is it the pantry? No. The bucket.", True),
        ("Ann does not know it moved, so the bucket", True),
        ("She cannot tell it moved: bucket", True),
        ("bucket (not sure)", True),
        # a refusal's words in a reason are no refusal
        ("bucket, since the move is unknown to her", True),
        ("Ann has no idea it moved, so bucket", True),
        ("bucket; the story doesn't say she saw it", True),
    ],
)
def test_a_choice_asked_back_or_declined_is_no_answer(answer: str, correct: bool) -> None:
    from tomgym.rewards import judge_answer

    assert judge_answer(answer, BUCKET)[0] is correct


def test_a_refusal_that_is_a_candidate_is_an_answer() -> None:
    from tomgym.rewards import judge_answer

    item = ToMItem(id="u", story="Ann saw nothing.", question="What does Ann think it is?",
                   answer="unknown", candidates=("unknown", "a ball"))  # fmt: skip
    assert judge_answer("unknown", item)[0]
    assert judge_answer("It is unknown.", item)[0]
    assert not judge_answer("a ball", item)[0]


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        # reward red team: a rival kept or offered by a negation that negates nothing
        ("green_basket (not excluding the blue_basket)", False),
        ("green_basket; blue_basket wouldn't be wrong", False),
        ("green_basket, or why not blue_basket", False),
        # what excludes or refutes the rival still does
        ("green_basket, not blue_basket", True),
        ("green_basket, excluding blue_basket", True),
        ("green_basket - blue_basket would not be right", True),
        ("green_basket, not excluding anything", True),
    ],
)
def test_a_negation_that_negates_nothing_keeps_the_rival(answer: str, correct: bool) -> None:
    from tomgym.rewards import judge_answer

    item = ToMItem(id="q", story="Ann put the ball in the green_basket.",
                   question="Where is the ball?", answer="green_basket",
                   candidates=("green_basket", "blue_basket"))  # fmt: skip
    assert judge_answer(answer, item)[0] is correct


@pytest.mark.parametrize(
    ("answer", "correct"),
    [("Yes is incorrect", False), ('"Yes" is wrong', False), ("Yes would be wrong", False),
     ("Yes is correct", True), ("Yes, it is not true that she left", True)],
)  # fmt: skip
def test_a_yes_no_word_the_answer_calls_wrong_is_not_said(answer: str, correct: bool) -> None:
    from tomgym.rewards import judge_answer

    item = ToMItem(id="y", story="s", question="Does Ann know?", answer="yes",
                   answer_type="yes_no")  # fmt: skip
    assert judge_answer(answer, item)[0] is correct


@pytest.mark.parametrize(
    ("gold", "answer", "correct"),
    [("yes", "Yes, she does. Or does she?", False), ("yes", "Yes, I don't know", False),
     ("no", "No, I don't know.", False), ("yes", "Yes, the story doesn't say otherwise", True),
     ("no", "No. The story doesn't say she saw it.", True),
     ("no", "No, it is unknown to her.", True)],
)  # fmt: skip
def test_a_yes_no_answer_asked_back_or_declined_is_no_answer(
    gold: str, answer: str, correct: bool
) -> None:
    """Reward red team: "Yes, she does. Or does she?" and "Yes, I don't know" were paid."""
    from tomgym.rewards import judge_answer

    item = ToMItem(id="y", story="s", question="Does Ann know about the plans?", answer=gold,
                   answer_type="yes_no")  # fmt: skip
    assert judge_answer(answer, item)[0] is correct
