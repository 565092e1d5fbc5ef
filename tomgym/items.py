"""The validated record for one Theory-of-Mind question, shared by every env family."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tomgym.answers import leading_yes_no, phrase_of, split_names, words
from tomgym.answers.numbers import number_value

AnswerType = Literal["choice", "text", "yes_no", "names"]
"""How an answer is judged.

- ``choice``: a closed candidate set (Hi-ToM's containers, class labels); the answer
  must name the gold candidate and no other.
- ``text``: a free-text phrase (a location); the gold phrase must appear as whole words
  and no other listed candidate may.
- ``yes_no``: judged on the answer's leading yes/no.
- ``names``: a list of names, judged by set equality after normalising.
"""

Split = Literal["train", "val", "test", "all"]
SPLITS: tuple[str, ...] = get_args(Split)
"""Every split an item (and an env made of items) can name; ``all``: no split."""


CANDIDATE_ALIASES_KEY = "candidate_aliases"
"""An item's metadata key for the other candidates' paraphrases (candidate -> list of phrases):
where the gold has aliases, the others need theirs, or a hedge naming the gold's paraphrase and
another's ("does know or does not know") would name the gold alone."""
PLACES_KEY = "story_places"
"""An item's metadata key for the words that start its story's places (a list), read instead
of the story where its wording hides them from ``tomgym.answers.story_places`` (ExploreToM's
infilled stories say "the dimly lit storage warehouse": the word after "in" is an adjective)."""
JUDGED_METADATA = (CANDIDATE_ALIASES_KEY, PLACES_KEY)
"""Metadata keys the judge reads (see tomgym.rewards): part of an item's digest."""


class ItemError(ValueError):
    """A ToM item failed validation; the message names the item and the field."""


RESPONSE_TAGS = ("<think>", "</think>", "<answer>", "</answer>")
"""The response format's tags: no gold, alias or candidate may hold one."""


def _other_numbers(a: str, b: str) -> bool:
    """Whether two texts of one phrase ("-1" and "1") are numbers of different values, which
    the judge tells apart."""
    first, second = number_value(a), number_value(b)
    return first is not None and second is not None and first != second


class ToMItem(BaseModel):
    """One question about one story, with everything needed to score an answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="Stable identifier, unique within its env.")
    story: str = Field(min_length=1)
    question: str = Field(min_length=1)
    answer: str | list[str] = Field(description="Gold answer (a list for name-list questions).")
    aliases: tuple[str, ...] = Field(default=(), description="Other accepted spellings.")
    candidates: tuple[str, ...] = Field(
        default=(), description="Closed answer set, or the other answers a text answer excludes."
    )
    answer_type: AnswerType = "choice"
    order: int | None = Field(default=None, ge=0, le=10, description="ToM order (None: n/a).")
    question_type: str = "belief"
    source: str = Field(default="custom", description="Dataset the item comes from.")
    split: Split = "all"
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("order", mode="before")
    @classmethod
    def _order_not_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):  # True would read as order 1
            raise ValueError("order must be a whole number or None, not a bool")
        return value

    @field_validator("id")
    @classmethod
    def _id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is blank: an id of spaces only names no item")
        return value

    @field_validator("story", "question")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        # An ASCII text holds no invisible mark (category Cf), so it is not blank when some
        # character is not a space: isspace() stops at the first one (every story, question).
        if value.isascii() and value and not value.isspace():
            return value
        if not any(not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in value):
            raise ValueError("is blank: it holds only spaces, line breaks or invisible marks")
        return value

    @field_validator("answer")
    @classmethod
    def _answer_not_blank(cls, value: str | list[str]) -> str | list[str]:
        if isinstance(value, str):
            if not value.strip():
                raise ValueError("the gold answer is empty")
        elif not value or any(not str(v).strip() for v in value):
            raise ValueError("a name-list answer needs at least one non-empty name")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ToMItem:
        if self.answer_type == "names" and not isinstance(self.answer, list):
            raise ValueError("answer: answer_type 'names' needs a list answer")
        if self.answer_type != "names" and isinstance(self.answer, list):
            raise ValueError(f"answer: answer_type {self.answer_type!r} needs a string answer")
        if self.answer_type == "choice":
            if not self.candidates:
                raise ValueError("candidates: answer_type 'choice' needs candidates")
            if self.answer not in self.candidates:
                raise ValueError(
                    f"answer: gold answer {self.answer!r} is not among the candidates "
                    f"{list(self.candidates)}"
                )
        if self.answer_type == "yes_no" and leading_yes_no(str(self.answer)) is None:
            raise ValueError(
                f"answer: answer_type 'yes_no' needs a gold answer starting with yes or no, "
                f"got {self.answer!r}"
            )
        if len(set(self.candidates)) != len(self.candidates):
            raise ValueError("candidates: candidates contain duplicates")
        if not all(map(str.strip, self.candidates)):
            raise ValueError("candidates: a candidate is empty")
        self._no_response_tags()
        if self.answer_type == "names":
            self._names_read_whole()
        if self.answer_type not in ("choice", "text"):
            return self
        # The candidates' words are read once for the three checks below, and each check
        # looks for the offending candidate only once it knows there is one: a generated
        # Hi-ToM item has 15 candidates, and reading them one by one per check was most of
        # the cost of validating it.
        phrases = list(map(phrase_of, self.candidates))
        readings = set(phrases)
        self._every_answer_has_words(phrases)
        if self.answer_type == "choice" and len(readings) != len(phrases):
            self._distinct_as_read()
        if self.aliases and self.candidates:
            self._no_alias_is_a_wrong_candidate()
        if self.candidates and self._gold_only(phrases, readings):
            raise ValueError(
                f"candidates: {list(self.candidates)} holds only the gold answer, which "
                "info['candidates'] and a prompt listing them would give away; a question with "
                "nothing else to choose from is free text: answer_type 'text', no candidates"
            )
        return self

    def _every_answer_has_words(self, phrases: list[tuple[str, ...]]) -> None:
        """The judge reads answers as whole words without articles: a gold, alias or candidate
        of no such word ("A", "?") could never be named, and would drop out of the judging.
        ``phrases``: the candidates' ``phrase_of``, in order."""
        answer = str(self.answer)
        if all(phrases) and phrase_of(answer) and all(map(phrase_of, self.aliases)):
            return  # every text has words (all items but bad ones): no list of them to build
        fields = [("answer", answer)]
        fields += [("aliases", a) for a in self.aliases]
        if not all(phrases):  # a candidate has no words: find it (after the answer, aliases)
            fields += [("candidates", c) for c in self.candidates]
        for name, text in fields:
            if not phrase_of(text):
                raise ValueError(
                    f"{name}: {text!r} reads as no word once case, punctuation and the articles "
                    "a, an, the are dropped, so no answer could name it; give the option's own "
                    "text (a letter answer 'A' means the text of option A: put the options' texts "
                    "in candidates)"
                )

    def _no_response_tags(self) -> None:
        """A gold, alias or candidate holding a response tag (``</answer>``) could never be
        named: a response writing it would open or close its own answer block."""
        golds = self.answer if isinstance(self.answer, list) else [self.answer]
        if "<" not in "".join((*golds, *self.aliases, *self.candidates)):
            return  # no tag can be there: one scan of every item's texts, not a loop of them
        texts = [("answer", str(a)) for a in golds]
        texts += [("aliases", a) for a in self.aliases]
        texts += [("candidates", c) for c in self.candidates]
        for name, text in texts:
            if "<" in text and any(tag in text.lower() for tag in RESPONSE_TAGS):
                raise ValueError(
                    f"{name}: {text!r} holds a response tag ({', '.join(RESPONSE_TAGS)}): a "
                    "response naming it would open or close its own answer or reasoning block, "
                    "so it could never be judged right; leave the tags out"
                )

    def _names_read_whole(self) -> None:
        """A name of a names answer that the judge reads as several ("AC/DC", "Tom and
        Jerry": it splits a list at commas, semicolons, slashes, "and", "&") or as none ("A",
        "the") could never be matched, in a list or alone; nor are aliases read for names."""
        for name in self.answer:
            parts = split_names(name)
            if len(parts) > 1:
                raise ValueError(
                    f"answer: the name {name!r} reads as {len(parts)} names to the judge "
                    f"({', '.join(map(repr, parts))}), which splits a list of names at commas, "
                    "semicolons, slashes, newlines, 'and', 'as well as' and '&', so no response "
                    "could name it; write it without them"
                )
            if not phrase_of(name):
                raise ValueError(
                    f"answer: the name {name!r} reads as no word once case, punctuation and "
                    "the articles a, an, the are dropped, so no response could name it"
                )
        if self.aliases:
            raise ValueError(
                "aliases: a names answer is judged name by name against its list, and aliases "
                "are not read for it; give each name as the story writes it"
            )

    def _no_alias_is_a_wrong_candidate(self) -> None:
        """An alias that reads as another candidate would credit that wrong answer."""
        gold = phrase_of(str(self.answer))
        wrong = {phrase_of(c): c for c in self.candidates if phrase_of(c) != gold}
        for alias in self.aliases:
            candidate = wrong.get(phrase_of(alias))
            if candidate is not None:
                raise ValueError(
                    f"aliases: {alias!r} reads as the candidate {candidate!r}, a wrong answer: "
                    "a response naming that candidate would be scored correct; drop the alias"
                )

    def _distinct_as_read(self) -> None:
        """Choice candidates that read as one answer ("Box" and "box", "the box" and "box",
        "blue_box" and "blue box"): no response could name the gold alone, and the judge would
        credit whichever comes first. Numbers are read by value: "-1" and "1" are two answers."""
        seen: dict[tuple[str, ...], str] = {}
        for candidate in self.candidates:
            first = seen.setdefault(phrase_of(candidate), candidate)
            if first != candidate and _other_numbers(first, candidate):
                continue
            if first != candidate:
                raise ValueError(
                    f"candidates: {first!r} and {candidate!r} read as the same answer (case, "
                    "articles, underscores and punctuation aside), so no response could name "
                    "one without the other; keep one of them"
                )

    def _gold_only(self, phrases: list[tuple[str, ...]], readings: set[tuple[str, ...]]) -> bool:
        """Whether every candidate (``phrases``: their ``phrase_of``; ``readings``: the set of
        them) reads as the gold answer or one of its aliases."""
        if len(readings) > 1 + len(self.aliases):
            return False  # more readings than golds: some candidate is none of them (at once)
        golds = {phrase_of(g) for g in (str(self.answer), *self.aliases)}
        if not all(p in golds for p in phrases):
            return False
        # "1" beside the gold "-1": one phrase, but the judge tells the numbers apart
        values = {number_value(g) for g in (str(self.answer), *self.aliases)}
        return all(number_value(c) in values for c in self.candidates)

    def digest(self) -> str:
        """16 hex digits that change when anything the item is asked or judged by does: id,
        story, question, answer, candidates, aliases, answer type, option labels and the
        metadata the judge reads (JUDGED_METADATA)."""
        judged = [
            self.id,
            self.story,
            self.question,
            self.answer,
            list(self.candidates),
            list(self.aliases),
            self.answer_type,
            self.metadata.get("option_labels"),
        ]
        # judged by too, where present (added after digests were first kept: an item without
        # them keeps the digest it had)
        judged += [{k: self.metadata[k]} for k in JUDGED_METADATA if k in self.metadata]
        encoded = json.dumps(judged, ensure_ascii=False, sort_keys=True, default=str)
        return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:16]

    @property
    def gold_text(self) -> str:
        """The gold answer as one string (names joined by commas)."""
        return ", ".join(self.answer) if isinstance(self.answer, list) else self.answer

    @property
    def chance(self) -> float | None:
        """A uniform guess's chance of being right: 1/2 for yes/no, 1/#candidates (as the judge
        reads them: "the box" is "box") for a choice or for free text with candidates, None
        for free text without candidates and for name lists (no set to draw a guess from)."""
        if self.answer_type == "yes_no":
            return 0.5
        if self.answer_type == "names" or not self.candidates:
            return None
        return 1.0 / len({phrase_of(c) for c in (*self.candidates, self.gold_text)})


MAX_SHOWN_VALUE = 80


def describe_error(err: Mapping[str, Any]) -> tuple[str, str]:
    """(field, problem) of one pydantic error of a ToMItem: a cross-field check names its field
    at the start of its message (``answer: ...``); a field's bad value is shown, shortened."""
    field = ".".join(str(p) for p in err["loc"])
    message = str(err["msg"]).removeprefix("Value error, ")
    if not field:
        head, sep, rest = message.partition(": ")
        if sep and head in ToMItem.model_fields:
            return head, rest
        return "<item>", message
    if "input" in err and not isinstance(err["input"], Mapping):
        shown = repr(err["input"])
        if len(shown) > MAX_SHOWN_VALUE:
            shown = shown[: MAX_SHOWN_VALUE - 3] + "..."
        message += f" (got {shown})"
        meant = SPLIT_SPELLINGS.get(str(err["input"]).strip().lower()) if field == "split" else None
        if meant:
            message += f": write {meant!r}"
    return field, message


SPLIT_SPELLINGS = {
    "validation": "val", "valid": "val", "dev": "val", "development": "val", "val": "val",
    "training": "train", "train": "train", "testing": "test", "test": "test",
    "all": "all",
}  # fmt: skip
"""Other datasets' names of the splits (Hugging Face's ``validation``, ``dev``, ``Test``), with
the one tomgym reads: a bad split value names it."""


def default_answer_type(fields: Mapping[str, Any]) -> str:
    """The answer type of a record that names none: ``names`` for a list answer, ``choice``
    with candidates, ``yes_no`` for a yes or no answer (``"Yes."`` too, and one that goes on
    after a stop or comma, ``"No, she doesn't."``: as free text, "no" would not name it and
    "yes no" would), else ``text``."""
    answer = fields.get("answer")
    if isinstance(answer, list):
        return "names"
    if fields.get("candidates"):
        return "choice"
    if isinstance(answer, str) and (
        words(answer) in (["yes"], ["no"]) or _YES_NO_THEN_MORE.match(answer)
    ):
        return "yes_no"
    return "text"


_YES_NO_THEN_MORE = re.compile(r"\s*(?:yes|no)\s*[,.;:!]", re.IGNORECASE)
"""A sentence answer that starts with yes or no as a word of its own ("No, she doesn't"), not
"No one saw it"."""


_NONE_MEANS_DEFAULT = frozenset(
    {"aliases", "candidates", "answer_type", "question_type", "source", "split", "metadata"}
)


def validate_item(record: ToMItem | Mapping[str, Any], where: str = "") -> ToMItem:
    """Return a validated item, or raise :class:`ItemError` naming the item and the bad fields.

    A mapping without ``answer_type`` gets :func:`default_answer_type` (as a data file's rows
    do), not the model's ``choice``; an optional field given as None is left out; the answer is
    read with the candidates as a data file's is (:func:`gold_as_its_candidate`).
    """
    if isinstance(record, ToMItem):
        return record
    if not isinstance(record, Mapping):
        raise ItemError(
            f"{where or 'item'}: expected a mapping or ToMItem, got {type(record).__name__}"
        )
    # None for an optional field means absent, as a data file's null does (order keeps None:
    # it is that field's own "not applicable").
    fields = {k: v for k, v in record.items() if v is not None or k not in _NONE_MEANS_DEFAULT}
    gold_as_its_candidate(fields)
    fields.setdefault("answer_type", default_answer_type(fields))
    typed = _mistyped(fields)
    if typed:
        prefix = f"{where}: " if where else ""
        raise ItemError(f"{prefix}item {record.get('id', '<no id>')!r} is invalid: {typed}")
    try:
        return ToMItem.model_validate(fields)
    except ValidationError as exc:
        item_id = record.get("id", "<no id>")
        problems = "; ".join("field '{}': {}".format(*describe_error(err)) for err in exc.errors())
        prefix = f"{where}: " if where else ""
        raise ItemError(f"{prefix}item {item_id!r} is invalid: {problems}") from None


def gold_as_its_candidate(fields: dict[str, Any]) -> None:
    """A record's gold as a data file's row would have it: a bool is yes or no (as a JSON
    true is), unless a candidate reads as the word itself (candidates "True" and "False": the
    gold is that one); a gold written otherwise than one candidate ("Box", "the box" for "box")
    is that candidate as written."""
    answer, candidates = fields.get("answer"), fields.get("candidates")
    if not isinstance(candidates, list | tuple) or not all(isinstance(c, str) for c in candidates):
        candidates = ()
    if isinstance(answer, bool):
        word = "true" if answer else "false"
        same = [c for c in candidates if phrase_of(c) == (word,)]
        fields["answer"] = same[0] if len(same) == 1 else ("yes" if answer else "no")
    elif isinstance(answer, str) and candidates and answer not in candidates:
        same = [c for c in candidates if phrase_of(c) == phrase_of(answer)]
        if len(same) == 1 and not _other_numbers(answer, same[0]):  # "-1" is not "1"
            fields["answer"] = same[0]


def _mistyped(fields: Mapping[str, Any]) -> str:
    """The fields given in a form a data file's cell takes but a Python record does not (a
    number as the gold, "a|b" as the candidates), said in one line each: pydantic's own words
    for them name union members ("answer.str", "answer.list[str]") or ask for a tuple."""
    problems = []
    answer = fields.get("answer")
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        problems.append(
            f"field 'answer': give the gold as text ({str(answer)!r}), not the number {answer!r}"
        )
    for name in ("candidates", "aliases"):
        if isinstance(fields.get(name), str):
            problems.append(
                f"field {name!r}: give a list of strings, not the one string "
                f"{fields[name]!r} (only a data file's cell is split at '|')"
            )
    return "; ".join(problems)


def validate_items(
    records: Iterable[ToMItem | Mapping[str, Any]], where: str = ""
) -> list[ToMItem]:
    """Validate every record (all or nothing); ids must be unique."""
    if isinstance(records, Mapping | str | bytes | ToMItem):
        # Iterating these would "validate" their keys or characters one by one.
        prefix = f"{where}: " if where else ""
        raise ItemError(
            f"{prefix}items must be a list of mappings (or ToMItems), "
            f"got a {type(records).__name__}"
        )
    items: list[ToMItem] = []
    seen: set[str] = set()
    for number, record in enumerate(records):
        label = f"{where} record {number}" if where else f"record {number}"
        item = validate_item(record, label)
        if item.id in seen:
            raise ItemError(f"{label}: duplicate item id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items
