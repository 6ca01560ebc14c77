"""SQL written once (issue 42): a statement the SQLite and PostgreSQL stores would spell
alike, but for their placeholders, lives in a shared module of ``remem.store`` over an
``SQLDialect``; each backend's package keeps only the SQL that truly differs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

STORE = Path(__file__).resolve().parents[2] / "src" / "remem" / "store"
# a statement, not a fragment of one nor prose: upper-case keywords, then more than a word
_SQL_START = re.compile(r"^\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|WITH)\s+\S+\s+\S")


def _texts(node: ast.AST) -> str | None:
    """A string literal's text, an f-string's with ``{}`` for each value."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value if isinstance(part, ast.Constant) else "{}" for part in node.values
        )
    return None


def normalised(statement: str) -> str:
    """The statement with one placeholder spelling, no casts and single spaces."""
    text = statement.replace("%s", "?")
    text = re.sub(r"::\w+(\[\])?", "", text)
    return " ".join(text.split())


def statements(package: Path) -> dict[str, str]:
    """Every SQL statement literal of a package: normalised text -> where it stands."""
    found: dict[str, str] = {}
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # an f-string's literal parts are read with it, not as statements of their own
        parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in ast.walk(tree):
            if id(node) in parts:
                continue
            text = _texts(node)
            if text is not None and _SQL_START.match(text):
                found.setdefault(normalised(text), f"{path.name}:{node.lineno}")
    return found


def shared_statements(store: Path) -> dict[str, tuple[str, str]]:
    sqlite, postgres = statements(store / "sqlite"), statements(store / "postgres")
    return {sql: (sqlite[sql], postgres[sql]) for sql in sqlite.keys() & postgres.keys()}


def test_no_statement_is_written_in_both_sql_backends():
    assert shared_statements(STORE) == {}


def test_the_check_finds_statements_in_f_strings_and_joined_literals(tmp_path):
    for backend, mark in (("sqlite", "?"), ("postgres", "%s::text")):
        (tmp_path / backend).mkdir()
        (tmp_path / backend / "m.py").write_text(
            f'SQL = (\n    "SELECT id FROM records "\n    f"WHERE id = {mark}{{where}}"\n)\n',
            encoding="utf-8",
        )
    assert list(shared_statements(tmp_path)) == ["SELECT id FROM records WHERE id = ?{}"]
