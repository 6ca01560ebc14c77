"""The layer rule of docs/architecture.md, checked on the source: every import (module level
or inside a function) goes to the same layer or one below, and modules import no cycle."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

# Top to bottom. A module belongs to the first layer whose prefix matches its dotted name.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("interfaces", ("remem.cli", "remem.server", "remem.__main__")),
    ("package", ("remem",)),  # remem/__init__.py: the public names
    (
        "engine",
        (
            "remem.engine",
            "remem.engine_facts",
            "remem.engine_turns",
            "remem.async_memory",
            "remem.doctor",
            "remem.transfer",
            "remem.lancedb_import",
            "remem.ops",
            "remem.ports",  # what the whole-store operations ask of the facade
        ),
    ),
    (
        "features",
        (
            "remem.ingest",
            "remem.recall",
            "remem.capture",
            "remem.memories",
            "remem.facts",
            "remem.search",
            "remem.tools",
            "remem.access",
        ),
    ),
    ("building blocks", ("remem.index", "remem.embed", "remem.text", "remem.net")),
    ("store", ("remem.store",)),
    (
        "foundation",
        ("remem.types", "remem.errors", "remem.config", "remem.schemas", "remem.arguments"),
    ),
]


def layer_of(module: str) -> int:
    best, best_len = None, -1
    for rank, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(prefix + ".")
            if matches and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return best


def modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """remem modules this module imports (absolute and relative, at any depth)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # "from pkg import mod" imports pkg.mod when that is a module
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target.startswith("remem") and target != name:
                found.add(target)
    return found


@functools.cache  # parsed once per process: seven tests read it
def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def test_every_module_has_a_layer():
    for name in modules():
        layer_of(name)


def test_no_module_imports_from_a_layer_above_it():
    upward = [
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for name, targets in import_graph().items()
        for target in sorted(targets)
        if layer_of(target) < layer_of(name)
    ]
    assert upward == []


def test_no_import_cycles():
    graph = import_graph()
    # a package's __init__ re-exporting its own submodules is not a cycle of the design
    edges = {
        name: {t for t in targets if not (t.startswith(name + ".") or name.startswith(t + "."))}
        for name, targets in graph.items()
    }
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


@pytest.mark.parametrize("source", ["import remem.engine", "from remem import engine"])
def test_the_checker_sees_imports(tmp_path, source):
    path = tmp_path / "mod.py"
    path.write_text(f"def f():\n    {source}\n", encoding="utf-8")
    assert imports_of("remem.store.mod", path, {"remem", "remem.engine"}) == {"remem.engine"}


def test_only_remem_memories_changes_the_validity_of_a_memory():
    """Curated-memory versions have one owner (issue 42): outside the store backends, which
    implement it, only ``remem.memories`` calls ``set_validity``."""
    callers = sorted(
        name
        for name, path in modules().items()
        if not name.startswith(("remem.store", "remem.memories"))
        and any(
            isinstance(node, ast.Attribute) and node.attr == "set_validity"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    )
    assert callers == []


def test_search_never_imports_the_write_path():
    """The read side does not depend on the write side (issue 42): nothing in
    ``remem.search`` imports ``remem.ingest`` (ingest, queue, indexer, fast lane);
    what both need of the models lives with the models (``remem.embed``)."""
    reaching = sorted(
        f"{name} imports {target}"
        for name, targets in import_graph().items()
        if name.startswith("remem.search")
        for target in targets
        if target.startswith("remem.ingest")
    )
    assert reaching == []


def test_nothing_outside_the_store_imports_a_backend():
    """Everything above the store types against the protocol (issue 42): only ``remem.store``
    itself (``store/open.py`` picks the backend a configuration names) imports a backend's
    package; the rest asks ``open_store`` or takes a ``Store``."""
    backends = ("remem.store.sqlite", "remem.store.postgres", "remem.store.memory")
    reaching = sorted(
        f"{name} imports {target}"
        for name, targets in import_graph().items()
        if not name.startswith("remem.store")
        for target in targets
        if target.startswith(backends)
    )
    assert reaching == []


def test_capabilities_are_asked_not_read_off_the_path():
    """Outside the store backends nobody reads ``store.path is None`` as "this is SQLite"
    (issue 42): a backend says what it has (``Store.index_root``)."""
    pattern = re.compile(r"\bstore\.path is (?:not )?None")
    readers = sorted(
        f"{name}:{n}"
        for name, path in modules().items()
        if not name.startswith("remem.store")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    )
    assert readers == []


def package_of(module: str) -> str:
    """The package a module belongs to: ``remem.recall.messages`` -> ``remem.recall``; a
    top-level module (``remem.ports``) is a package of its own."""
    return ".".join(module.split(".")[:2])


def package_cycles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Pairs of packages (a, b) where a imports b and b reaches a back (issue 42)."""
    edges: dict[str, set[str]] = {}
    for name, targets in graph.items():
        for target in targets:
            if package_of(target) != package_of(name):
                edges.setdefault(package_of(name), set()).add(package_of(target))

    def reaches(start: str, goal: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    return sorted((a, b) for a, bs in edges.items() for b in bs if reaches(b, a))


def test_no_import_cycles_between_packages():
    assert package_cycles(import_graph()) == []


def test_the_package_check_sees_a_cycle():
    graph = {"remem.ports": {"remem.recall.injections"}, "remem.recall.messages": {"remem.ports"}}
    assert package_cycles(graph) == [
        ("remem.ports", "remem.recall"),
        ("remem.recall", "remem.ports"),
    ]


FEATURES = LAYERS[[name for name, _ in LAYERS].index("features")][1]


def test_no_feature_receives_the_engine():
    """``Memory`` is the composition root (issue 42): it hands each feature the parts it
    works with, so no feature module imports the engine or its port, even for a type."""
    above = ("remem.engine", "remem.engine_facts", "remem.ports", "remem.async_memory")
    offenders = sorted(
        f"{name} imports {target}"
        for name, targets in import_graph().items()
        if name.startswith(FEATURES)
        for target in targets
        if target.startswith(above)
    )
    assert offenders == []
