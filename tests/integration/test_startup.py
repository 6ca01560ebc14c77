"""`remem --help` and `remem --version` answer without importing the library's heavy parts
(issue 12: pydantic config, numpy and httpx made `--help` take 0.8 s). The test checks what
gets imported, not the clock, so a loaded machine cannot make it flaky."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pydantic", "httpx", "faiss", "remem.config", "remem.engine", "remem.store")

PROBE = """
import json, sys
sys.argv = ["remem", *json.loads(sys.argv[1])]
import remem.cli
try:
    remem.cli.main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def modules_loaded_by(args: list[str]) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    last = proc.stderr.strip().splitlines()[-1]
    return set(json.loads(last))


def heavy_in(loaded: set[str], heavy: tuple[str, ...]) -> list[str]:
    return sorted(m for m in loaded if m.split(".")[0] in heavy or m.startswith(heavy))


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_nothing_heavy(args):
    """Not even typer or rich (~0.2 s together): `--help` prints typer's kept text."""
    loaded = modules_loaded_by(args)
    heavy = heavy_in(loaded, (*HEAVY, "typer", "rich", "remem.types"))
    assert heavy == [], f"`remem {' '.join(args)}` imported {heavy[:10]}"
    assert "remem.cli" in loaded  # the probe did run the command


@pytest.mark.parametrize("args", [["search", "--help"], ["memory", "store", "--help"]])
def test_a_commands_help_imports_nothing_heavy_of_remems(args):
    """Typer itself converts a command's options with pydantic (typer._adapters) once a
    subcommand is parsed, so pydantic is not counted here; the rest still must not load."""
    loaded = modules_loaded_by(args)
    heavy = heavy_in(loaded, tuple(h for h in HEAVY if h != "pydantic"))
    assert heavy == [], f"`remem {' '.join(args)}` imported {heavy[:10]}"
    assert "remem.cli" in loaded  # the probe did run the command


def test_import_remem_stays_light_until_a_heavy_name_is_used():
    code = (
        "import sys, remem; light = 'numpy' not in sys.modules and 'pydantic' not in "
        "sys.modules; remem.Memory; print(light, 'remem.engine' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.split() == ["True", "True"], proc.stderr


def test_every_public_name_resolves():
    import remem

    for name in remem.__all__:
        assert getattr(remem, name) is not None
    assert set(remem.__all__) <= set(dir(remem))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        remem.nope  # noqa: B018


def test_a_small_search_loads_no_client_or_index_builder(tmp_path):
    """A `remem search` on a small store needs numpy, pydantic and the model; not httpx (the
    remote clients, ~0.2 s), faiss (the ANN graph, ~0.2 s) or filelock (snapshot builds)."""
    db = tmp_path / "small.db"
    subprocess.run(
        [sys.executable, "-m", "remem.cli", "--db", str(db), "add", "I moved to Lisbon"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    loaded = modules_loaded_by(["--db", str(db), "search", "where do I live"])
    assert "remem.engine" in loaded  # it did search
    assert heavy_in(loaded, ("httpx", "faiss", "filelock")) == []


# Every re.compile the command makes is recorded before remem is imported; the fact rules'
# patterns (a few hundred, ~1.3 s of compiling on an idle machine) must not be among them
# for a command that reads no text.
COMPILES_PROBE = """
import json, re, sys
compiled = set()
by_remem = []  # the patterns remem's own modules compiled
_compile = re.compile
def recording(pattern, flags=0):
    compiled.add(pattern)
    if sys._getframe(1).f_globals.get("__name__", "").startswith("remem."):
        by_remem.append(pattern)
    return _compile(pattern, flags)
re.compile = recording
sys.argv = ["remem", *json.loads(sys.argv[1])]
import remem.cli
try:
    remem.cli.main()
except SystemExit:
    pass
re.compile = _compile
from remem.facts import rules_en, rules_homes, rules_owned, rules_things, rules_zh
tables = (rules_en.RULES, rules_homes.RULES_EN, rules_owned.RULES_EN, rules_owned.RULES_ZH,
          rules_things.RULES_EN, rules_things.RULES_ZH, rules_zh.RULES)
sources = {getattr(r, "source", None) or r.pattern.pattern for t in tables for r in t}
print(json.dumps([len(sources), len(sources & compiled), len(by_remem)]), file=sys.stderr)
"""


def rule_patterns_compiled_by(args: list[str]) -> tuple[int, int, int]:
    """(how many fact-rule patterns there are, how many of them ``remem <args>`` compiled,
    how many patterns remem's modules compiled in all)."""
    proc = subprocess.run(
        [sys.executable, "-c", COMPILES_PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    rules, compiled, in_all = json.loads(proc.stderr.strip().splitlines()[-1])
    return rules, compiled, in_all


@pytest.fixture(scope="module")
def small_db(tmp_path_factory) -> str:
    db = tmp_path_factory.mktemp("startup") / "small.db"
    subprocess.run(
        [sys.executable, "-m", "remem.cli", "--db", str(db), "add", "I moved to Lisbon"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return str(db)


@pytest.mark.parametrize(
    "args", [["stats"], ["list"], ["export"], ["config", "show"], ["doctor"], ["mcp", "--help"]]
)
def test_a_command_that_reads_no_text_compiles_no_fact_rule(small_db, args):
    """The rule tables are compiled when first matched (``remem.facts.rule.Rule.pattern``),
    not when the engine imports them: `remem stats` used to spend ~1.3 of its 2.6 s there.
    The other pattern tables (``remem.text.lazy_re``) too: remem compiled ~570 patterns for
    `remem stats`, now a few dozen at most (those built inside functions run at import)."""
    rules, compiled, in_all = rule_patterns_compiled_by(["--db", small_db, *args])
    assert rules > 100  # the probe found the tables
    assert compiled == 0, f"`remem {' '.join(args)}` compiled {compiled} of {rules} fact rules"
    assert in_all <= 40, f"`remem {' '.join(args)}` compiled {in_all} patterns"


def test_a_command_that_reads_text_still_compiles_the_rules(small_db):
    """Laziness only moves the compiling: adding a memory reads its facts with the rules."""
    _rules, compiled, _ = rule_patterns_compiled_by(["--db", small_db, "add", "I work at Acme"])
    assert compiled > 0  # a memory's facts are read with the rules: they were compiled


def test_stats_loads_no_blas_thread_control(small_db):
    """threadpoolctl (~30 ms to import) limits BLAS threads around a search's matrix product
    and a bulk embedding; a command doing neither leaves it unloaded."""
    loaded = modules_loaded_by(["--db", small_db, "stats"])
    assert "remem.engine" in loaded  # the command did open the store
    assert heavy_in(loaded, ("threadpoolctl", "httpx", "faiss")) == []
