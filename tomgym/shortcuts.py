"""Shortcut audit: how much of an env's chance-to-oracle gap is won without tracking beliefs.

Scores the shortcut baselines, a shallow learned probe (bag of words and mention positions, a
linear softmax over the candidates) and the oracle on an env's test items, and sums it up as
the *shortcut share* (best shortcut - chance) / (oracle - chance).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np

from tomgym.answers import leading_yes_no, words
from tomgym.items import ToMItem
from tomgym.world.parse import story_sentences

logger = logging.getLogger(__name__)

BASELINES = (
    "random",
    "heuristic:first",
    "heuristic:position",
    "heuristic:reality",
    "heuristic:initial",
    "heuristic:majority",
    "heuristic:yes",
    "heuristic:no",
)
"""The shortcut agents (tomgym.agents.baselines) every audit runs."""
DEFAULT_N_TRAIN, DEFAULT_N_TEST = 600, 300


@dataclass
class AuditRow:
    """One env's audit: accuracies on its test items and the shortcut share."""

    env_id: str
    family: str
    test_split: str
    n_train: int
    n_test: int
    chance: float
    oracle: float
    baselines: dict[str, float] = field(default_factory=dict)
    probe: float | None = None
    probe_note: str = ""
    oracle_gold_answers: int = 0
    """Test items the oracle answered by copying the gold (a family without a simulator:
    ExploreToM, OpenToM): there its column is the gold labels themselves."""
    free_text_items: int = 0
    """Test items with no set to guess from, whose chance counts as 0 (see chance_level)."""
    test_stories: int | None = None
    """Distinct stories among the test items: the items of one story are not independent, so
    a split of a few stories (ExploreToM's test split: 300 questions, 14 stories) moves a
    baseline by tens of points from one split to another."""
    fallbacks: dict[str, int] = field(default_factory=dict)
    """Test items on which a baseline's rule did not apply and it gave its fallback answer
    (the first candidate, or "yes"): its column there is that constant's accuracy."""

    @property
    def best_shortcut(self) -> tuple[str, float]:
        """The best shortcut (a heuristic baseline or the probe) and its accuracy. The random
        baseline is not a shortcut but a measure of chance: its luck on a few hundred items
        would otherwise be named the best shortcut where none works."""
        scores = {k: v for k, v in self.baselines.items() if k != "random"}
        if self.probe is not None:
            scores["probe"] = self.probe
        name = max(scores, key=lambda k: scores[k])
        return name, scores[name]

    @property
    def shortcut_share(self) -> float | None:
        """(best shortcut - chance) / (oracle - chance); None when the oracle is at chance."""
        gap = self.oracle - self.chance
        if gap <= 1e-9:
            return None
        return (self.best_shortcut[1] - self.chance) / gap

    @property
    def best_ci95(self) -> tuple[float, float]:
        """The 95% Wilson interval of the best shortcut's accuracy over the test items (as
        independent draws; the items of one story are not, so with few stories it is wider)."""
        from tomgym.eval.metrics import wilson_interval

        return wilson_interval(round(self.best_shortcut[1] * self.n_test), self.n_test)

    def to_dict(self) -> dict[str, Any]:
        best, best_acc = self.best_shortcut
        return {
            **asdict(self),
            "best_shortcut": best,
            "best_shortcut_accuracy": best_acc,
            "best_shortcut_ci95": list(self.best_ci95),
            "shortcut_share": self.shortcut_share,
        }


# --- which items ---------------------------------------------------------------------


def _spread(size: int, n: int) -> list[int]:
    """``n`` indices spread evenly over ``range(size)`` (all of them when n >= size)."""
    if n >= size:
        return list(range(size))
    return sorted({i * size // n for i in range(n)})


def _holdout(item: ToMItem) -> bool:
    """A fixed half of a split-less env's items, by story, held out for testing the probe: a
    story's questions (the Hi-ToM release asks each order about every story) all fall on one
    side, so the probe is never tested on a story it was trained on."""
    return hashlib.sha256(item.story.strip().encode()).digest()[0] % 2 == 1


def _load(env_id: str, n: int, **kwargs: Any) -> tuple[Any, list[ToMItem]]:
    """The env and ``n`` of its items: those ``tomgym eval --n n`` asks (its fixed shuffled
    order), so that the baselines' columns are eval's figures on the same items (evenly
    spaced items differed from them on a release: ToMi-Original first 26.7% against 16.7%)."""
    import tomgym
    from tomgym.eval.store import planned_indices

    env = tomgym.make(env_id, **kwargs)
    indices = planned_indices("shuffled", n, env.size)
    return env, [env.source.item(i) for i in indices]


def split_items(
    env_id: str, n_train: int, n_test: int, **kwargs: Any
) -> tuple[list[ToMItem], list[ToMItem], str]:
    """(train items, test items, what the test items are): the env's own test split, else its
    val split, else a fixed half of its items (the other half trains the probe). The probe
    trains on the train split, or on val where the env has test and val but no train."""
    for test_split in ("test", "val"):
        try:
            _, test = _load(env_id, n_test, **{**kwargs, "split": test_split})
        except (TypeError, ValueError, FileNotFoundError):
            continue
        for train_split in ("train", "val") if test_split == "test" else ("train",):
            try:
                _, train = _load(env_id, n_train, **{**kwargs, "split": train_split})
            except (TypeError, ValueError, FileNotFoundError):
                continue
            return train, test, test_split
    env, items = _load(env_id, n_train + n_test, **kwargs)
    if env.size is not None:  # every item, so that each half can give its n
        items = [env.source.item(i) for i in range(env.size)]
    held = [it for it in items if _holdout(it)]
    kept = [it for it in items if not _holdout(it)]
    test = [held[i] for i in _spread(len(held), n_test)] if held else []
    train = [kept[i] for i in _spread(len(kept), n_train)] if kept else []
    return train, test, "half of the stories (no split)"


# --- scoring ---------------------------------------------------------------------------


def chance_level(item: ToMItem) -> float:
    """A uniform guess's accuracy (``ToMItem.chance``), 0 where there is no set to guess from:
    an open answer is not won by guessing."""
    return item.chance or 0.0


def episode_for(
    item: ToMItem,
    env_id: str,
    family: str,
    privileged: bool = False,
    source_kwargs: dict[str, Any] | None = None,
) -> Any:
    """The Episode an agent sees for ``item`` (no prompt: the audited agents read the story)."""
    from tomgym.agents.base import Episode

    return Episode.of_item(item, env_id, family, privileged, source_kwargs=source_kwargs)


def agent_accuracy(
    spec: str,
    items: Sequence[ToMItem],
    env_id: str,
    family: str,
    source_kwargs: dict[str, Any] | None = None,
) -> float:
    """Accuracy of the agent ``spec`` on the items (see :func:`agent_run`)."""
    return agent_run(spec, items, env_id, family, source_kwargs).accuracy


class AgentRun(NamedTuple):
    """An agent's accuracy on audit items, and how many of its answers were not its own."""

    accuracy: float
    gold_copies: int
    """Answers that copied the gold (the oracle's, on families it cannot simulate)."""
    fallbacks: int
    """A baseline's answers where its rule did not apply (see ``BaselineAgent``)."""


def agent_run(
    spec: str,
    items: Sequence[ToMItem],
    env_id: str,
    family: str,
    source_kwargs: dict[str, Any] | None = None,
) -> AgentRun:
    """Accuracy of the agent ``spec`` on the items (scored by the env's verifier). A baseline
    that learns (``heuristic:majority``, ``heuristic:position``) fits itself as in ``tomgym
    eval`` (the env's train split, other folds without one), so that its column is eval's
    figure on the same items: fitted on the probe's training items, it moved with ``--n``
    (position on ToM-HiToM-O2-v0's first 60 test items: 26.7 there, 43.3 in eval).
    Returns the accuracy, the responses that copied the gold (the oracle's on families it
    cannot simulate) and a baseline's fallback answers."""
    from tomgym.agents.base import FALLBACK_SOURCE, make_agent
    from tomgym.rewards import score_response

    if not items:
        return AgentRun(0.0, 0, 0)
    agent = make_agent(spec)
    episodes = [episode_for(it, env_id, family, agent.privileged, source_kwargs) for it in items]
    responses = agent.act(episodes)
    right = sum(
        score_response(r.text, it, "accuracy").correct
        for r, it in zip(responses, items, strict=True)
    )
    return AgentRun(
        right / len(items),
        sum(r.extra.get("source") == "gold" for r in responses),
        sum(r.extra.get("source") == FALLBACK_SOURCE for r in responses),
    )


class NoAuditItemsError(ValueError):
    """An env whose items leave one side of the audit empty (no test, or no training items)."""


def audit_env(
    env_id: str,
    n_train: int = DEFAULT_N_TRAIN,
    n_test: int = DEFAULT_N_TEST,
    baselines: Sequence[str] = BASELINES,
    **kwargs: Any,
) -> AuditRow:
    """Audit one registered env (``kwargs`` go to the env, e.g. ``vocab_split="test"``)."""
    import tomgym

    family = tomgym.get_spec(env_id).family
    train, test, test_split = split_items(env_id, n_train, n_test, **kwargs)
    if not test or not train:
        stories = len({it.story for it in [*train, *test]})
        side = "test" if not test else "training"
        raise NoAuditItemsError(
            f"{env_id}: no {side} items to audit on: it has no test or val split, and its "
            f"{stories} stor{'y' if stories == 1 else 'ies'} all fell in the "
            f"{'training' if not test else 'test'} half (stories are split by a hash of their "
            "text, so that no story is on both sides); give its items a split column"
        )
    oracle, copied, _ = agent_run("oracle", test, env_id, family, kwargs)
    row = AuditRow(
        env_id=env_id,
        family=family,
        test_split=test_split,
        n_train=len(train),
        n_test=len(test),
        chance=sum(map(chance_level, test)) / max(1, len(test)),
        oracle=oracle,
        oracle_gold_answers=copied,
        test_stories=len({it.story for it in test}),
        free_text_items=sum(it.chance is None for it in test),
    )
    for spec in baselines:
        run = agent_run(spec, test, env_id, family, kwargs)
        row.baselines[spec] = run.accuracy
        if run.fallbacks:
            row.fallbacks[spec] = run.fallbacks
    row.probe, row.probe_note = probe_accuracy(train, test)
    return row


# --- the probe -------------------------------------------------------------------------

HASH_BUCKETS = 64
MAX_ORDER_FEATURE = 4
PROBE_STEPS, PROBE_LR, PROBE_L2 = 300, 0.5, 1e-3
MIN_PROBE_ITEMS = 20
_BELIEF_WORDS = ("think", "thinks", "believe", "believes", "look", "searches", "know", "knows")


def _bucket(word: str, salt: str) -> int:
    digest = hashlib.blake2b(f"{salt}|{word}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") % HASH_BUCKETS


def _contains(tokens: list[str], phrase: list[str]) -> list[int]:
    """Start positions of ``phrase`` in ``tokens``."""
    n = len(phrase)
    if not n:
        return []
    return [i for i in range(len(tokens) - n + 1) if tokens[i : i + n] == phrase]


def _question_focus(question: list[str], story_words: set[str]) -> tuple[list[str], list[str]]:
    """(the question's object: its last story word before 'is'/'really'/end, its agents)."""
    content = [w for w in question if w in story_words]
    return content[-1:], content[:-1]


def item_features(item: ToMItem) -> np.ndarray:
    """Features of every candidate of ``item`` (rows in candidate order): mention counts and
    positions in the story, its place among the containers named, its closeness to the
    question's object and agents, crossed with the question's depth; hashed words around its
    mentions; and, for yes/no, hashed question words crossed with the answer word."""
    sentences = [words(s) for s in story_sentences(item.story)] or [[]]
    n_sent = len(sentences)
    question = words(item.question)
    story_words = {w for s in sentences for w in s}
    obj, agents = _question_focus(question, story_words)
    depth = min(sum(w in _BELIEF_WORDS for w in question), MAX_ORDER_FEATURE)
    phrases = [words(c) for c in item.candidates]
    first_at = {}
    last_at = {}
    for k, phrase in enumerate(phrases):
        hits = [i for i, s in enumerate(sentences) if _contains(s, phrase)]
        if hits:
            first_at[k], last_at[k] = hits[0], hits[-1]
    about_obj = [i for i, s in enumerate(sentences) if obj and _contains(s, obj)]
    about_agent = [i for i, s in enumerate(sentences) if any(a in s for a in agents)]
    rows = []
    for k, phrase in enumerate(phrases):
        hits = [i for i, s in enumerate(sentences) if _contains(s, phrase)]
        with_obj = [i for i in hits if i in about_obj]
        after_obj = any(
            i + len(obj) <= j <= i + len(obj) + 6
            for s in sentences
            for i in _contains(s, obj)
            for j in _contains(s, phrase)
        )
        base = [
            1.0,
            float(bool(hits)),
            np.log1p(len(hits)),
            first_at.get(k, n_sent) / n_sent,
            last_at.get(k, n_sent) / n_sent,
            float(bool(first_at) and first_at.get(k) == min(first_at.values())),
            float(bool(last_at) and last_at.get(k) == max(last_at.values())),
            np.log1p(len(with_obj)),
            float(bool(about_obj) and about_obj[0] in hits),
            float(bool(about_obj) and about_obj[-1] in hits),
            float(bool(with_obj) and with_obj[-1] == max(about_obj)),
            float(after_obj),
            float(bool(about_agent) and about_agent[-1] in hits),
            float(bool(_contains(question, phrase))),
            k / max(1, len(phrases) - 1),
        ]
        crossed = np.outer(np.eye(MAX_ORDER_FEATURE + 1)[depth], base).ravel()
        bag = np.zeros(HASH_BUCKETS)
        for i in hits[:1] + hits[-1:]:
            for w in sentences[i]:
                bag[_bucket(w, "near")] += 0.5
        yes_no = np.zeros(HASH_BUCKETS)
        if phrase and phrase[0] in ("yes", "no"):
            sign = 1.0 if phrase[0] == "yes" else -1.0
            for w in question:
                yes_no[_bucket(w, "q")] += sign
        rows.append(np.concatenate([base, crossed, bag, yes_no]))
    return np.array(rows, dtype=np.float64)


def _probe_candidates(item: ToMItem) -> ToMItem | None:
    """The item with a closed candidate set (yes/no items get ("yes", "no"), and their gold as
    the judge reads it: "No, she doesn't." is "no"); None if none."""
    if item.answer_type == "names":
        return None
    if item.answer_type == "yes_no":
        gold = leading_yes_no(str(item.answer))
        return item.model_copy(update={"candidates": ("yes", "no"), "answer": gold})
    if item.gold_text not in item.candidates or len(item.candidates) < 2:
        return None
    return item


def _tensor(items: Sequence[ToMItem]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features N x C x D, mask N x C, gold index N), candidates padded to the widest item."""
    feats = [item_features(it) for it in items]
    width = max(f.shape[0] for f in feats)
    dim = feats[0].shape[1]
    x = np.zeros((len(items), width, dim))
    mask = np.zeros((len(items), width), dtype=bool)
    gold = np.zeros(len(items), dtype=int)
    for n, (it, f) in enumerate(zip(items, feats, strict=True)):
        x[n, : f.shape[0]] = f
        mask[n, : f.shape[0]] = True
        gold[n] = [c.lower() for c in it.candidates].index(it.gold_text.lower())
    return x, mask, gold


def _softmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    scores = np.where(mask, scores, -1e9)
    scores = scores - scores.max(axis=1, keepdims=True)
    e = np.exp(scores) * mask
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def fit_probe(x: np.ndarray, mask: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Weights of a linear softmax over candidates, by full-batch gradient descent from zero
    (deterministic); features are standardised inside, so the weights expect raw features."""
    flat = x[mask]
    mean, std = flat.mean(axis=0), flat.std(axis=0) + 1e-6
    z = (x - mean) / std * mask[..., None]
    w = np.zeros(x.shape[2])
    onehot = np.eye(x.shape[1])[gold]
    for _ in range(PROBE_STEPS):
        p = _softmax(z @ w, mask)
        grad = np.einsum("nc,ncd->d", p - onehot, z) / len(gold) + PROBE_L2 * w
        w -= PROBE_LR * grad
    return np.concatenate([w / std, [-(w / std) @ mean]])


def probe_predict(weights: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The index of the best-scoring candidate of every item."""
    scores = x @ weights[:-1] + weights[-1]
    return np.asarray(np.where(mask, scores, -np.inf).argmax(axis=1))


def probe_accuracy(train: Sequence[ToMItem], test: Sequence[ToMItem]) -> tuple[float | None, str]:
    """(test accuracy of the probe trained on ``train``, a note); None when it cannot run."""
    tr = [c for c in map(_probe_candidates, train) if c is not None]
    te_all = [_probe_candidates(it) for it in test]
    te = [c for c in te_all if c is not None]
    if len(tr) < MIN_PROBE_ITEMS or not te:
        return None, f"skipped: only {len(tr)} train items with a closed candidate set"
    weights = fit_probe(*_tensor(tr))
    x, mask, gold = _tensor(te)
    right = int((probe_predict(weights, x, mask) == gold).sum())
    note = f"trained on {len(tr)} items"
    if len(te) < len(test):
        note += f"; {len(test) - len(te)} open-answer test items counted wrong"
    return right / len(test), note


def audit_envs(
    env_ids: Sequence[str],
    n_train: int = DEFAULT_N_TRAIN,
    n_test: int = DEFAULT_N_TEST,
    **kwargs: Any,
) -> tuple[list[AuditRow], dict[str, str]]:
    """Audit several envs (``kwargs`` go to each, as for :func:`audit_env`); one that cannot
    be audited (its data missing, no items to audit, or an error while auditing it) is
    skipped with the reason, and the others' rows are kept. An argument an env refuses
    (``EnvArgumentError``: a misspelt name, a bad value) is raised before any env is audited."""
    import tomgym
    from tomgym.data import DamagedDataError, MissingDataError
    from tomgym.env import EnvArgumentError

    for env_id in env_ids:  # a misspelt or bad argument is the command's mistake: said first
        try:
            tomgym.make(env_id, **kwargs)
        except EnvArgumentError:
            raise
        except Exception:
            continue  # missing data and the like: skipped below, with the reason
    rows, skipped = [], {}
    for env_id in env_ids:
        try:
            rows.append(audit_env(env_id, n_train=n_train, n_test=n_test, **kwargs))
        except DamagedDataError as exc:
            skipped[env_id] = f"data damaged: {exc}"
        except MissingDataError as exc:
            skipped[env_id] = f"data missing: {exc}"
        except NoAuditItemsError as exc:
            skipped[env_id] = str(exc)
        except Exception as exc:  # one env's fault; the rows already computed are kept
            logger.debug("auditing %s failed", env_id, exc_info=True)
            skipped[env_id] = f"failed: {type(exc).__name__}: {exc}"
    return rows, skipped


# --- tables ----------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def audit_table(rows: Sequence[AuditRow], baselines: Sequence[str] = BASELINES) -> str:
    """A Markdown table: one row per env, accuracies in percent, the shortcut share last."""
    short = [b.removeprefix("heuristic:") for b in baselines]
    head = ["env", "test items", "n", "chance", *short, "probe", "oracle", "best", "best 95% CI"]
    head.append("share")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        best, _ = r.best_shortcut
        cells = [
            r.env_id,
            r.test_split,
            str(r.n_test) + (f" ({r.test_stories} stories)" if r.test_stories else ""),
            _pct(r.chance),
            *(_pct(r.baselines.get(b)) for b in baselines),
            _pct(r.probe),
            _pct(r.oracle),
            best.removeprefix("heuristic:"),
            "-".join(map(_pct, r.best_ci95)),
            _pct(r.shortcut_share),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def audit_notes(rows: Sequence[AuditRow]) -> list[str]:
    """What the table's cells do not say: a chance level that counts free-text items as 0, an
    oracle column that is the gold labels copied, a probe left out and why."""
    notes = []
    for r in rows:
        if r.free_text_items:
            notes.append(
                f"chance on {r.env_id}: its {r.free_text_items} free-text test items count as 0 "
                "(an open answer is not won by guessing; `tomgym eval` gives such an env no "
                "chance level)"
            )
        if r.oracle_gold_answers:
            notes.append(
                f"oracle on {r.env_id}: the gold answer copied on {r.oracle_gold_answers} of "
                f"{r.n_test} items (no simulator for {r.family}), so its column is the labels'"
            )
        if r.probe is None and r.probe_note:
            notes.append(f"probe on {r.env_id}: {r.probe_note}")
        for spec, count in r.fallbacks.items():
            notes.append(
                f"{spec.removeprefix('heuristic:')} on {r.env_id}: its rule does not apply to "
                f"{count} of {r.n_test} items, where it gives a fixed answer (the first "
                "candidate, or yes); its column there measures that answer, not its shortcut"
            )
    return notes


__all__ = [
    "BASELINES",
    "AuditRow",
    "audit_env",
    "audit_envs",
    "audit_notes",
    "audit_table",
    "chance_level",
    "probe_accuracy",
    "split_items",
]
