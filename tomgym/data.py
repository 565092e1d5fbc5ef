"""The data root: where the authors' dataset releases live, what each env needs, and how to get it.

The project ships no data; loaders read the original release files under :func:`data_root`.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tarfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tomgym.items import ItemError, ToMItem, validate_item

ENV_VAR = "TOMGYM_DATA"


class MissingDataError(FileNotFoundError):
    """A release file an env needs is not under the data root; the message says how to fix it."""

    @property
    def brief(self) -> str:
        """Which file of which release is missing, without the advice (for one-line notes)."""
        return str(self).split(" (data root", 1)[0]


class DamagedDataError(MissingDataError):
    """A release file is under the data root but cannot serve its items (not valid JSON, not
    the release's layout, no records): a truncated download or a placeholder. As a missing
    file, it leaves the env unusable (``--skip-missing`` leaves such an env out too)."""


def damaged(path: Path, problem: str) -> DamagedDataError:
    """The error for a release file that ``problem`` says is damaged, with what to do."""
    return DamagedDataError(
        f"{path} {problem}: the file may be truncated or a placeholder; `tomgym data status` "
        "checks it against the release's checksum, and `tomgym data fetch` (or a fresh copy "
        "from the authors) replaces it"
    )


def read_release_text(path: Path) -> str:
    """A release file's text, or a :class:`DamagedDataError` naming the line that is not
    UTF-8."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise damaged(path, f"is not UTF-8 text (line {line}, byte {exc.start + 1})") from None


def read_release_json(path: Path) -> Any:
    """A release file's JSON, or a :class:`DamagedDataError` naming the file and the place."""
    text = read_release_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise damaged(
            path, f"is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None


class DownloadError(RuntimeError):
    """A dataset could not be downloaded (offline, moved, or a checksum mismatch)."""


@dataclass(frozen=True)
class Dataset:
    """One public release: where its authors publish it and under which terms."""

    name: str
    title: str
    homepage: str
    license: str
    eval_only: bool = False


@dataclass(frozen=True)
class ReleaseFile:
    """One file of a release, relative to the data root."""

    dataset: str
    relpath: str
    records: int | None
    envs: tuple[str, ...]
    url: str | None = None
    sha256: str | None = None
    archive_member: str | None = None  # the file sits inside the archive at ``url``


DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in (
        Dataset(
            "hitom",
            "Hi-ToM (He et al. 2023)",
            "https://github.com/ying-hui-he/Hi-ToM_dataset",
            "Apache-2.0",
        ),
        Dataset(
            "tomi",
            "ToMi (Le et al. 2019; Clever-Hans correction: Shapira et al. 2023)",
            "https://github.com/facebookresearch/ToMi (original); the Clever-Hans "
            "version from https://github.com/salavi/Clever_Hans_or_N-ToM (Shapira et al. 2023)",
            "CC-BY-NC-4.0",
        ),
        Dataset(
            "exploretom",
            "ExploreToM (Sclar et al. 2024)",
            "https://huggingface.co/datasets/facebook/ExploreToM",
            "CC-BY-NC-4.0",
        ),
        Dataset(
            "opentom",
            "OpenToM (Xu et al. 2024)",
            "https://huggingface.co/datasets/SeacowX/OpenToM",
            "CC-BY-NC-4.0",
            eval_only=True,
        ),
        Dataset(
            "fantom",
            "FANToM (Kim et al. 2023)",
            "https://github.com/skywalker023/fantom",
            "see the authors' terms",
            eval_only=True,
        ),
    )
}

_HITOM = (
    "ToM-HiToM-Original-v0",
    "ToM-HiToM-Original-MC-v0",
    *(f"ToM-HiToM-Original-O{order}-v0" for order in range(5)),
)
_TOMI = ("ToM-ToMi-Original-v0",)
_EXPLORE = ("ToM-ExploreToM-v0", "ToM-ExploreToM-Infilled-v0")
_OPENTOM = ("ToM-OpenToM-v0",)
_OPENTOM_GENRE_ENVS = {
    "attitude": "ToM-OpenToM-Attitude-v0",
    "location_cg": "ToM-OpenToM-CoarseLoc-v0",
    "location_fg": "ToM-OpenToM-FineLoc-v0",
    "multihop": "ToM-OpenToM-Multihop-v0",
}
_OPENTOM_HF = "https://huggingface.co/datasets/SeacowX/OpenToM/resolve/main/"


def _opentom(name: str, records: int, sha: str) -> ReleaseFile:
    """A file of OpenToM: a genre's questions (the all-genre env and that genre's), or the
    story metadata every OpenToM env reads."""
    genre = [env for prefix, env in _OPENTOM_GENRE_ENVS.items() if name.startswith(prefix)]
    envs = (*_OPENTOM, *genre) if genre else (*_OPENTOM, *_OPENTOM_GENRE_ENVS.values())
    return ReleaseFile("opentom", f"opentom/{name}", records, envs, _OPENTOM_HF + name, sha)


RELEASE_FILES: tuple[ReleaseFile, ...] = (
    ReleaseFile(
        "hitom",
        "hitom/Hi-ToM_data.json",
        1200,
        _HITOM,
        "https://raw.githubusercontent.com/ying-hui-he/Hi-ToM_dataset/main/Hi-ToM_data.json",
        "1c4077bbcdf815b91dbb791b60dbce3920a98bd63317954ebf94a532d43cd573",
    ),
    ReleaseFile(
        "tomi",
        "tomi/clever_hans/train.txt",
        5994,
        _TOMI,
        None,
        "8912fab16260877bed2ae5ba4be89e20d9438d2bd1f5abac0c59e460d85c5a41",
    ),
    ReleaseFile(
        "tomi",
        "tomi/clever_hans/train.trace",
        5994,
        _TOMI,
        None,
        "0b7870807642dc7a717864320318011f0b09fe0ac2cbf667cb36e3bc1788aa10",
    ),
    ReleaseFile(
        "tomi",
        "tomi/clever_hans/val.txt",
        5994,
        _TOMI,
        None,
        "7c89bee2849d5e595f2d64760ba081940c601f612af056af7226ca6c1f498dee",
    ),
    ReleaseFile(
        "tomi",
        "tomi/clever_hans/val.trace",
        5994,
        _TOMI,
        None,
        "758009b6ae02a209a18722bc72ebb5c3c9425da337556fb4664f448084a41359",
    ),
    ReleaseFile(
        "tomi",
        "tomi/fb/fb_all_train.txt",
        5994,
        _TOMI,
        None,
        "59cb2918e6f82322ee6a8e5d34da2f48b903354260ab75c09f64848e4a77363e",
    ),
    ReleaseFile(
        "tomi",
        "tomi/fb/fb_all_train.trace",
        5994,
        _TOMI,
        None,
        "ed44ea23e432d8255cab88efacf46b7a0a33941ed92fefad3c7037442ca796aa",
    ),
    ReleaseFile(
        "tomi",
        "tomi/fb/fb_all_val.txt",
        5994,
        _TOMI,
        None,
        "b7ca6792e69b01063e41874896c9968b46871b91e0cbdb73ac808c9779735640",
    ),
    ReleaseFile(
        "tomi",
        "tomi/fb/fb_all_val.trace",
        5994,
        _TOMI,
        None,
        "27a3cfd9475e90426bcd5028d808c7a2316a3450a759c0c1391babc5d5a9fd89",
    ),
    # A CSV conversion of the spreadsheet copy; the Hugging Face release is parquet.
    ReleaseFile(
        "exploretom",
        "exploretom/explore_tom.csv",
        13309,
        _EXPLORE,
        None,
        "a2184e3eaa53dc80f9ad6c821f23b3623f5680aba55fd73a1ec22556a23f7e8a",
    ),
    _opentom(
        "attitude.json", 596, "8c1d0cdd68d60ea6534700ae3d67436fb9a5b6c9cfab84c0d70185c9222e4047"
    ),
    _opentom(
        "location_cg_fo.json",
        1192,
        "4486b3a7dcc029c3e2c05a242d9e6f2e8175a08590253c4ebecc228fe4b394da",
    ),
    _opentom(
        "location_cg_so.json",
        1192,
        "ef3a711096b660a3a23bf9103d1a2b9babf9b57ed516f233d46f65fd8079f2b3",
    ),
    _opentom(
        "location_fg_fo_new.json",
        2384,
        "957b153a8dd55aa1495a82bda59397004bbf83c87c1039bd917ee6d02f7f29c2",
    ),
    _opentom(
        "location_fg_so_new.json",
        1192,
        "cddb5437c2697be99ce3642240b96af513f69ee06be7fe975b5ce02f8bfcfeb8",
    ),
    _opentom(
        "multihop_fo.json", 3576, "fcd394c8aa4d080d0d5a8298dd62504dea7435935db7c7887792cd623f6dc121"
    ),
    _opentom(
        "multihop_so.json", 3576, "f7fdc822dc5cc806b07735013a89a2e1879484010661523defbdcd8ef13d9561"
    ),
    _opentom(
        "meta_data.json", 596, "db3a568059c665fcf924f67af00d77bcce8a6a587b034fa0476b954a66e259c8"
    ),
    _opentom(
        "meta_data_long.json",
        100,
        "6008fed8ef8f195a20a239356425278d50a7e2a54cab6b4685730c2140f199d4",
    ),
    ReleaseFile(
        "fantom",
        "fantom/fantom_v1.json",
        None,
        ("ToM-FANToM-v0", "ToM-FANToM-List-v0"),
        "https://storage.googleapis.com/ai2-mosaic-public/projects/fantom/fantom.tar.gz",
        None,
        archive_member="fantom_v1.json",
    ),
)

_override: Path | None = None


_environ_before: str | None = None
"""``$TOMGYM_DATA`` as it was before ``set_data_root`` wrote it; None: it was unset."""


def set_data_root(path: str | os.PathLike[str] | None) -> None:
    """Use ``path`` as the data root for this process and the processes it starts (None: back
    to the env var as it was, or the default).

    The root is written to ``$TOMGYM_DATA`` too: a worker started with ``spawn`` (an async
    ``gym.make_vec`` on macOS, Ray, DataLoader workers) imports tomgym afresh and read the
    default root, failing on every release env. ``set_data_root(None)`` puts the variable back
    unless something else has changed it since."""
    global _override, _environ_before
    if path is None:
        if _override is not None and os.environ.get(ENV_VAR) == str(_override.absolute()):
            if _environ_before is None:
                os.environ.pop(ENV_VAR, None)
            else:
                os.environ[ENV_VAR] = _environ_before
        _override = None
        return
    if _override is None:
        _environ_before = os.environ.get(ENV_VAR)
    _override = Path(path).expanduser()
    os.environ[ENV_VAR] = str(_override.absolute())


def data_root_origin() -> str:
    """How the current root was chosen: ``set_data_root()``, ``$TOMGYM_DATA`` or the default."""
    if _override is not None:
        return "set_data_root() / --data-dir"
    if os.environ.get(ENV_VAR):
        return f"${ENV_VAR}"
    return "the default per-user cache"


def data_root() -> Path:
    """The data root: ``set_data_root()`` > ``$TOMGYM_DATA`` > ``$XDG_CACHE_HOME/tomgym/data``."""
    if _override is not None:
        return _override
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "tomgym" / "data"


def release_file(relpath: str) -> ReleaseFile | None:
    """The table entry for ``relpath`` (None when the file is not in the table)."""
    return next((f for f in RELEASE_FILES if f.relpath == relpath), None)


def require_file(env_id: str, dataset: str, relpath: str) -> Path:
    """``relpath`` under the data root, or a :class:`MissingDataError` saying what to do."""
    root = data_root()
    path = root / relpath
    if path.is_file():
        return path
    info = DATASETS.get(dataset)
    where = info.homepage if info else "the authors' repository"
    entry = release_file(relpath)
    fetch = (
        f" or run `tomgym data fetch {dataset}` (from Python: "
        f"`tomgym.data.fetch_dataset({dataset!r})`)"
        if entry and entry.url
        else ""
    )
    raise MissingDataError(
        f"{env_id} needs the file {relpath} of the {info.title if info else dataset} release, "
        f"but {path} does not exist (data root {root}, from {data_root_origin()}). "
        f"The authors publish it at {where}{fetch}. Put the release under the data root "
        f"keeping its file names, or point the root at a copy: TOMGYM_DATA=/path/to/data "
        f"or --data-dir /path/to/data."
    )


@dataclass(frozen=True)
class FileStatus:
    """Whether one release file is present under the root, and what it holds."""

    dataset: str
    relpath: str
    path: Path
    present: bool
    expected_records: int | None
    sha256: str | None
    checksum_ok: bool | None  # None: absent, or no known checksum
    envs: tuple[str, ...]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def data_status(root: Path | None = None, *, checksums: bool = True) -> list[FileStatus]:
    """One record per release file: present?, expected records, sha256, which envs need it."""
    base = root if root is not None else data_root()
    out: list[FileStatus] = []
    for f in RELEASE_FILES:
        path = base / f.relpath
        present = path.is_file()
        digest = sha256_of(path) if present and checksums else None
        ok = None if digest is None or f.sha256 is None else digest == f.sha256
        out.append(FileStatus(f.dataset, f.relpath, path, present, f.records, digest, ok, f.envs))
    return out


def _reachable(url: str, timeout: float) -> bool:
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def fetch_dataset(
    name: str,
    root: Path | None = None,
    *,
    timeout: float = 5.0,
    base_url: str | None = None,
) -> list[Path]:
    """Download ``name``'s release files from the authors' public URLs into ``root``.

    Checksums are verified where known. Offline, it fails within ``timeout`` seconds
    with a message saying which files to put where. ``base_url`` replaces each file's
    URL by ``base_url + relpath`` (mirrors, tests).
    """
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    base = root if root is not None else data_root()
    wanted = [f for f in RELEASE_FILES if f.dataset == name]
    manual = "; ".join(str(base / f.relpath) for f in wanted)
    help_text = (
        f"Download the {DATASETS[name].title} release from {DATASETS[name].homepage} "
        f"and put its files at: {manual}"
    )
    done: list[Path] = []
    for f in wanted:
        url = (base_url.rstrip("/") + "/" + f.relpath) if base_url else f.url
        target = base / f.relpath
        if target.is_file() and (f.sha256 is None or sha256_of(target) == f.sha256):
            done.append(target)
            continue
        if url is None:
            raise DownloadError(f"{f.relpath} has no known direct download URL. {help_text}")
        if not _reachable(url, timeout):
            raise DownloadError(f"cannot reach {url} (offline?). {help_text}")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".part")
        try:
            with urllib.request.urlopen(url, timeout=timeout) as resp, tmp.open("wb") as out:
                while block := resp.read(1 << 20):
                    out.write(block)
        except (urllib.error.URLError, OSError) as exc:
            tmp.unlink(missing_ok=True)
            raise DownloadError(f"download of {url} failed: {exc}. {help_text}") from exc
        if f.archive_member:
            _extract_member(tmp, f.archive_member, target)
            tmp.unlink()
        else:
            tmp.replace(target)
        if f.sha256 and sha256_of(target) != f.sha256:
            target.unlink()
            raise DownloadError(f"{url}: checksum mismatch (the release changed?). {help_text}")
        done.append(target)
    return done


def _extract_member(archive: Path, member: str, target: Path) -> None:
    with tarfile.open(archive) as tar:
        found = next((m for m in tar.getmembers() if m.name.endswith(member) and m.isfile()), None)
        if found is None:
            raise DownloadError(f"{archive.name} holds no {member}")
        fh = tar.extractfile(found)
        assert fh is not None
        target.write_bytes(fh.read())


def release_items(
    path: Path,
    records: Iterable[tuple[str, Callable[[], Mapping[str, Any]]]],
    allow_empty: bool = False,
) -> list[ToMItem]:
    """Build and validate items from a release file, all or nothing.

    ``records`` yields ``(record label, make)`` pairs; a record that cannot be converted or
    fails validation raises :class:`ItemError` naming the file and the record. A file that
    yields no item is damaged (:class:`DamagedDataError`) unless ``allow_empty``.
    """
    items: list[ToMItem] = []
    seen: set[str] = set()
    for label, make in records:
        where = f"{path} record {label}"
        try:
            fields = make()
        except ItemError:
            raise
        except (KeyError, ValueError, TypeError, IndexError, AttributeError, SyntaxError) as exc:
            detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise ItemError(f"{where}: cannot read the record: {detail}") from None
        item = validate_item(fields, where)
        if item.id in seen:
            raise ItemError(f"{where}: duplicate item id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items and not allow_empty:
        raise damaged(path, "holds no records")
    return items
