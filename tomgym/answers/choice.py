"""Judging a multiple-choice answer: :func:`judge_choice`, and the option labels
("(b)", "option b") it reads as their options' texts (:func:`expand_option_labels`)."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Mapping, Sequence

from tomgym.answers.hedging import hedges
from tomgym.answers.mentions import indexed_mentions
from tomgym.answers.negation import ends_clause, excluded, may_negate, negates, only_affirmed
from tomgym.answers.numbers import judge_number
from tomgym.answers.tags import Judgement
from tomgym.answers.tokens import phrase_of, words


def judge_choice(
    answer: str,
    gold: str,
    candidates: Sequence[str],
    aliases: Sequence[str] = (),
    other_aliases: Mapping[str, Sequence[str]] | None = None,
) -> Judgement:
    """Correct only if the answer names the gold candidate and no other candidate.
    ``aliases`` name the gold too; ``other_aliases`` (candidate -> phrases) name the other
    candidates, so that a paraphrase of the gold beside one of another ("does know or does
    not know") names two. A number is read as a value (:func:`judge_number`)."""
    numeric = judge_number(answer, gold)
    if isinstance(numeric, Judgement):
        return numeric
    answer = numeric
    tokens = words(answer)
    present = set(tokens)
    # The phrase index of the candidates (the gold's aliases under the gold), holding only
    # the phrases whose first word the answer has: an answer is a few words, a list 15 phrases.
    index: dict[str, list[tuple[tuple[str, ...], str, int]]] = {}
    variants: list[tuple[str, tuple[str, ...]]] = []
    for c in candidates:
        variants.append((c, phrase_of(c)))
        if c == gold:
            variants.extend((c, phrase_of(a)) for a in aliases)
        elif other_aliases and c in other_aliases:
            variants.extend((c, phrase_of(a)) for a in other_aliases[c])
    if gold not in candidates:
        variants.append((gold, phrase_of(gold)))
        variants.extend((gold, phrase_of(a)) for a in aliases)
    for rank, (key, phrase) in enumerate(variants):
        if phrase and phrase[0] in present:
            index.setdefault(phrase[0], []).append((phrase, key, rank))
    named = indexed_mentions(tokens, index)
    if not named:
        return Judgement(False, "no_candidate", "the answer names none of the candidates")
    if len(named) > 1 and may_negate(present):
        phrases: dict[str, list[tuple[str, ...]]] = {}
        for key, phrase in variants:
            phrases.setdefault(key, []).append(phrase)
        named = only_affirmed(answer, named, phrases)
    if len(named) > 1:
        return Judgement(False, "several_candidates", f"the answer names {len(named)} candidates")
    if named != {gold}:
        return Judgement(False, "wrong", f"names {named.pop()!r}")
    golds = [p for p in (phrase_of(gold), *map(phrase_of, aliases)) if p]
    # the other candidates' words are theirs: "the box, not the red box" denies no box
    rivals = [phrase for key, phrase in variants if key != gold and phrase]
    others: dict[str, list[tuple[str, ...]]] = {}
    for key, phrase in variants:
        if key != gold and phrase:
            others.setdefault(key, []).append(phrase)
    hedge = hedges(answer, tokens, golds, others, rivals)
    if hedge is not None:
        return Judgement(False, "several_candidates", hedge)
    if may_negate(present) and (
        negates(answer, golds, ends_clause((gold, *aliases)), rivals)
        or excluded(answer, golds, rivals)
    ):
        return Judgement(False, "wrong", "negates the gold candidate")
    return Judgement(True, "correct", "names the gold candidate only")


ARTICLE_LABELS = frozenset({"a"})
"""Option labels that are also English words: read as labels only where no word follows."""


@functools.lru_cache(maxsize=64)
def _label_patterns(
    labels: tuple[str, ...],
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(unmistakable label forms, every label form, a word after an article-like label).

    Unmistakable: "(b)", "b)" not inside a word, "(b" before a separator ("(b/c)"), "b."
    opening the answer, "b:" for a label that is not an article ("A:" opens many an answer),
    "option b" / "choice b", "answer (is) b" and an answer that is the letter alone or opens
    with it before punctuation. Every form: those, or a label letter standing alone."""
    any_label = "|".join(map(re.escape, labels))
    plain = "|".join(re.escape(label) for label in labels if label.lower() not in ARTICLE_LABELS)
    # after a label: the end, punctuation or an opening bracket ("answer: b (the option's text)")
    end = r"(?=\s*(?:$|[.,;:!?()]))"
    forms = [
        rf"\(\s*(?P<p>{any_label})\s*\)",
        # "(a/b)", "(b, c)", "(B or C)": the first of letters paired inside parentheses
        rf"\(\s*(?P<q>{any_label})(?=\s*(?:[/,|;]|(?:or|and)\s))",
        rf"(?<![\w(])(?P<m>{any_label})\)(?!\w)",
        rf"^\s*(?P<d>{any_label})\.(?!\w)",  # "B. ...", not "plan B." inside a sentence
        *([rf"(?<![\w(])(?P<c>{plain}):(?!\w)"] if plain else []),
        rf"\b(?:option|choice)\s*:?\s*(?P<o>{any_label})\b",
        rf"\banswer\s*(?:is\s*|:\s*)?(?P<n>{any_label}){end}",
        rf"^\s*(?P<s>{any_label})(?=\s*(?:$|[.,;!?()]))",  # not "A:", which opens answers
    ]
    unmistakable = re.compile("|".join(forms), re.IGNORECASE)
    every = re.compile("|".join([*forms, rf"(?<![\w(])(?P<w>{any_label})(?![\w)])"]), re.I)
    # after an article-like label, a word (not "or"/"and", not another label standing alone)
    word_after = re.compile(rf"\s+(?!(?:or|and|{any_label})(?![\w]))[^\W\d_]", re.IGNORECASE)
    return unmistakable, every, word_after


def expand_option_labels(answer: str, labels: Mapping[str, str]) -> str:
    """The answer with each option label it uses replaced by that option's text, for questions
    that show their candidates as "(a) ... (b) ...": "(b)", "b)", "option b" or a lone "b"
    then names the option, and "(a) or (b)", "(a/b)", "A) B)", "b or (a)" name both. A letter
    standing alone is read as a label once the answer uses one unmistakably, unless it is an
    article ("a dog": a word follows). Nothing inside an option's own text as the answer quotes it
    ("... plan B.") is read as a label, and the answer is read once, in linear time."""
    by_label = {str(k).strip().lower(): text for k, text in labels.items() if str(k).strip()}
    if not by_label:
        return answer
    unmistakable, every, word_after = _label_patterns(tuple(sorted(by_label)))
    quoted = _quoted_spans(answer, by_label.values())

    def outside(match: re.Match[str]) -> bool:
        at = bisect.bisect_right(quoted, (match.start(), len(answer) + 1)) - 1
        return at < 0 or match.start() >= quoted[at][1]

    if not any(map(outside, unmistakable.finditer(answer))):
        return answer

    def option(match: re.Match[str]) -> str:
        label = next(group for group in match.groups() if group)
        if not outside(match) or (
            match.group("w")
            and label.lower() in ARTICLE_LABELS
            and word_after.match(answer, match.end())
        ):
            return match.group(0)  # inside a quoted option, or "a pet": the article
        return f" {by_label[label.lower()]} "

    return every.sub(option, answer)


def _quoted_spans(answer: str, texts: Iterable[str]) -> list[tuple[int, int]]:
    """Where the answer quotes an option's text (case aside): sorted, disjoint (start, end)."""
    lowered = answer.lower()
    spans = []
    for text in texts:
        needle = text.strip().lower()
        start = lowered.find(needle) if needle else -1
        while start != -1:
            spans.append((start, start + len(needle)))
            start = lowered.find(needle, start + len(needle))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):  # one option's text may hold the other's
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
