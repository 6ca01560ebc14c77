"""The lists in tests/conftest.py that mark tests slow name files and tests that exist.

A file moved or renamed under an entry silently lands in `make check`'s fast suite: when the
benchmark suite's tests moved from tests/bench to benchmarks/tests, the load test and the
suite's subprocess tests kept running in the edit loop (issue 43: `make check` at 4.5 min)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONFTEST = REPO / "tests" / "conftest.py"


def _literal(name: str) -> object:
    """The value of a module-level literal assignment in tests/conftest.py, read without
    importing it (importing would run its set-up a second time)."""
    for node in ast.parse(CONFTEST.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise AssertionError(f"tests/conftest.py has no {name}")


def _defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    }


def test_every_slow_path_exists():
    slow_paths = _literal("SLOW_PATHS")
    assert isinstance(slow_paths, tuple)
    missing = [p for p in slow_paths if not (REPO / p).exists()]
    assert not missing, f"SLOW_PATHS in tests/conftest.py names paths that do not exist: {missing}"


def test_every_slow_test_exists():
    slow_tests = _literal("SLOW_TESTS")
    assert isinstance(slow_tests, set)
    _assert_tests_exist("SLOW_TESTS", sorted(slow_tests))


def test_every_test_started_first_exists():
    # a renamed long test would quietly go back to its collection place, maybe the last minute
    start_first = _literal("START_FIRST")
    assert isinstance(start_first, tuple)
    _assert_tests_exist("START_FIRST", start_first)


def _assert_tests_exist(listed_in: str, node_ids: Iterable[str]) -> None:
    missing = []
    for node_id in node_ids:
        path, _, name = node_id.partition("::")
        file = REPO / path
        if not file.is_file() or name not in _defined_tests(file):
            missing.append(node_id)
    assert not missing, f"{listed_in} in tests/conftest.py names tests that do not exist: {missing}"
