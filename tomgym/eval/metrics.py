"""Metrics over scored records: Wilson intervals, slices, macro-F1, length, reasoning structure."""

from __future__ import annotations

import hashlib
import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from tomgym.agents.base import FALLBACK_SOURCE
from tomgym.answers import negates, parse_response, words, yes_no_said
from tomgym.eval.store import ResultRecord

Z95 = 1.959963984540054
MAX_ERRORS_SHOWN = 5
MAX_ERROR_CHARS = 200
MIN_THINK_WORDS = 8
"""A think part shorter than this is trivial, whatever it names."""
MIN_THINK_ENTITIES = 2
LABEL_FAMILIES = frozenset({"opentom"})
"""Families whose answers are class labels, scored by macro-F1 as well as accuracy."""

_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:_[a-z]+)*\b")
_NOT_NAMES = frozenset(
    [
        "The",
        "A",
        "An",
        "He",
        "She",
        "They",
        "It",
        "Then",
        "After",
        "Before",
        "When",
        "While",
        "Where",
        "What",
        "Who",
        "Which",
        "How",
        "Question",
        "Story",
        "Answer",
        "One",
        "Two",
        "Three",
        "Later",
        "Meanwhile",
        "Finally",
        "First",
        "Next",
        "Yes",
        "No",
        "I",
        "We",
        "You",
        "His",
        "Her",
        "Their",
        "This",
        "That",
        "There",
        "These",
        "Those",
        "Both",
        "Everyone",
        "Someone",
        "Nobody",
        "Inside",
    ]
)


class SliceStats(BaseModel):
    n: int
    accuracy: float
    ci95: tuple[float, float]


class EnvSummary(BaseModel):
    """The numbers for one env of one run, over its scored items (failed ones left out)."""

    n: int = Field(description="Scored items (failed ones are not scored).")
    accuracy: float | None = Field(description="Over the scored items; None when there are none.")
    ci95: tuple[float, float]
    held_out: bool = False
    planned: int | None = Field(default=None, description="Items the run's plan asks for.")
    items_digest: str | None = Field(
        default=None,
        description="A digest of the (index, item digest) pairs the run asked, failed ones "
        "included: two runs over the same indices of an env whose data changed between them "
        "differ here (None in summaries written before it).",
    )
    format_rate: float | None = Field(description="None when no item was scored.")
    lenient_accuracy: float | None = Field(
        default=None,
        description="Accuracy when untagged responses are judged whole (format ignored).",
    )
    mean_reward: float | None = Field(description="None when no item was scored.")
    failed: int = Field(default=0, description="Items whose agent request failed (not scored).")
    stories: int | None = Field(
        default=None,
        description="Distinct stories among the scored items (None where a record predates "
        "story digests).",
    )
    ci95_by_story: tuple[float, float] | None = Field(
        default=None,
        description="Where items share stories (stories < n): a 95% interval that treats each "
        "story's questions as one cluster (cluster-robust standard error), wider than ci95 "
        "where a story's questions succeed or fail together (ExploreToM: 300 questions, 14 "
        "stories). None otherwise.",
    )
    fallback_answers: int = Field(
        default=0,
        description="Scored items on which a baseline's rule did not apply and it gave its "
        "fixed fallback answer (the first candidate, or yes): its accuracy there measures "
        "that answer, not its shortcut.",
    )
    response_tokens_mean: float
    response_tokens_median: float
    response_tokens_source: str = Field(
        description="'completion_tokens' when the agent reported them all, else 'words'."
    )
    truncated_share: float | None = Field(
        default=None,
        description="Share of the responses that stopped at the token budget, over those whose "
        "agent says (None when it says for none): a truncated response rarely has an answer.",
    )
    reasoning_structure: float | None = Field(
        description=f"Share of responses whose think part has >= {MIN_THINK_WORDS} words and "
        f"names >= {MIN_THINK_ENTITIES} story entities (None when no item was scored)."
    )
    macro_f1: float | None = None
    chance: float | None = Field(
        default=None,
        description="Mean chance of a uniform guess over the items (None when any item has no "
        "candidate set: free text, name lists).",
    )
    above_chance: float | None = Field(
        default=None,
        description="(accuracy - chance) / (1 - chance): 0 for guessing, 1 for all right; "
        "comparable across envs with 2 or 15 candidates.",
    )
    trace_fidelity: float | None = Field(
        default=None,
        description="Right share of the belief claims in think parts (generated Hi-ToM/ToMi).",
    )
    trace_claims_mean: float | None = Field(
        default=None, description="Relevant belief claims per response."
    )
    trace_coverage: float | None = Field(
        default=None,
        description="Needed chains stated rightly less those stated wrongly, over the needed "
        "chains (the trace reward's measure, without its condition on the asked chain): "
        "fidelity alone rises when a trace claims less.",
    )
    by_order: dict[str, SliceStats] = Field(default_factory=dict)
    by_question_type: dict[str, SliceStats] = Field(default_factory=dict)
    by_story_type: dict[str, SliceStats] = Field(default_factory=dict)
    by_deception: dict[str, SliceStats] = Field(default_factory=dict)
    by_length: dict[str, SliceStats] = Field(default_factory=dict)


class Summary(BaseModel):
    """``summary.json``: per-env numbers plus the in-distribution vs held-out gap."""

    agent: str
    agent_description: dict[str, Any] = Field(default_factory=dict)
    privileged: bool = False
    gold_answers: int = Field(
        default=0, description="Answers a privileged agent copied from the gold label."
    )
    suite: str | None = None
    n_items: int = Field(description="Scored items, the ones every number here is over.")
    failed_items: int = Field(
        default=0, description="Items whose agent request failed: left out; a rerun retries them."
    )
    planned_items: int | None = Field(default=None, description="Items the run's plan asks for.")
    complete: bool = Field(
        default=True,
        description="Every planned item is scored (False: interrupted, or items failed).",
    )
    extra_records: int = Field(
        default=0,
        description="Records in results.jsonl outside the plan (an earlier, larger --n or other "
        "envs): kept on disk, not counted.",
    )
    unanswered_items: int = Field(
        default=0,
        description="Scored items the agent could not answer and said why (a prompt too long "
        "for a served model's context): scored as empty answers, so wrong, and counted here "
        "because a rerun would fail the same way.",
    )
    agent_errors: dict[str, int] = Field(
        default_factory=dict,
        description=f"The agent's error messages (failed and unanswered items), most common "
        f"first, at most {MAX_ERRORS_SHOWN}: why items failed, without reading results.jsonl.",
    )
    accuracy: float | None = None
    envs: dict[str, EnvSummary]
    in_distribution_accuracy: float | None = None
    held_out_accuracy: float | None = None
    held_out_gap: float | None = Field(
        default=None, description="Mean env accuracy in-distribution minus held-out."
    )
    held_out_gap_above_chance: float | None = Field(
        default=None,
        description="The gap in above-chance accuracy (mean above_chance in-distribution minus "
        "held-out): a random agent's is about 0 whatever the envs' numbers of candidates. None "
        "when an env of the run has no chance level (free text, name lists), so that it is "
        "always over the same envs as held_out_gap.",
    )


def agent_errors(records: Sequence[ResultRecord]) -> dict[str, int]:
    """The records' error messages (first line, capped), most common first."""
    messages = [r.error.strip() for r in records if r.error and r.error.strip()]
    counts = Counter(message.splitlines()[0][:MAX_ERROR_CHARS] for message in messages)
    return dict(counts.most_common(MAX_ERRORS_SHOWN))


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion ((0, 1) when n is 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def cluster_interval(
    outcomes: Sequence[tuple[str, bool]], z: float = Z95
) -> tuple[float, float] | None:
    """A 95% interval for the share of True among ``(cluster, outcome)`` pairs whose clusters
    are not independent draws' units: the mean with a cluster-robust standard error (the
    clusters' summed residuals, with the G/(G-1) small-sample factor). None under 2 clusters."""
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for cluster, outcome in outcomes:
        sums[cluster][0] += outcome
        sums[cluster][1] += 1
    g, n = len(sums), len(outcomes)
    if g < 2:
        return None
    p = sum(hits for hits, _ in sums.values()) / n
    variance = g / (g - 1) * sum((hits - p * size) ** 2 for hits, size in sums.values()) / n**2
    half = z * math.sqrt(variance)
    return (max(0.0, p - half), min(1.0, p + half))


def by_story(records: Sequence[ResultRecord]) -> tuple[int | None, tuple[float, float] | None]:
    """``stories`` and ``ci95_by_story`` of an env's scored records."""
    digests = [r.story_digest for r in records]
    if not records or any(d is None for d in digests):
        return None, None
    stories = len(set(digests))
    if stories >= len(records):
        return stories, None
    outcomes = [(str(d), r.correct) for d, r in zip(digests, records, strict=True)]
    return stories, cluster_interval(outcomes)


def slice_stats(records: Sequence[ResultRecord]) -> SliceStats:
    hits = sum(r.correct for r in records)
    n = len(records)
    return SliceStats(n=n, accuracy=hits / n if n else 0.0, ci95=wilson_interval(hits, n))


def by_slice(
    records: Iterable[ResultRecord], key: Callable[[ResultRecord], object]
) -> dict[str, SliceStats]:
    """Stats per value of ``key`` (records whose key is None are left out)."""
    groups: dict[str, list[ResultRecord]] = defaultdict(list)
    for record in records:
        value = key(record)
        if value is not None:
            groups[str(value)].append(record)
    return {k: slice_stats(groups[k]) for k in sorted(groups, key=_natural)}


def _natural(value: str) -> tuple[int, float | str]:
    try:
        return (0, float(value))
    except ValueError:
        return (1, value)


def macro_f1(predictions: Sequence[str | None], golds: Sequence[str]) -> float:
    """Macro-F1 over the gold labels (a missing or unknown prediction counts against its gold)."""
    labels = sorted(set(golds))
    if not labels:
        return 0.0
    scores = []
    for label in labels:
        tp = sum(p == label and g == label for p, g in zip(predictions, golds, strict=True))
        fp = sum(p == label and g != label for p, g in zip(predictions, golds, strict=True))
        fn = sum(p != label and g == label for p, g in zip(predictions, golds, strict=True))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores)


def normalise_label(text: str | None) -> str | None:
    """An answer as a label: its normalised words joined, or None when empty."""
    if text is None:
        return None
    joined = " ".join(words(text))
    return joined or None


def label_macro_f1(records: Sequence[ResultRecord]) -> float | None:
    """Macro-F1 over the labels of class-label items (choice, yes/no); else None.

    The prediction is the judge's reading, not the answer's words: the gold label where the
    judge credited the answer ("Her attitude is negative", "I think no."), else the one label
    the answer names (a yes or no it leads with, for yes/no), else none (counted against the
    gold only): a model that answers in sentences is not scored 0 for its phrasing."""
    labelled = [r for r in records if r.answer_type in ("choice", "yes_no") and r.gold]
    if not labelled:
        return None
    golds = [normalise_label(r.gold) or "" for r in labelled]
    labels = sorted(set(golds) - {""})
    predictions = [
        gold if record.correct else predicted_label(record, labels, gold)
        for record, gold in zip(labelled, golds, strict=True)
    ]
    return macro_f1(predictions, golds)


def predicted_label(record: ResultRecord, labels: Sequence[str], gold: str) -> str | None:
    """The one label of ``labels`` (normalised golds) that a wrongly judged answer names: a
    yes/no answer's yes or no as the judge reads it (:func:`tomgym.answers.yes_no_said`: first,
    else last); a choice answer's label phrase, a label inside another named one not counted
    ("less full" names "less full", not "full"), nor one it denies ("not negative"). None
    where it names none, several, or only the ``gold`` (which the judge refused: negated,
    hedged)."""
    if record.answer is None:
        return None
    if record.answer_type == "yes_no":
        said, _ = yes_no_said(record.answer)
        return said if said != gold else None
    text = f" {normalise_label(record.answer) or ''} "
    named = [
        label
        for label in labels
        if f" {label} " in text and not negates(record.answer, [tuple(label.split())])
    ]
    named = [a for a in named if not any(a != b and f" {a} " in f" {b} " for b in named)]
    return named[0] if len(named) == 1 and named[0] != gold else None


def story_entities(story: str, candidates: Sequence[str] = (), question: str = "") -> set[str]:
    """Names, containers and objects of a story, as normalised phrases.

    Candidates present in the story, capitalised words that are not sentence furniture, and
    the things the question asks about ("the nectarine") that the story names.
    """
    story_words = " " + " ".join(words(story)) + " "
    found = {
        thing for thing in _ASKED_THING.findall(question.lower()) if f" {thing} " in story_words
    }
    for candidate in candidates:
        phrase = " ".join(words(candidate))
        if phrase and f" {phrase} " in story_words:
            found.add(phrase)
    for match in _CAPITALISED.findall(story):
        if match not in _NOT_NAMES:
            phrase = " ".join(words(match))
            if phrase:
                found.add(phrase)
    return found


_ASKED_THING = re.compile(r"\bthe ([a-z0-9_]+)")


def think_features(
    response: str, prefill: str, story: str, candidates: Sequence[str] = (), question: str = ""
) -> tuple[int, int]:
    """(words of the think part not copied from the story, line numbers aside; distinct story
    entities it names); (0, 0) without one.

    A word counts as copied when its sentence is one of the story's (pasted lines, in any
    order) or when it lies in a run of ``COPIED_RUN`` words that the story also has: pasting
    the story is not reasoning, however many entities it names. A sentence said again counts
    once, and one that repeats a word over and over not at all. An entity counts as named only
    in a sentence that relates something (``RELATION_WORDS``).
    """
    think = parse_response(response, prefill).think
    if not think:
        return (0, 0)
    story_sentences = {_core(sentence) for sentence in _SENTENCE_BREAKS.split(story)}
    asked = {_core(sentence) for sentence in _SENTENCE_BREAKS.split(question)} - {()}
    sentences = [
        [w for w in words(sentence) if not w.isdigit()]  # no line numbers
        for sentence in _SENTENCE_BREAKS.split(think)
    ]
    pasted = {
        _core_of(ws)
        for ws in sentences
        if len(_core_of(ws)) >= MIN_SENTENCE_WORDS and _core_of(ws) in story_sentences
    }
    if len(pasted) < PASTED_SENTENCES:
        pasted = set()  # a story fact or two restated is part of reasoning
    kept: list[str] = []  # words of the think part's sentences that are not pasted
    related: list[str] = []  # those of its sentences that relate things (a verb of the world)
    said: set[tuple[str, ...]] = set()
    for sentence_words in sentences:
        core = _core_of(sentence_words)
        if core in pasted or core in asked:  # the story's lines, or the question, repeated
            continue
        if core in said or _babble(core):  # said again, or a word said over and over
            continue
        said.add(core)
        kept += sentence_words
        if not RELATION_WORDS.isdisjoint(sentence_words):
            related += sentence_words
    text = " " + " ".join(related) + " "
    named = sum(f" {e} " in text for e in story_entities(story, candidates, question))
    return (len(kept) - _copied(kept, [w for w in words(story) if not w.isdigit()]), named)


def _babble(sentence_words: Sequence[str]) -> bool:
    """A sentence of at least 4 words, at most a third of them distinct ("is is is Kurt is
    Delia is is is"): repetition, not reasoning. A listing ("Emma is in the kitchen, Jack is
    in the kitchen, ...") repeats more than half its words and is still a statement."""
    return len(sentence_words) >= 4 and len(set(sentence_words)) * 3 <= len(sentence_words)


_SENTENCE_BREAKS = re.compile(r"[.!?;\n]+")
CONNECTIVES = frozenset(
    {"then", "so", "and", "next", "now", "ok", "okay", "also", "first", "finally", "after",
     "that", "later", "well", "hmm", "because", "since"}
)  # fmt: skip
"""Words a pasted sentence may be dressed in ("Then Anna entered the kitchen ok"): they are set
aside at both ends before a think sentence is compared with the story's."""


def _core(sentence: str) -> tuple[str, ...]:
    return _core_of([w for w in words(sentence) if not w.isdigit()])


def _core_of(sentence_words: Sequence[str]) -> tuple[str, ...]:
    """A sentence's words without connectives at either end (line numbers already gone)."""
    start, end = 0, len(sentence_words)
    while start < end and sentence_words[start] in CONNECTIVES:
        start += 1
    while end > start and sentence_words[end - 1] in CONNECTIVES:
        end -= 1
    return tuple(sentence_words[start:end])


MIN_SENTENCE_WORDS = 3
PASTED_SENTENCES = 3
"""When a think part holds this many distinct story sentences (of MIN_SENTENCE_WORDS or more
words), they count as pasted, in whatever order; one or two restated facts do not."""
RELATION_WORDS = frozenset(
    {"think", "thinks", "thought", "believe", "believes", "believed", "know", "knows", "knew",
     "see", "sees", "saw", "seen", "watch", "watched", "move", "moves", "moved", "put", "puts",
     "leave", "leaves", "left", "exit", "exits", "exited", "enter", "enters", "entered", "is",
     "was", "are", "were", "look", "looks", "search", "searches", "tell", "tells", "told",
     "say", "says", "said", "stay", "stayed", "stays", "lie", "lied", "trust", "trusts"}
)  # fmt: skip
"""An entity counts as named by the reasoning only in a sentence with one of these: a list of
names ("Kurt Delia blue_chest, hmm") relates nothing."""


COPIED_RUN = 8
"""Runs of this many words found in the story count as copied: longer than a belief claim
that ends in a story fact ("A thinks the apple is in the red_bin" is 7 words once articles
go), shorter than two story sentences pasted together."""


def _copied(think_words: Sequence[str], story_words: Sequence[str]) -> int:
    """How many of ``think_words`` lie in a run of COPIED_RUN words the story also has (both
    without line numbers, so pasting sentences with or without them is caught alike)."""
    n = COPIED_RUN
    if len(think_words) < n:
        return 0
    runs = {tuple(story_words[i : i + n]) for i in range(len(story_words) - n + 1)}
    covered = [False] * len(think_words)
    for i in range(len(think_words) - n + 1):
        if tuple(think_words[i : i + n]) in runs:
            covered[i : i + n] = [True] * n
    return sum(covered)


def is_structured(record: ResultRecord) -> bool:
    return record.think_words >= MIN_THINK_WORDS and record.think_entities >= MIN_THINK_ENTITIES


def response_lengths(records: Sequence[ResultRecord]) -> tuple[list[int], str]:
    """Response lengths in tokens when every record with a response has them, else in words
    (and which). An empty response is 0 tokens, counted or not: one unanswered item (no
    request made) no longer turned a whole env's lengths into words."""
    reported = [
        r.completion_tokens if r.completion_tokens is not None or r.response_words else 0
        for r in records
    ]
    # Agents without a tokenizer may report 0 tokens for a non-empty text: that is "unknown".
    if records and all(t is not None for t in reported) and any(reported):
        return [int(t or 0) for t in reported], "completion_tokens"
    return [r.response_words for r in records], "words"


def _trace(records: Sequence[ResultRecord]) -> dict[str, float | None]:
    checked = [r for r in records if r.trace_right is not None and r.trace_wrong is not None]
    if not checked:
        return {"trace_fidelity": None, "trace_claims_mean": None, "trace_coverage": None}
    right = sum(r.trace_right or 0 for r in checked)
    wrong = sum(r.trace_wrong or 0 for r in checked)
    needed = [r for r in checked if r.trace_needed]
    coverage = (
        sum(max(0, (r.trace_right or 0) - (r.trace_wrong or 0)) for r in needed)
        / sum(r.trace_needed or 0 for r in needed)
        if needed
        else None
    )
    return {
        "trace_fidelity": right / (right + wrong) if right + wrong else None,
        "trace_claims_mean": (right + wrong) / len(checked),
        "trace_coverage": coverage,
    }


def _lenient(records: Sequence[ResultRecord]) -> float | None:
    known = [r.lenient_correct for r in records if r.lenient_correct is not None]
    return sum(known) / len(known) if known else None


def _truncated_share(records: Sequence[ResultRecord]) -> float | None:
    known = [r.truncated for r in records if r.truncated is not None]
    return sum(known) / len(known) if known else None


def items_digest(records: Iterable[ResultRecord]) -> str | None:
    """16 hex digits over the sorted (index, item digest) pairs of ``records`` (None: none)."""
    pairs = sorted({(r.index, r.item_digest) for r in records})
    if not pairs:
        return None
    text = "\n".join(f"{index} {digest}" for index, digest in pairs)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def summarise_env(
    records: Sequence[ResultRecord], held_out: bool = False, planned: int | None = None
) -> EnvSummary:
    """One env's numbers over its scored records; failed records are only counted as failed."""
    failed = sum(r.failed for r in records)
    asked = items_digest(records)
    records = [r for r in records if not r.failed]
    n = len(records)
    base = slice_stats(records)
    lengths, source = response_lengths(records)
    stories, story_interval = by_story(records)
    return EnvSummary(
        n=n,
        accuracy=base.accuracy if n else None,
        ci95=base.ci95,
        held_out=held_out,
        planned=planned,
        items_digest=asked,
        format_rate=sum(r.format_ok for r in records) / n if n else None,
        lenient_accuracy=_lenient(records),
        **_trace(records),
        mean_reward=sum(r.reward for r in records) / n if n else None,
        failed=failed,
        fallback_answers=sum(r.answer_source == FALLBACK_SOURCE for r in records),
        stories=stories,
        ci95_by_story=story_interval,
        response_tokens_mean=statistics.fmean(lengths) if lengths else 0.0,
        response_tokens_median=float(statistics.median(lengths)) if lengths else 0.0,
        response_tokens_source=source,
        truncated_share=_truncated_share(records),
        reasoning_structure=sum(map(is_structured, records)) / n if n else None,
        **_chance(records, base.accuracy if n else None),
        by_order=by_slice(records, lambda r: r.order),
        by_question_type=by_slice(records, lambda r: r.question_type),
        by_story_type=by_slice(records, lambda r: r.story_type),
        by_deception=by_slice(records, lambda r: r.deception),
        by_length=by_slice(records, lambda r: r.length),
    )


def _chance(records: Sequence[ResultRecord], accuracy: float | None) -> dict[str, float | None]:
    """The env's mean chance level and its accuracy above chance (None without a level)."""
    levels = [r.chance for r in records]
    if not levels or any(level is None for level in levels):
        return {"chance": None, "above_chance": None}
    chance = statistics.fmean(level for level in levels if level is not None)
    above = (accuracy - chance) / (1 - chance) if accuracy is not None and chance < 1 else None
    return {"chance": chance, "above_chance": above}


def _mean_gap(envs: Iterable[EnvSummary], field: str) -> float | None:
    """Mean ``field`` of the in-distribution envs minus that of the held-out ones."""
    inside = [getattr(e, field) for e in envs if not e.held_out and getattr(e, field) is not None]
    outside = [getattr(e, field) for e in envs if e.held_out and getattr(e, field) is not None]
    if not inside or not outside:
        return None
    return statistics.fmean(inside) - statistics.fmean(outside)


def summarise(
    records: Sequence[ResultRecord],
    env_ids: Sequence[str],
    held_out: dict[str, bool],
    families: dict[str, str],
    *,
    agent: str,
    agent_description: dict[str, Any] | None = None,
    privileged: bool = False,
    suite: str | None = None,
    planned: dict[str, int] | None = None,
) -> Summary:
    """The run's summary, envs in ``env_ids`` order (envs without records are left out).

    Failed records are left out of every number and counted in ``failed_items``. With
    ``planned`` (items per env of the run's plan) the summary says whether the run is complete.
    """
    grouped: dict[str, list[ResultRecord]] = defaultdict(list)
    for record in records:
        grouped[record.env_id].append(record)
    envs: dict[str, EnvSummary] = {}
    for env_id in env_ids:
        rows = grouped.get(env_id, [])
        if not rows:
            continue
        summary = summarise_env(
            rows, held_out.get(env_id, False), planned.get(env_id) if planned else None
        )
        if families.get(env_id) in LABEL_FAMILIES:
            summary.macro_f1 = label_macro_f1([r for r in rows if not r.failed])
        envs[env_id] = summary
    inside = [s.accuracy for s in envs.values() if not s.held_out and s.accuracy is not None]
    outside = [s.accuracy for s in envs.values() if s.held_out and s.accuracy is not None]
    in_acc = statistics.fmean(inside) if inside else None
    out_acc = statistics.fmean(outside) if outside else None
    scored = [r for r in records if not r.failed]
    total = sum(s.n for s in envs.values())
    planned_items = sum(planned[e] for e in env_ids if e in planned) if planned else None
    done = total >= planned_items if planned_items is not None else len(scored) == len(records)
    return Summary(
        agent=agent,
        agent_description=agent_description or {},
        privileged=privileged,
        gold_answers=sum(r.answer_source == "gold" for r in scored) if privileged else 0,
        suite=suite,
        n_items=total,
        failed_items=len(records) - len(scored),
        unanswered_items=sum(bool(r.error) for r in scored),
        agent_errors=agent_errors(records),
        planned_items=planned_items,
        complete=done,
        accuracy=sum(r.correct for r in scored) / len(scored) if scored else None,
        envs=envs,
        in_distribution_accuracy=in_acc,
        held_out_accuracy=out_acc,
        held_out_gap=in_acc - out_acc if in_acc is not None and out_acc is not None else None,
        held_out_gap_above_chance=_mean_gap(envs.values(), "above_chance")
        if all(e.above_chance is not None for e in envs.values() if e.accuracy is not None)
        else None,  # over the same envs as held_out_gap, or not at all
    )
