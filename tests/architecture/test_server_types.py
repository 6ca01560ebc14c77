"""Every ``mem`` parameter in ``remem.server`` says what it is (issue 42): the facade, so mypy
checks each call the server makes of it."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "src" / "remem" / "server"


def unannotated_mems(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.arg != "mem":
                    continue
                shown = ast.unparse(arg.annotation) if arg.annotation is not None else None
                if shown in (None, "Any"):
                    found.append(f"{path.relative_to(root)}:{node.lineno} ({shown})")
    return found


def test_every_mem_parameter_of_the_server_is_annotated():
    assert unannotated_mems(SERVER) == []


def test_the_check_sees_a_bare_mem(tmp_path):
    (tmp_path / "m.py").write_text("def f(mem, x: int) -> None: ...\n", encoding="utf-8")
    assert unannotated_mems(tmp_path) == ["m.py:1 (None)"]
