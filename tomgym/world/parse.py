"""Story text back to events, by sentence structure only (any names, rooms or containers)."""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable

from tomgym.world.render import PARAPHRASES
from tomgym.world.simulator import (
    Distractor,
    Enter,
    Event,
    Exit,
    Move,
    ObjectIs,
    PrivateTell,
    PublicClaim,
    Stay,
)


class UnknownSentenceError(ValueError):
    """A sentence that matches none of the known forms."""

    def __init__(self, sentence: str, what: str = "sentence") -> None:
        super().__init__(f"unknown {what} form: {sentence!r}")
        self.sentence = sentence


NAME = r"[\w\-'\u2019]+"
"""One name, room, object or container word: letters of any script (Zoë, José, 李), digits,
``_``, ``-`` and apostrophes (O'Neil, O\u2019Neil); a name of two words ("Mary Ann") is not one."""
W = f"({NAME})"
_NUMBERED = re.compile(r"^(\d+)\s+(.*)$")
_HEADER = re.compile(r"^(Read the following story|Story:?$)", re.IGNORECASE)
_AGENT_SPLIT = re.compile(r",\s*|\s+and\s+")

_FORMS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Event]]] = [
    (
        re.compile(rf"^(.+?) entered the {W}$"),
        lambda m: Enter(tuple(a for a in _AGENT_SPLIT.split(m[1]) if a), m[2]),
    ),
    (re.compile(rf"^The {W} (?:is|are) in the {W}$"), lambda m: ObjectIs(m[1], m[2])),
    # ToMi: "Abigail is in the patio." (an agent already there) reads as an entry.
    (re.compile(rf"^(?!The ){W} is in the {W}$"), lambda m: Enter((m[1],), m[2])),
    (re.compile(rf"^{W} moved the {W} to the {W}$"), lambda m: Move(m[1], m[2], m[3])),
    (
        re.compile(rf"^{W} made no movements? and stayed in the {W} for \d+ minutes?$"),
        lambda m: Stay(m[1], m[2]),
    ),
    (re.compile(rf"^{W} exited the {W}$"), lambda m: Exit(m[1], m[2])),
    (
        re.compile(rf"^{W} publicly claimed that (?:the )?{W} (?:is|are) in the {W}(?: now)?$"),
        lambda m: PublicClaim(m[1], m[2], m[3]),
    ),
    (
        re.compile(rf"^{W} privately told {W} that (?:the )?{W} (?:is|are) in the {W}(?: now)?$"),
        lambda m: PrivateTell(m[1], m[2], m[3], m[4]),
    ),
    (
        re.compile(
            rf"^{W} (?:saw an? {W}|lost (?:his|her|their) {W}"
            rf"|(?:likes|dislikes|loves|hates) the {W})$"
        ),
        lambda m: Distractor(m[0]),
    ),
]


def _template_event(kind: str, m: re.Match[str]) -> Event:
    g = m.groupdict()
    if kind == "enter":
        return Enter(tuple(a for a in _AGENT_SPLIT.split(g["agents"]) if a), g["room"])
    if kind == "object_is":
        return ObjectIs(g["obj"], g["container"])
    if kind == "move":
        return Move(g["agent"], g["obj"], g["container"])
    if kind == "stay":
        return Stay(g["agent"], g["room"])
    if kind == "exit":
        return Exit(g["agent"], g["room"])
    if kind == "public":
        return PublicClaim(g["speaker"], g["obj"], g["container"])
    return PrivateTell(g["speaker"], g["listener"], g["obj"], g["container"])


def _template_pattern(template: str) -> re.Pattern[str]:
    """A render template ('{agent} left the {room}.') as an anchored regex with named groups."""
    parts = ["^"]
    for literal, name, _, _ in string.Formatter().parse(template.rstrip(".")):
        parts.append(re.escape(literal))
        if name == "agents":
            parts.append(r"(?P<agents>.+?)")
        elif name:
            parts.append(rf"(?P<{name}>{NAME})")
    parts.append("$")
    return re.compile("".join(parts))


def _template_forms() -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], Event]]]:
    forms: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Event]]] = []
    for phrasings in PARAPHRASES.values():
        for kind, templates in phrasings.items():
            for template in templates:
                forms.append(
                    (_template_pattern(template), functools.partial(_template_event, kind))
                )
    return forms


_FORMS += _template_forms()


def parse_sentence(sentence: str) -> Event:
    """One sentence (with or without its full stop) to its event."""
    text = sentence.strip().rstrip(".").strip()
    for pattern, build in _FORMS:
        m = pattern.match(text)
        if m:
            event = build(m)
            return Distractor(sentence.strip()) if isinstance(event, Distractor) else event
    raise UnknownSentenceError(sentence.strip())


def story_sentences(story: str) -> list[str]:
    """The sentences of a story: numbered lines as in the releases, or plain running text.

    Skips an instruction header before the story, blank lines and a stray ``***``.
    """
    lines = [ln.strip() for ln in story.splitlines()]
    lines = [ln for ln in lines if ln and ln != "***"]
    numbered = any(_NUMBERED.match(ln) for ln in lines)
    sentences: list[str] = []
    started = False
    for line in lines:
        m = _NUMBERED.match(line)
        if m:
            started = True
            sentences.append(m[2])
            continue
        if _HEADER.match(line) or (numbered and not started):
            continue
        sentences.extend(s for s in re.split(r"(?<=\.)\s+", line) if s)
    return sentences


def parse_story(story: str) -> list[Event]:
    """Every event of a Hi-ToM or ToMi story text, in order."""
    return [parse_sentence(s) for s in story_sentences(story)]


_HITOM_Q0 = re.compile(rf"^Where is the {W} really\??$")
_HITOM_Q = re.compile(rf"^Where does {W} (?:really )?think (.*?)the {W} (?:is|are)\??$")


def parse_hitom_question(question: str) -> tuple[tuple[str, ...], str]:
    """(agents from outermost to innermost, object); order 0 gives ()."""
    q = question.strip()
    m = _HITOM_Q0.match(q)
    if m:
        return (), m[1]
    m = _HITOM_Q.match(q)
    if m:
        middle = m[2].strip()
        inner = re.findall(rf"{W} thinks", middle)
        if " ".join(f"{a} thinks" for a in inner) != middle:
            raise UnknownSentenceError(question, "question")
        return (m[1], *inner), m[3]
    raise UnknownSentenceError(question, "question")
