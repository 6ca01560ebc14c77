"""Access is decided in one place, ``remem.access`` (issue 42): checked on the source.

Outside that package no module tests a record's scope against the scopes a caller may read,
builds a guard, an ``Access`` or a ``Caller`` by hand, or works out who is calling (reads a
bearer token's grant, falls back to ``scopes.agent``). Each surface asks ``remem.access``."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "remem"
ACCESS = SRC / "access"

# Code that looks like an access decision and is not, each with why (path, the expression).
ALLOWED = {
    # The in-memory store backend applying the scope filter it was handed (``Store.facts``'s
    # ``scopes``): a backend filtering by the scopes it is given is the store's job, like the
    # SQL backends' ``scope IN (...)``; which scopes to give it was decided by remem.access.
    ("store/memory/facts.py", "f.scope in scopes"),
    ("store/memory/facts.py", "f.scope not in scopes"),
    # conversation_recall's ``scope`` argument is a recall mode (session, user, platform,
    # all), not an access scope.
    ("recall/conversation.py", "scope not in SCOPE_MODES"),
    # ``remem config`` shows the configured tokens masked, with the agent each maps to.
    ("config/__init__.py", "grant.agent"),
}

BUILT_ONLY_IN_ACCESS = {"Access", "ScopeGuard", "Caller"}
# Reading a bearer token or the user a token is bound to: the caller's resolution.
RESOLVERS = {"grant_for", "user_for"}


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_scope_membership(node: ast.Compare) -> bool:
    """``<x>.scope in ...`` / ``scope not in ...`` / ``... in <x>scopes``."""
    if not any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
        return False
    left = _name(node.left)
    rights = [_name(c) or "" for c in node.comparators]
    return left == "scope" or any(r.endswith("scopes") or r == "readable" for r in rights)


def _decision(node: ast.AST) -> str | None:
    """What ``node`` decides about access by itself, or None."""
    if isinstance(node, ast.Compare) and _is_scope_membership(node):
        return "scope membership"
    if isinstance(node, ast.Call) and _name(node.func) in BUILT_ONLY_IN_ACCESS:
        return "builds"
    if isinstance(node, ast.Call) and _name(node.func) in RESOLVERS:
        return "resolves a caller"
    if isinstance(node, ast.Attribute) and _resolves_agent(node):
        return "resolves a caller"
    return None


def access_decisions(root: Path, skip: Path | None = None) -> list[str]:
    """Every place under ``root`` (except ``skip`` and ``ALLOWED``) that decides access."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if skip is not None and path.is_relative_to(skip):
            continue
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            what = _decision(node)
            if what is not None and (where, ast.unparse(node)) not in ALLOWED:
                found.append(f"{where}:{getattr(node, 'lineno', 0)} {what}: {ast.unparse(node)}")
    return found


def _resolves_agent(node: ast.Attribute) -> bool:
    """``grant.agent`` (a token's agent) or ``....scopes.agent`` (the fallback identity)."""
    if node.attr != "agent":
        return False
    return _name(node.value) in ("grant", "scopes")


def test_access_is_decided_only_in_the_access_package():
    assert access_decisions(SRC, skip=ACCESS) == []


def test_the_check_sees_each_kind_of_decision(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f(rec, scopes, guard, config, grant, header):\n"
        "    a = rec.scope in scopes\n"
        "    b = 'global' not in guard.readable\n"
        "    c = ScopeGuard(None)\n"
        "    d = Caller('a', restricted=True)\n"
        "    e = grant_for(config, header)\n"
        "    g = grant.agent or config.scopes.agent\n",
        encoding="utf-8",
    )
    assert [line.split(" ", 1)[0] for line in access_decisions(tmp_path)] == [
        "m.py:2",
        "m.py:3",
        "m.py:4",
        "m.py:5",
        "m.py:6",
        "m.py:7",
        "m.py:7",
    ]


def test_the_allow_list_names_places_that_exist():
    """An allow-list entry whose code is gone is removed, not kept as a loophole."""
    seen = set()
    for where, _shown in ALLOWED:
        tree = ast.parse((SRC / where).read_text(encoding="utf-8"))
        seen |= {(where, ast.unparse(n)) for n in ast.walk(tree) if _decision(n) is not None}
    assert seen >= ALLOWED


def test_the_access_package_is_held_to_mypy_strict():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    strict = [
        o for o in config["tool"]["mypy"]["overrides"] if o.get("disallow_untyped_defs") is True
    ]
    modules = {m for o in strict for m in o["module"]}
    assert {"remem.access", "remem.access.*"} <= modules
