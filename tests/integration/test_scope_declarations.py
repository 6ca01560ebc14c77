"""scopes.definitions: declared scopes with descriptions, validated, shown by `remem stats`
(also for one scope with --scope) and by the memory_stats tool."""

from __future__ import annotations

import json
import subprocess

import pytest

from cli_inproc import remem as run_remem
from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import ConfigError

DEFINITIONS = {"project:apollo": "the Apollo launch team", "user:ann": "what Ann told us"}


def remem(*args: str, db, config_file) -> subprocess.CompletedProcess:
    """The console script in this process (tests/cli_inproc.py)."""
    env = {
        "REMEM_DB": str(db),
        "REMEM_CONFIG": str(config_file),
        "REMEM_EMBED__PROVIDER": "none",
    }
    return run_remem(args, env=env)


def test_definitions_are_validated_naming_the_scope():
    with pytest.raises(ConfigError, match="launch:apollo"):
        Config.load(env={}, overrides={"scopes.definitions": {"launch:apollo": "x"}})
    with pytest.raises(ConfigError, match="project:apollo"):
        Config.load(env={}, overrides={"scopes.definitions": {"project:apollo": "  "}})


def test_stats_show_declared_scopes_and_one_scope(tmp_path):
    db, config_file = tmp_path / "s.db", tmp_path / "remem.toml"
    config_file.write_text(
        '[scopes.agents]\nbot = ["global", "project:apollo"]\n[scopes.definitions]\n'
        + "".join(f'"{k}" = "{v}"\n' for k, v in DEFINITIONS.items())
    )
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(db, config) as mem:  # the data in-process; only the commands under test run
        for text, scope in (
            ("Liftoff is at 9:30", "project:apollo"),
            ("Fuel check on Monday", "project:apollo"),
            ("Ann likes tea", "user:ann"),
            ("Unrelated", "global"),
        ):
            mem.add(text, kind="memory", scope=scope, category="fact")
    whole = json.loads(remem("stats", "--json", db=db, config_file=config_file).stdout)
    assert whole["declared_scopes"] == {
        "project:apollo": {"description": "the Apollo launch team", "records": 2},
        "user:ann": {"description": "what Ann told us", "records": 1},
    }
    table = remem("stats", db=db, config_file=config_file).stdout
    assert "the Apollo launch team (2 records)" in table
    one = json.loads(
        remem("stats", "--scope", "project:apollo", "--json", db=db, config_file=config_file).stdout
    )
    assert one["scope"] == "project:apollo" and one["description"] == "the Apollo launch team"
    assert one["records"] == 2 and one["memories"] == {"current": 2, "superseded": 0}
    assert one["by_category"] == {"fact": 2}
    plain = remem("stats", "--scope", "project:apollo", db=db, config_file=config_file).stdout
    assert "the Apollo launch team" in plain
    agent = remem("memory", "stats", "--agent", "bot", db=db, config_file=config_file)
    assert "  project:apollo: 2  (the Apollo launch team)" in agent.stdout.splitlines()
    bad = remem("stats", "--scope", "apollo", db=db, config_file=config_file)
    assert bad.returncode == 2 and bad.stderr.startswith("error: invalid --scope")
    assert len(bad.stderr.strip().splitlines()) == 1


def test_memory_stats_describes_the_scopes_the_agent_may_read(db_path):
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "scopes.definitions": DEFINITIONS,
            "scopes.agents": {"bot": ["global", "project:apollo"]},
        },
    )
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        mem.add("Liftoff is at 9:30", kind="memory", scope="project:apollo", category="fact")
        stats = mem.tools("bot").call("memory_stats", {})
    assert stats["definitions"] == {"project:apollo": "the Apollo launch team"}  # not user:ann
    assert stats["by_scope"] == {"project:apollo": 1}
