"""Property tests of the verifier: no mutated response is scored correct unless its answer block
names the gold and nothing else (an oracle written here, independently), and the gold always is.
Naming the gold means affirming it: "not the jar" and a free-text list "kitchen, garden" do not.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tomgym.answers import (
    ANNOTATION_WORDS,
    HEDGE_WORDS,
    LEAD_IN_WORDS,
    LEAD_WORDS,
    LOCATION_NOTES,
    NOT_EXCLUDING,
    REASON_LABELS,
    REASON_VERBS,
    REASON_WORDS,
    REFUTED_AFTER_NEGATION,
    REFUTING_WORDS,
    VIEW_NOUNS,
    VIEW_VERBS,
)
from tomgym.items import ToMItem
from tomgym.rewards import CHECK_MARKS, CROSS_MARKS, gold_response, score_response

ARTICLES = {"a", "an", "the"}
SEPARATORS = (",", ";", "\n", "&", "/", r"\bas well as\b")  # regular expressions
TAG_SOUP = (
    "<think>", "</think>", "<answer>", "</answer>",
    "<answer", "answer>", "</answer", "<Answer>", "< answer>", "<answer >", "<ans", "wer>",
    "<<answer>>", "<\u200banswer>", "</think", "<think",
)  # fmt: skip
FILLER = (
    " ", "\n", ", ", " and ", " or ", " not ", " the ", "yes", "no", "know", "nobody", "yesterday",
    "maybe", "I think", "it is in", "x", "_", "-", ".", "?", "\u200d", "\u00ad",
    " \u274c", "\u2705 ", "\n- \u274c ", "\n\u2713 ", "\u2717", "? No.", "? no, ", "? \u274c ",
)  # fmt: skip
# Latin letters and a look-alike (Cyrillic or Greek) that NFKC leaves alone.
CONFUSABLES = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
               "x": "\u0445", "y": "\u0443", "i": "\u0456", "s": "\u0455", "n": "\u03b7",
               "b": "\u042c", "k": "\u03ba", "t": "\u03c4"}  # fmt: skip
ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")
COLOURS = ("red", "green", "blue", "yellow")
CONTAINERS = ("box", "basket", "crate", "bin", "drawer", "pantry", "chest", "hamper", "bucket")
PLACES = ("kitchen", "garden", "donation bin", "leather briefcase", "wooden desk drawer", "hall")
NEGATIONS = {"not", "never", "neither", "nor", "cannot", "isnt", "wasnt", "arent", "werent",
             "dont", "doesnt", "didnt", "cant", "wont", "hasnt", "havent", "hadnt", "couldnt",
             "wouldnt", "shouldnt", "aint", "except", "excluding", "nowhere", "non", "un",
             "hardly", "scarcely"}  # fmt: skip
LEAVING = {"left", "leave", "leaves", "leaving", "budged"}
GAP = {"in", "inside", "into", "at", "on", "to"}
ONLY = {"but", "except", "other", "else", "besides"}
NEGATED_EXCLUSION = {"none", "nothing", "nowhere", "no"}
PAIRS = {("other", "than"), ("no", "longer"), ("anywhere", "but"), ("anything", "but"),
         ("everywhere", "but"), ("everything", "but"), ("all", "but"), ("instead", "of"),
         ("rather", "than"), ("far", "from")}  # fmt: skip
CLAUSES = r"[,;:.!?()\[\]\n]"
NAMES = ("Alice", "Bob", "Mary Ann", "Jean-Luc", "Olivia", "Noah", "Sandy", "Yann", "Kai")


# --- the oracle: a plain restatement of "names the gold and nothing else" ------------------------


def oracle_words(text: str) -> list[str]:
    """NFKC, case-folded, every non-alphanumeric character a space, articles dropped."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")  # invisible marks
    cleaned = "".join(ch if ch.isalnum() else " " for ch in folded)
    return [w for w in cleaned.split() if w not in ARTICLES]


def oracle_block(response: str) -> str | None:
    """The inside of the one answer block, or None when there is not exactly one clean block.
    Tags inside a think part (one ``<think>`` before one ``</think>``) are thinking: they are
    not counted (blanked out, keeping every position)."""
    tags = response
    if response.count("<think>") == 1 and response.count("</think>") == 1:
        opened, closed = response.index("<think>") + len("<think>"), response.index("</think>")
        if opened <= closed:
            tags = response[:opened] + " " * (closed - opened) + response[closed:]
    if tags.count("<answer>") != 1 or tags.count("</answer>") != 1:
        return None
    start, end = tags.index("<answer>") + len("<answer>"), tags.index("</answer>")
    block = response[start:end] if start <= end else None
    if block is None or "<think>" in block or "</think>" in block or not block.strip():
        return None
    return re.sub(r"~~.*?~~", " ", block, flags=re.DOTALL)  # struck through: not answered


def _spans(tokens: Sequence[str], phrase: Sequence[str]) -> list[tuple[int, int]]:
    n = len(phrase)
    return [(i, i + n) for i in range(len(tokens) - n + 1) if list(tokens[i : i + n]) == phrase]


def names_gold_only(block: str, golds: Sequence[str], others: Sequence[str]) -> bool:
    """A gold phrase occurs, and every occurrence of another phrase lies inside a gold one,
    unless each occurrence of that phrase is negated ("the box, not the basket"); an
    occurrence inside a longer phrase is that phrase's ("red box, not the box" names the red
    box only; "the box, not the red box" names the box only)."""
    tokens = oracle_words(block)
    gold_spans = [s for g in golds if oracle_words(g) for s in _spans(tokens, oracle_words(g))]
    if not gold_spans:
        return False
    return all(
        all(any(gs <= s and e <= ge for gs, ge in gold_spans) for s, e in spans)
        or all_negated(block, other, [*golds, *others])
        for other in others
        if oracle_words(other)
        for spans in [_spans(tokens, oracle_words(other))]
    )


def _inside_longer(tokens: Sequence[str], span: tuple[int, int], phrases: Sequence[str]) -> bool:
    """Whether ``span`` lies strictly inside an occurrence of one of the phrases."""
    s, e = span
    return any(
        ps <= s and e <= pe and (ps, pe) != (s, e)
        for phrase in phrases
        if oracle_words(phrase)
        for ps, pe in _spans(tokens, oracle_words(phrase))
    )


def _negated_at(tokens: Sequence[str], start: int) -> bool:
    """A negation at most three words before ``start``, not of a departure (a leaving word
    after it, or "from" / "out of" just before the mention)."""
    before = [i for i in range(max(0, start - 3), start) if _negation_at(tokens, i)]
    if not before:
        return False
    between = list(tokens[before[-1] + 1 : start])
    last = before[-1]
    if tokens[last] == "nowhere" and between[:1] and between[0] in ONLY:
        return False  # "nowhere but the box": only the box
    if tokens[last] in ONLY and last > 0 and tokens[last - 1] in NEGATED_EXCLUSION:
        return False  # "nowhere except the box"
    departure = (
        bool(set(between) & LEAVING) or between[-1:] == ["from"] or (between[-2:] == ["out", "of"])
    )
    return not departure


def _excluded_at(tokens: Sequence[str], start: int) -> bool:
    """A negation right before ``start``, or with only place words (in, at...) between, or
    an excluding pair ("rather than", "instead of"...)."""
    i = start - 1
    while i >= 0 and tokens[i] in GAP:
        i -= 1
    if i < 0:
        return False
    if _negation_at(tokens, i):  # "nowhere except the box" affirms the box
        if "if" in tokens[max(0, i - 3) : i]:
            return False  # "the box, if not the basket" offers the basket
        return not (tokens[i] in ONLY and i > 0 and tokens[i - 1] in NEGATED_EXCLUSION)
    # "none other than the box" affirms it too
    return (
        i > 0
        and (tokens[i - 1], tokens[i]) in PAIRS
        and not (i > 1 and tokens[i - 2] in NEGATED_EXCLUSION)
    )


def all_negated(block: str, phrase: str, listed: Sequence[str] = ()) -> bool:
    """Every mention of the phrase is excluded by a negation in its clause, or follows "or" /
    "nor" right after a mention of a ``listed`` phrase that is ("not the box or the bag"). An
    occurrence inside a longer ``listed`` phrase is no mention of it (the "box" of "red box")."""
    found = []
    for clause in re.split(CLAUSES, block):
        tokens = oracle_words(clause)
        ends: dict[int, list[int]] = {}
        for other in listed:
            for s, e in _spans(tokens, oracle_words(other)) if oracle_words(other) else []:
                ends.setdefault(e, []).append(s)
        starts = {s for found_at in ends.values() for s in found_at}
        found += [
            _listed_excluded(tokens, s, ends) or _refuted_after(tokens, e, starts)
            for s, e in _spans(tokens, oracle_words(phrase))
            if not _inside_longer(tokens, (s, e), listed)
        ]
    return all(found)


def _refuted_after(tokens: Sequence[str], end: int, starts: set[int]) -> bool:
    """A refuting word ("wrong") at most four words after the mention, before the next listed
    mention and not negated itself ("the box is wrong"; not "the box, not wrong"), or a
    negation before "it", "the answer" ("the box is not it", "the box? I think not it")."""
    limit = min(len(tokens), end + 4)
    for j in range(end, limit):
        if j in starts:
            return False
        if tokens[j] in REFUTING_WORDS and not (j > end and _negation_at(tokens, j - 1)):
            return True
        if (
            _negation_at(tokens, j)
            and j + 1 < limit
            and j + 1 not in starts
            and tokens[j + 1] in REFUTED_AFTER_NEGATION
        ):
            return True
    return False


def _listed_excluded(tokens: Sequence[str], start: int, ends: dict[int, list[int]]) -> bool:
    if _excluded_at(tokens, start):
        return True
    i = start - 1
    while i >= 0 and tokens[i] in GAP:
        i -= 1
    if i < 1 or tokens[i] not in ("or", "nor"):
        return False
    return any(_listed_excluded(tokens, s, ends) for s in ends.get(i, []) if s < start)


def _negation_at(tokens: Sequence[str], i: int) -> bool:
    return tokens[i] in NEGATIONS or (tokens[i] == "t" and i > 0 and tokens[i - 1][-1] == "n")


def negated_gold(block: str, golds: Sequence[str], others: Sequence[str] = ()) -> bool:
    """A gold mention with a negation at most three words before it in its clause (not a
    negated leaving: "it never left the box"); the words of a gold inside a longer ``others``
    phrase are no mention of it ("the box, not the red box" does not negate the box)."""
    for clause in re.split(CLAUSES, block):
        tokens = oracle_words(clause)
        for gold in golds:
            for start, end in _spans(tokens, oracle_words(gold)) if oracle_words(gold) else []:
                if _negated_at(tokens, start) and not _inside_longer(tokens, (start, end), others):
                    return True
    return False


def is_note(part: Sequence[str], barred: set[str]) -> bool:
    """A note on the answer that names nothing ("last known location", "In Liam's view"): words
    of the note vocabulary (hedges and labels too, not "her place"), none a candidate's, but
    for one person after "according to" or "per", before "'s" and a view or location word, or
    before a belief verb; not a negation, not a number."""
    labels = {"location", "place", "container", "person", "name", "object"}
    vocabulary = ANNOTATION_WORDS | HEDGE_WORDS | REFUTING_WORDS | labels
    if set(part) & barred:
        return False
    possessives = {"her", "his", "their", "our", "your", "my", "its", "s"}
    if any(part[j] in labels - {"location"} and part[j - 1] in possessives
           for j in range(1, len(part))):  # fmt: skip
        return False  # "her place" is a place
    rest = [i for i, word in enumerate(part) if word not in vocabulary]
    if len(rest) != 1:
        return not rest
    i = rest[0]
    if not part[i].isalpha() or part[i] in NEGATIONS | NEGATED_EXCLUSION:
        return False
    return (
        list(part[max(0, i - 2) : i]) == ["according", "to"]
        or list(part[i - 1 : i]) == ["per"]
        or (list(part[i + 1 : i + 2]) == ["s"] and part[i + 2 : i + 3] != []
            and part[i + 2] in VIEW_NOUNS | LOCATION_NOTES)
        or (part[i + 1 : i + 2] != [] and part[i + 1] in VIEW_VERBS)
    )  # fmt: skip


def is_reason(part: Sequence[str], before: str, barred: set[str]) -> bool:
    """A short sentence about the story after the answer that names nothing ("Nobody moved it",
    "I'm confident"): only words of the judge's reason vocabulary (which words those are is the
    judge's list; the fuzz stories name no person), none barred, with a verb (or "s", "m", "re"
    after a pronoun: "it's", "I'm"), "not"/"never" only right before a verb or "present"/"aware",
    and no "or", "vs", "versus", "then", "/", "|" or "+" just before it ("or it was moved").
    It may not say the object moved (moved/placed/put/changed with no negation before them
    and no "there"/"here", but "stayed put"), left (left/went/came... after "it", "this"...),
    or is not there (a negation word before "there"/"here"), nor negate with "I"/"we" in it or
    around a verb of knowing ("Nobody knows")."""
    pronouns = {"it", "this", "that", "she", "he", "they", "i", "we", "you", "there", "nobody",
                "everyone", "everybody", "someone", "somebody", "nothing", "everything", "what",
                "where"}  # fmt: skip
    if before.casefold() in {"or", "vs", "versus", "then", "/", "|", "+"}:
        return False
    if set(part) & barred or not set(part) <= REASON_WORDS:
        return False
    negations = [i for i, word in enumerate(part)
                 if word in {"not", "never", "nothing", "nobody", "none", "no"}]  # fmt: skip
    there = [i for i, word in enumerate(part) if word in {"there", "here"}]
    if negations and ({"i", "we"} & set(part) or {"know", "knows", "knew", "known"} & set(part)):
        return False
    if negations and there and negations[0] < there[-1]:
        return False
    for i, word in enumerate(part):
        following = part[i + 1] if i + 1 < len(part) else None
        if word in {"not", "never"} and following not in REASON_VERBS | {"present", "aware"}:
            return False
        moved = word in {"moves", "moved", "placed", "put", "puts", "changed"}
        stayed_put = word == "put" and i and part[i - 1] in {"stay", "stays", "stayed"}
        if moved and not there and not (negations and negations[0] < i) and not stayed_put:
            return False
        leaving = {"left", "leave", "leaves", "went", "go", "goes", "came", "come", "comes"}
        if word in leaving and part[0] in {"it", "this", "that", "something", "everything",
                                           "nothing"}:  # fmt: skip
            return False
    return any(
        word in REASON_VERBS or (word in {"s", "m", "re"} and i > 0 and part[i - 1] in pronouns)
        for i, word in enumerate(part)
    )


def listed_alternative(block: str, golds: Sequence[str], barred: Sequence[str] = ()) -> bool:
    """Free text split like a list (commas, sentence marks, brackets, and/or/then/vs): a part
    holding the gold beside a short part without it (at most two words longer than the gold)
    that does not start with a negation, says more than a hedge ("I think") and is no note
    on the answer (``is_note``: no word of the ``barred`` phrases, the item's candidates) and,
    after the gold, no sentence about the story (``is_reason``: "box. Nobody moved it.")."""
    separators = r"[,;/|\n&.?!:()\[\]+\u2022\u3001]|\b(?:and|or|then|vs|versus)\b"
    phrases = [oracle_words(g) for g in golds if oracle_words(g)]
    if any(len(re.split(separators, " ".join(p))) > 1 for p in phrases):
        return False  # a gold that is a list itself: left to the verifier's own coverage rule
    folded = unicodedata.normalize("NFKC", block)
    folded = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")  # as read
    pieces = re.split(f"({separators})", folded, flags=re.IGNORECASE)
    parts, before = [], []  # each part's words and the separator just before it
    for number in range(0, len(pieces), 2):
        if oracle_words(pieces[number]):
            parts.append(oracle_words(pieces[number]))
            before.append(pieces[number - 1].strip() if number else "")
    holds = [any(_spans(part, p) for p in phrases) for part in parts]
    longest = max(len(p) for p in phrases)
    first_held = holds.index(True) if any(holds) else len(parts)
    labels = {"location", "place", "container", "person", "name", "object"}  # "Location: X"
    barred_words = {w for phrase in barred for w in oracle_words(phrase)}
    reasons = {"where", "which", "because", "since", "who", "whom", "whose", "when", "cause"}
    return any(holds) and any(
        not held
        and len(part) <= longest + 2
        and not _negation_at(part, 0)
        and not set(part) <= HEDGE_WORDS | REFUTING_WORDS | labels | REASON_LABELS
        # "X, where she left it" (not "X or where Y is")
        and not (number > first_held and part[0] in reasons and before[number] in {",", ";", "("})
        and not (number > first_held and is_reason(part, before[number], barred_words))
        # a note joined by a coordinator describes another answer ("or its original location")
        and not (
            is_note(part, barred_words)
            and not (
                before[number].casefold() in {"and", "or", "then", "vs", "versus"}
                and part[0] != "so"
            )
        )
        for number, (part, held) in enumerate(zip(parts, holds, strict=True))
    )


NAME_FILLER = {
    "only", "both", "just", "also", "all", "of", "them", "they", "the", "characters", "character",
    "people", "person", "who", "know", "knows", "knew", "about", "it", "this", "that", "are", "is",
    "were", "was", "aware", "answer", "would", "be", "those", "as", "well", "too", "can", "could",
    "answerable", "access", "have", "has", "had", "info", "information", "question", "to",
    "present", "in", "conversation", "discussion", "there", "two", "three", "four", "five",
    "six", "seven", "eight", "nine", "ten",
}  # fmt: skip
"""Words around a list's names that name nobody ("Only Ann", "Ann and Bob know about it")."""


def oracle_names(block: str, gold: Sequence[str] = ()) -> set[tuple[str, ...]]:
    """The names a block lists: split at the separators, "and" and numbers ("1. Ann 2. Bob"),
    the filler words around the names dropped (not those of a gold name); the names of a part
    that starts with "not", "except", "excluding", "without" or "never" (after "but" or not)
    are excluded (not listed, wherever else they are said) when only names follow: no filler
    word, none of the judge's NOT_EXCLUDING ("not only Ann", "not sure about Ann")."""
    filler = NAME_FILLER - {w for name in gold for w in oracle_words(name)}
    parts = [block]
    for sep in SEPARATORS:
        parts = [piece for part in parts for piece in re.split(sep, part, flags=re.I)]
    groups: list[list[str]] = []
    for part in parts:
        groups.append([])
        for word in oracle_words(part):
            if word == "and":
                groups.append([])
            else:
                groups[-1].append(word)
    names: set[tuple[str, ...]] = set()
    excluded: set[tuple[str, ...]] = set()
    for said in groups:
        if said[:1] == ["but"]:
            said = said[1:]
        into = names
        excluding = {"not", "except", "excluding", "without", "never"}
        others = set(said[1:])
        if (
            said[:1]
            and said[0] in excluding
            and others
            and not others & (set(NAME_FILLER) | set(NOT_EXCLUDING))
        ):
            said, into = said[1:], excluded
        current: list[str] = []
        for word in [*said, "0"]:
            if word.isdigit():
                if current:
                    into.add(tuple(current))
                current = []
            elif word not in filler:
                current.append(word)
    return names - excluded


NO_HEADS = {"it", "them", "one", "ones", "her", "him", "full", "accessible", "about", "there",
            "here", "room", "area", "place", "spot", "space", "side", "part", "location",
            "section", "zone", "corner", "way", "thing", "things", "same"}  # fmt: skip


def oracle_heads(candidates: Sequence[str]) -> dict[str, list[str]]:
    """A candidate of 2 to 4 words is named by its last word too ("drawer" for "wooden desk
    drawer") when that word is a noun of 3+ letters that no other candidate holds."""
    heads = {}
    for candidate in candidates:
        said = oracle_words(candidate)
        if not 2 <= len(said) <= 4 or not said[-1].isalpha() or len(said[-1]) < 3:
            continue
        if said[-1] in NO_HEADS or any(
            said[-1] in oracle_words(other) for other in candidates if other != candidate
        ):
            continue
        heads[candidate] = [said[-1]]
    return heads


def oracle_allows(response: str, item: ToMItem) -> bool:
    """Whether a response may be scored correct: its one answer block names the gold only."""
    block = oracle_block(response)
    if block is None:
        return False
    if item.answer_type == "names":
        assert isinstance(item.answer, list)
        return oracle_names(block, item.answer) == {tuple(oracle_words(n)) for n in item.answer}
    assert isinstance(item.answer, str)
    if item.answer_type == "yes_no":
        gold_word = oracle_words(item.answer)[0]
        return gold_word in (oracle_yes_no(block), oracle_last_yes_no(block))
    block = denials_as_words(block)
    heads = oracle_heads(item.candidates)
    golds = [item.answer, *item.aliases, *heads.get(item.answer, [])]
    others = [c for c in item.candidates if oracle_words(c) not in map(oracle_words, golds)]
    others += [head for c in others for head in heads.get(c, [])]
    if negated_gold(block, golds, others):
        return False
    if item.answer_type == "text" and not others:
        extra = len(oracle_words(block)) - max(len(oracle_words(g)) for g in golds)
        return (
            names_gold_only(block, golds, ())
            and extra <= 12
            and not listed_alternative(block, golds, item.candidates)
        )
    return names_gold_only(block, golds, others)


ANNOUNCEMENTS = (
    ["my", "final", "answer", "would", "be"], ["my", "answer", "would", "be"],
    ["answer", "would", "be"], ["correct", "answer", "is"], ["right", "answer", "is"],
    ["i", "would", "say"], ["i", "d", "say"], ["my", "final", "answer", "is"],
    ["final", "answer", "is"], ["my", "answer", "is"], ["short", "answer", "is"],
    ["answer", "is"], ["my", "final", "answer"], ["final", "answer"], ["my", "answer"],
    ["short", "answer"], ["answer"], ["boxed", "text"], ["boxed"],
)  # fmt: skip
YES_NO_SYNONYMS = {"yeah": "yes", "yep": "yes", "yup": "yes", "nope": "no", "nah": "no",
                   "true": "yes", "false": "no"}  # fmt: skip


def announced(said: list[str]) -> list[str]:
    """The words after lead words ("so", "therefore": the judge's LEAD_WORDS) and up to two
    announcements ("Final answer: \\boxed{yes}")."""
    while said[:1] and said[0] in LEAD_WORDS and len(said) > 1:
        said = said[1:]
    for _ in range(2):
        for announcement in ANNOUNCEMENTS:
            if said[: len(announcement)] == announcement and len(said) > len(announcement):
                said = said[len(announcement) :]
                break
        else:
            break
    return said


def oracle_yes_no(block: str, lead_in: bool = True) -> str | None:
    """The yes or no a block opens with: the word (after lead words and announcements), a
    whole answer ("Not really."), a hedge before the word ("I think yes."), a first clause
    that is a whole answer other than a hedge ("Definitely not - she left"), she/he/they/it
    with an auxiliary ("She doesn't."), or the answer after a first clause of lead-in words
    (the judge's LEAD_IN_WORDS) and at most one other word ("Based on the story, no."; one
    such clause, as the judge reads). What may be taken as the answer: the judge refuses some
    of these besides (a modal, "it", a hedge or a doubt), which no property needs."""
    said = announced(oracle_words(block))
    if not said or (len(said) == 1 and block.rstrip().endswith("?")):
        return None
    if said[0] in {"yes", "no"} or said[0] in YES_NO_SYNONYMS:
        declined = (
            said[0] in {"no", "nope", "nah"}
            and said[1:2] in (["idea"], ["clue"], ["clues"], ["telling"], ["comment"])
            or said[1:3] in (["way", "to"], ["way", "of"])
        )
        return None if declined else YES_NO_SYNONYMS.get(said[0], said[0])
    if WHOLE_ANSWERS.get(" ".join(said)) is not None:
        return WHOLE_ANSWERS[" ".join(said)]  # "Not really." is a no
    visible = unicodedata.normalize("NFKC", block)
    visible = "".join(c for c in visible if unicodedata.category(c) != "Cf")
    hedged = re.match(  # "I think yes." as an answer; "I think no one saw it" is neither
        r"\W*(?:i\s+(?:think|believe|guess|suppose|would\s+say)|probably|perhaps|maybe|"
        r"(?:most\s+)?likely|definitely|certainly|absolutely|surely)"
        r"[\s,:]+(yes|yeah|yep|yup|no|nope|nah)\b(?=\s*(?:$|[^\w\s']))",
        visible,
        re.IGNORECASE,
    )
    if hedged:
        return YES_NO_SYNONYMS.get(hedged[1].lower(), hedged[1].lower())
    marks = r"[,;.!?:()\[\]/\\\n\u2014\u2013\u2026\u3001\uff0c\ufe50\u201a]|\s-+\s"
    clauses = re.split(rf"({marks}|(?=\b(?:or|but|though|although|unless)\b))", visible, flags=re.I)
    texts = [c for c in clauses[::2] if c is not None]
    while texts and not oracle_words(texts[0]):
        texts = texts[1:]
    if not texts:
        return None
    first = oracle_words(texts[0])
    if " ".join(first) in WHOLE_ANSWERS and " ".join(first) not in {
        "probably",
        "i guess so",
        "i suppose so",
        "i think so",
    }:
        return WHOLE_ANSWERS[" ".join(first)]
    auxiliaries = {"does", "do", "did", "is", "was", "are", "were", "will", "would", "could",
                   "might", "may", "can", "should", "has", "have", "had"}  # fmt: skip
    core = first[:-1] if first[-1:] == ["not"] else first
    if (len(core) >= 2 and core[0] in {"she", "he", "they", "it"}
            and set(core[1:]) <= auxiliaries | {"maybe", "perhaps", "possibly", "probably",
                                                "likely"}
            and core[-1] in auxiliaries):  # fmt: skip
        return "no" if first[-1] == "not" else "yes"
    other = [w for w in first if w not in LEAD_IN_WORDS]
    saying = {"yes", "no", "true", "false", "not", "never"} | set(YES_NO_SYNONYMS)
    if lead_in and len(other) <= 1 and not set(first) & saying:
        rest = visible[visible.index(texts[0]) + len(texts[0]) :]
        return oracle_yes_no(rest, lead_in=False) if oracle_words(rest) else None
    return None


def oracle_last_yes_no(block: str) -> str | None:
    """The yes or no a block ends with, as its own last clause, after the reasons: a bare word
    after lead words or an announcement ("..., so no.", "... No.", "...\nAnswer: yes"); not a
    block that ends asking ("... no?")."""
    visible = unicodedata.normalize("NFKC", block)
    visible = "".join(c for c in visible if unicodedata.category(c) != "Cf")
    if visible.rstrip().endswith("?"):
        return None
    parts = [oracle_words(p) for p in re.split(r"[,;.!?()\[\]\n\u2014\u2013]|\s-+\s", visible)]
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return None
    said = announced(parts[-1])
    if len(said) != 1 or not (said[0] in {"yes", "no"} or said[0] in YES_NO_SYNONYMS):
        return None
    return YES_NO_SYNONYMS.get(said[0], said[0])


CROSSES = set(CROSS_MARKS)  # which characters are marks is the judge's list; how they read
CHECKS = set(CHECK_MARKS)  # is stated here


def denials_as_words(block: str) -> str:
    """A question answered by a lone "no" (or "nope", "nah": then only spaces before the end of
    the line or a punctuation mark) says "wrong" to what it asks; then the marks are read."""
    return marks_as_words(
        re.sub(
            r"\?[ \t]*(?:no|nope|nah)(?=[ \t]*(?:$|[.,;:!?\n]))",
            " wrong ; ",
            block,
            flags=re.IGNORECASE | re.MULTILINE,
        )
    )


def marks_as_words(block: str) -> str:
    """A cross mark says "not" to what follows it on a line that opens with a mark (after a
    bullet or number), else "wrong" to what precedes it, a question it answers included ("Is
    it the box? ❌"); a check mark only ends a clause."""
    lines = []
    for line in block.split("\n"):
        lead = re.match(r"[ \t*\-\u2022>]*(?:\d+[.)][ \t]*)?", line)
        leads = line[lead.end() if lead else 0 :][:1] in CROSSES | CHECKS
        if not leads:
            line = re.sub("\\?[ \t]*(?=[" + "".join(CROSSES) + "])", "", line)
        lines.append(
            "".join(
                (" ; not " if leads else " wrong ; ")
                if ch in CROSSES
                else " ; "
                if ch in CHECKS
                else ch
                for ch in line
            )
        )
    return "\n".join(lines)


def is_hedge(response: str, item: ToMItem) -> bool:
    """A yes/no block holding both words (accepted by design: only the leading word counts)."""
    block = oracle_block(response)
    said = set(oracle_words(block or ""))
    return item.answer_type == "yes_no" and {"yes", "no"} <= said


# --- mutations -----------------------------------------------------------------------------------


def confusable(text: str, position: int) -> str:
    """One letter swapped for its look-alike (the first swappable at or after ``position``)."""
    for i in list(range(position, len(text))) + list(range(position)):
        if text[i].lower() in CONFUSABLES:
            return text[:i] + CONFUSABLES[text[i].lower()] + text[i + 1 :]
    return text


def full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def variants(phrase: str) -> list[str]:
    """Spellings of a phrase: the verifier must treat the first five as it, the rest not."""
    middle = max(1, len(phrase) // 2)
    return [
        phrase,
        phrase.upper(),
        phrase.replace("_", " "),
        phrase.replace(" ", "_"),
        full_width(phrase),
        confusable(phrase, middle),
        phrase[:middle] + ZERO_WIDTH[len(phrase) % len(ZERO_WIDTH)] + phrase[middle:],
        phrase[:middle] + "\u200d" + phrase[middle:],
        phrase[:middle],
        phrase[middle:],
        f"x{phrase}x",
        phrase + "s",
    ]


def fragment_pool(item: ToMItem) -> list[str]:
    """Everything a mutated response is built from: tags, partial tags, gold, decoys, noise."""
    golds = item.answer if isinstance(item.answer, list) else [item.answer, *item.aliases]
    pool = [*TAG_SOUP, *FILLER]
    for phrase in [*golds, *item.candidates, *NAMES[:4], "yes", "no"]:
        pool += variants(phrase)
    return pool


def gold_spellings(item: ToMItem) -> list[str]:
    """Answer blocks that name the gold and nothing else, in spellings a reader would accept."""
    if item.answer_type == "names":
        assert isinstance(item.answer, list)
        names = list(item.answer)
        return [
            ", ".join(names),
            " and ".join(reversed(names)),
            "\n".join(n.upper() for n in names),
            "; ".join(full_width(n) for n in names),
            " & ".join(names + names[:1]),
        ]
    assert isinstance(item.answer, str)
    gold = item.answer
    if item.answer_type == "yes_no":
        word = oracle_words(gold)[0]
        return [word, word.upper(), f"{word.title()}, because of the story.", full_width(word)]
    return [gold, gold.upper(), gold.replace("_", " "), f"It is in the {gold}.",
            full_width(gold), f"the {gold.replace('_', ' ')}"]  # fmt: skip


# --- strategies ----------------------------------------------------------------------------------

container = st.builds(lambda c, k, sep: f"{c}{sep}{k}", st.sampled_from(COLOURS),
                      st.sampled_from(CONTAINERS), st.sampled_from(("_", " ")))  # fmt: skip
phrase_sets = st.lists(
    st.one_of(container, st.sampled_from(CONTAINERS), st.sampled_from(PLACES)),
    min_size=2,
    max_size=8,
    unique_by=lambda p: tuple(oracle_words(p)),
)


@st.composite
def items(draw: st.DrawFn, answer_type: str) -> ToMItem:
    base = {"id": "p", "story": "s", "question": "q?", "answer_type": answer_type}
    if answer_type == "names":
        names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
        return ToMItem(**base, answer=names)
    if answer_type == "yes_no":
        return ToMItem(**base, answer=draw(st.sampled_from(("yes", "no", "no:long", "Yes"))))
    candidates = draw(phrase_sets)
    gold = draw(st.sampled_from(candidates))
    if answer_type == "text" and draw(st.booleans()):
        candidates = []  # free text with no candidate list
    return ToMItem(**base, answer=gold, candidates=tuple(candidates))


@st.composite
def item_and_response(draw: st.DrawFn, answer_type: str) -> tuple[ToMItem, str]:
    item = draw(items(answer_type))
    pool = fragment_pool(item)
    soup = st.lists(st.one_of(st.sampled_from(pool), st.text(max_size=4)), max_size=24)
    inside = "".join(draw(soup))
    shape = draw(st.sampled_from(("block", "soup", "think+block", "huge")))
    if shape == "soup":
        response = inside
    elif shape == "block":
        response = f"<answer>{inside}</answer>"
    elif shape == "think+block":
        response = f"<think>{''.join(draw(soup))}</think><answer>{inside}</answer>"
    else:  # about 100 kB: the same soup repeated, in the think part or in the answer
        response = (
            f"<think>{inside * (100_000 // max(1, len(inside)))}</think><answer>{inside}</answer>"
        )
        if draw(st.booleans()):
            response = f"<answer>{(inside + ' ') * (100_000 // (len(inside) + 1))}</answer>"
    return item, response


SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ANSWER_TYPES = ("choice", "text", "yes_no", "names")
WHOLE_ANSWERS = {
    **dict.fromkeys(["not really", "probably not", "i think not", "certainly not",
                     "definitely not", "of course not", "absolutely not", "not at all",
                     "i do not think so", "i don t think so", "i believe not", "i guess not",
                     "i suppose not", "i do not believe so", "negative"], "no"),
    **dict.fromkeys(["i think so", "of course", "certainly", "definitely", "absolutely",
                     "probably", "i believe so", "i guess so", "i suppose so", "indeed",
                     "affirmative"], "yes"),
}  # fmt: skip


@pytest.mark.parametrize("answer_type", ANSWER_TYPES)
@SETTINGS
@given(data=st.data())
def test_no_response_is_correct_without_naming_the_gold_only(
    answer_type: str, data: st.DataObject
) -> None:
    item, response = data.draw(item_and_response(answer_type))
    score = score_response(response, item, "accuracy")
    if score.correct:
        assert oracle_allows(response, item), (score.answer, score.detail)
        assert score.answer == (oracle_block(response) or "").strip()


@pytest.mark.parametrize("answer_type", ANSWER_TYPES)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_the_gold_in_the_right_format_is_always_correct(
    answer_type: str, data: st.DataObject
) -> None:
    item = data.draw(items(answer_type))
    assert score_response(gold_response(item), item, "rlvr").reward == pytest.approx(1.1)
    think = data.draw(st.text(max_size=40).filter(lambda t: "<" not in t))
    for block in gold_spellings(item):
        response = f"<think>{think}</think><answer>{block}</answer>"
        score = score_response(response, item, "accuracy")
        assert score.correct, (block, score.verdict, score.detail)
        assert oracle_allows(response, item)


@pytest.mark.parametrize("answer_type", ("choice", "text"))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_look_alike_and_broken_spellings_agree_with_the_oracle(
    answer_type: str, data: st.DataObject
) -> None:
    item = data.draw(items(answer_type))
    assert isinstance(item.answer, str)
    for spelling in variants(item.answer)[5:]:
        response = f"<think>x</think><answer>{spelling}</answer>"
        score = score_response(response, item, "accuracy")
        assert score.correct == oracle_allows(response, item), (spelling, score.detail)


SPAN_WORDS = ("red", "box", "green", "big", "the", "x")
SPAN_PHRASES = {
    "red_box": [("red", "box"), ("big", "red", "box")],
    "box": [("box",)],
    "green_box": [("green", "box"), ("green",)],
    "red": [("red",), ("big", "red")],
}


def _spans_by_sorting(
    tokens: Sequence[str], phrases: dict[str, list[tuple[str, ...]]]
) -> dict[str, list[tuple[int, int]]]:
    """indexed_spans' documented rule, written with an explicit sort: longest span first, then
    leftmost, then the mapping's order; a span strictly inside an accepted one of another key
    is dropped."""
    ranked = [
        (start, start + len(phrase), rank, key)
        for rank, (key, phrase) in enumerate((k, p) for k, ps in phrases.items() for p in ps)
        for start in range(len(tokens))
        if tuple(tokens[start : start + len(phrase)]) == phrase
    ]
    ranked.sort(key=lambda s: (s[0] - s[1], s[0], s[2]))
    owner: list[str | None] = [None] * len(tokens)
    found: dict[str, list[tuple[int, int]]] = {}
    for start, end, _, key in ranked:
        owners = set(owner[start:end])
        if len(owners) == 1 and None not in owners and owners != {key}:
            continue
        found.setdefault(key, []).append((start, end))
        for i in range(start, end):
            owner[i] = owner[i] or key
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SPAN_WORDS), max_size=40))
def test_mention_spans_follow_the_documented_order_without_a_sort(tokens: list[str]) -> None:
    # indexed_spans orders its spans by grouping them by length (linear in the response) in
    # place of a sort (n log n): it must accept the spans the sorted order accepts.
    from tomgym.answers import indexed_spans, phrase_index

    found = indexed_spans(tokens, phrase_index(SPAN_PHRASES))
    expected = _spans_by_sorting(tokens, SPAN_PHRASES)
    assert {key: sorted(spans) for key, spans in found.items()} == {
        key: sorted(spans) for key, spans in expected.items()
    }
