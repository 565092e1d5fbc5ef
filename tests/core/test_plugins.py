"""Plugin discovery through a real installed distribution's entry points."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tomgym
from tomgym.plugins import load_plugins
from tomgym.registry import unregister_tom_env

GROUP = "tomgym.envs"
GOOD = """
from tomgym import register_tom_env

def register():
    register_tom_env(
        "Plugin-ToM-v0",
        items=[{"id": "p0", "story": "1 Ann put the pen in the box.",
                "question": "Where is the pen?", "answer": "box", "candidates": ["box", "bag"]}],
        family="plugin",
    )
"""
BROKEN = 'raise RuntimeError("this plugin is broken on purpose")\n'
CLASH = """
from tomgym import register_tom_env

def register():
    item = {"id": "c0", "story": "1 Ann put the pen in the bag.", "question": "Where is the pen?",
            "answer": "bag", "candidates": ["box", "bag"]}
    register_tom_env("Clash-Own-ToM-v0", items=[item], family="plugin")
    register_tom_env("Plugin-ToM-v0", items=[item], family="plugin")
"""
OVERWRITES = """
from tomgym import register_tom_env

def register():
    item = {"id": "o0", "story": "1 Ann put the pen in the bag.", "question": "Where?",
            "answer": "bag", "candidates": ["box", "bag"]}
    register_tom_env("Plugin-ToM-v0", items=[item], family="plugin", overwrite=True)
    raise RuntimeError("half way")
"""


def install_distribution(
    directory: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    group: str,
    modules: dict[str, str],
    entry_points: dict[str, str],
) -> None:
    """A real distribution ``name`` in ``directory`` (its modules and a dist-info with
    ``entry_points`` in ``group``), put on ``sys.path`` with plugins switched on."""
    for module, source in modules.items():
        (directory / f"{module}.py").write_text(source, encoding="utf-8")
    info = directory / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8"
    )
    lines = "".join(f"{key} = {target}\n" for key, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{group}]\n{lines}", encoding="utf-8")
    monkeypatch.syspath_prepend(str(directory))
    monkeypatch.delenv("TOMGYM_NO_PLUGINS", raising=False)


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A distribution ``tomgym-testplugins`` with one good and one broken entry point."""
    modules = {
        "tomgym_testplugin_good": GOOD,
        "tomgym_testplugin_broken": BROKEN,
        "tomgym_testplugin_clash": CLASH,
        "tomgym_testplugin_overwrites": OVERWRITES,
    }
    entry_points = {
        "good": "tomgym_testplugin_good:register",
        "broken": "tomgym_testplugin_broken",
        "zclash": "tomgym_testplugin_clash:register",
        "zoverwrites": "tomgym_testplugin_overwrites:register",
    }
    install_distribution(tmp_path, monkeypatch, "tomgym-testplugins", GROUP, modules, entry_points)
    yield tmp_path
    unregister_tom_env("Plugin-ToM-v0")
    unregister_tom_env("Clash-Own-ToM-v0")
    for name in ("tomgym_testplugin_good", "tomgym_testplugin_broken",
                 "tomgym_testplugin_clash", "tomgym_testplugin_overwrites"):  # fmt: skip
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_good_plugin_loads_and_broken_one_is_isolated(
    installed: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="tomgym.plugins"):
        results = {r.name: r for r in load_plugins(GROUP, force=True)}
    good, broken = results["good"], results["broken"]
    assert good.ok and good.registered == ("Plugin-ToM-v0",)
    assert good.distribution == "tomgym-testplugins"
    assert not broken.ok and "RuntimeError: this plugin is broken on purpose" in (
        broken.error or ""
    )
    assert "'broken'" in caplog.text and "broken on purpose" in caplog.text
    env = tomgym.make("Plugin-ToM-v0")
    prompt, _ = env.reset(options={"index": 0})
    assert "Where is the pen?" in prompt
    # loading again skips what already loaded instead of failing on a duplicate ID
    again = {r.name: r for r in load_plugins(GROUP)}
    assert again["good"].skipped and not again["broken"].ok


def test_a_plugin_taking_another_ones_env_id_fails_whole_naming_the_first(
    installed: Path,
) -> None:
    """Review: a second package registering an env ID the first had was refused with only
    "already registered (pass overwrite=True ...)", naming neither package, and the envs it
    had registered before failing stayed, as if the plugin had loaded."""
    results = {r.name: r for r in load_plugins(GROUP, force=True)}
    clash = results["zclash"]
    assert results["good"].ok and not clash.ok
    owner = "Plugin-ToM-v0 was registered by plugin 'good' of the package tomgym-testplugins"
    assert owner in (clash.error or "")
    assert "Clash-Own-ToM-v0" not in {s.id for s in tomgym.list_envs()}
    assert not results["zoverwrites"].ok  # it replaced the env, then failed: undone
    env = tomgym.make("Plugin-ToM-v0")  # the first plugin's env, untouched
    env.reset(options={"index": 0})
    assert env.current_item is not None and env.current_item.id == "p0"


EXITS = "import sys\n\ndef register():\n    sys.exit(3)\n"
WARNS = "import warnings\n\ndef register():\n    warnings.warn('column x is not mapped')\n"


def test_a_plugin_calling_sys_exit_fails_alone_and_one_warning_names_its_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Plugin audit: a plugin's sys.exit(3) ended `import tomgym` (and every command) with
    status 3 and not a word."""
    install_distribution(
        tmp_path,
        monkeypatch,
        "tomgym-testexits",
        "tomgym.test-exits",
        {"tomgym_testplugin_exits": EXITS, "tomgym_testplugin_warns": WARNS},
        {"exits": "tomgym_testplugin_exits:register", "warns": "tomgym_testplugin_warns:register"},
    )
    with caplog.at_level(logging.WARNING, logger="tomgym.plugins"):
        exits, warns = load_plugins("tomgym.test-exits")
    assert not exits.ok and exits.error == "SystemExit: 3"
    # a plugin's warning is logged once, naming the plugin (it printed in Python's two-line
    # form at every command's start, naming neither)
    assert warns.ok
    assert (
        "tomgym plugin 'warns' (tomgym_testplugin_warns:register, from tomgym-testexits): "
        "UserWarning: column x is not mapped" in caplog.text
    )
    for name in ("tomgym_testplugin_exits", "tomgym_testplugin_warns"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_plugins_can_be_switched_off(installed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOMGYM_NO_PLUGINS", "1")
    assert load_plugins(GROUP, force=True) == []


def test_no_entry_points_no_results() -> None:
    assert load_plugins("tomgym.no-such-group") == []


REPLACER = """
from tomgym import register_tom_env

def register():
    item = {"id": "r0", "story": "1 Ann put the pen in the bag.", "question": "Where?",
            "answer": "bag", "candidates": ["box", "bag"]}
    register_tom_env("ToM-HiToM-O4-v0", items=[item], family="plugin", overwrite=True)
"""


def test_a_plugin_replacing_a_built_in_env_is_said_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """User audit: a plugin's overwrite=True of ToM-HiToM-O4-v0 (documented as allowed)
    passed without a word, and the held-out benchmark served one item of the plugin's."""
    from tomgym.registry import registry_state, restore_registry

    group = "tomgym.envs.test-replacer"
    install_distribution(
        tmp_path,
        monkeypatch,
        "tomgym-testreplacer",
        group,
        {"tomgym_testplugin_replacer": REPLACER},
        {"replacer": "tomgym_testplugin_replacer:register"},
    )
    state = registry_state()
    try:
        with caplog.at_level(logging.WARNING, logger="tomgym.plugins"):
            (result,) = load_plugins(group, force=True)
        assert result.ok
        assert tomgym.get_spec("ToM-HiToM-O4-v0").family == "plugin"
    finally:
        restore_registry(state)
        monkeypatch.delitem(sys.modules, "tomgym_testplugin_replacer", raising=False)
    assert "'replacer'" in caplog.text
    assert "changed envs registered before it: ToM-HiToM-O4-v0 (replaced)" in caplog.text
    assert tomgym.get_spec("ToM-HiToM-O4-v0").family == "hitom"


MODULE_PLUGIN = """
from tomgym import register_tom_env

register_tom_env(
    "Module-Plugin-ToM-v0",
    items=[{"id": "m0", "story": "1 Ann put the pen in the box.", "question": "Where is the pen?",
            "answer": "box", "candidates": ["box", "bag"]}],
    family="plugin",
)
"""


def test_force_reruns_loaded_plugins_in_place_of_failing_on_their_own_ids(
    installed: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Noticed in a plugin audit: ``load_plugins(force=True)`` ran a plugin that had loaded
    again on top of its own envs, and it failed on their IDs ("already registered"). Now the
    envs it registered are removed first, and a module plugin is reloaded (its import is what
    registers), without the "changed envs registered before it" warning."""
    group = "tomgym.envs.test-rerun"
    (installed / "rerun").mkdir()
    install_distribution(
        installed / "rerun",
        monkeypatch,
        "tomgym-testrerun",
        group,
        {"tomgym_testplugin_module": MODULE_PLUGIN, "tomgym_testplugin_good": GOOD},
        {"callable": "tomgym_testplugin_good:register", "module": "tomgym_testplugin_module"},
    )
    try:
        first = {r.name: r for r in load_plugins(group, force=True)}
        assert all(r.ok and not r.skipped for r in first.values()), first
        with caplog.at_level(logging.WARNING, logger="tomgym.plugins"):
            again = {r.name: r for r in load_plugins(group, force=True)}
        assert again["callable"].ok and again["callable"].registered == ("Plugin-ToM-v0",)
        assert again["module"].ok and again["module"].registered == ("Module-Plugin-ToM-v0",)
        assert "changed envs" not in caplog.text and "failed" not in caplog.text
        tomgym.make("Module-Plugin-ToM-v0").reset(options={"index": 0})
    finally:
        unregister_tom_env("Module-Plugin-ToM-v0")
        monkeypatch.delitem(sys.modules, "tomgym_testplugin_module", raising=False)
