"""docs/architecture.md states only what is true (issue 42): every name in backticks exists,
every arrow of a walk is a call its caller's source makes, the package table is the layer table
the import checks enforce, and every rule names a test that exists."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PAGE = ROOT / "docs" / "architecture.md"

TICKED = re.compile(r"`([^`\n]+)`")
ARROW = re.compile(r"`([\w.]+)`\s*→\s*`([\w.]+)`")
TEST_ID = re.compile(r"^(tests/[\w/]+\.py)::(\w+)$")


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def section(title: str) -> str:
    """The text under the ``## title`` heading, up to the next one."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", page(), re.S | re.M)
    assert match, f"docs/architecture.md has no section {title!r}"
    return match.group(1)


def resolve(dotted: str) -> Any:
    """The object a dotted ``remem.…`` name names: the longest importable module, then
    attributes. Raises LookupError when it names nothing."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                raise LookupError(f"{dotted}: {'.'.join(parts[:cut])} has no {attr!r}")
            obj = getattr(obj, attr)
        return obj
    raise LookupError(f"{dotted}: no such module")


def test_test_id_exists(test_id: str) -> None:
    path, name = TEST_ID.match(test_id).groups()  # type: ignore[union-attr]
    file = ROOT / path
    assert file.is_file(), f"{test_id}: no file {path}"
    defined = {
        n.name for n in ast.walk(ast.parse(file.read_text())) if isinstance(n, ast.FunctionDef)
    }
    assert name in defined, f"{test_id}: {path} defines no {name}"


test_test_id_exists.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def check_names(text: str) -> int:
    """Every test id, dotted ``remem.…`` name and repository path in backticks exists; returns
    how many were checked. A bare ``pkg/module.py`` path is read under ``src/remem/``."""
    checked = 0
    for name in TICKED.findall(text):
        name = name.split(" ")[0].rstrip(":,")
        if TEST_ID.match(name):
            test_test_id_exists(name)
        elif name.startswith("remem.") and re.fullmatch(r"[\w.]+", name):
            resolve(name.removesuffix("."))
        elif re.fullmatch(r"(remem|tests|docs|benchmarks|src)/[\w/.]*", name):
            base = SRC if name.startswith("remem/") else ROOT
            assert (base / name).exists(), f"{name} is named but not there"
        elif re.fullmatch(r"[a-z_]+/[\w/]*\w\.py", name):
            assert (SRC / "remem" / name).exists(), f"{name} is named but not in src/remem"
        else:
            continue
        checked += 1
    return checked


def test_every_dotted_name_and_path_exists():
    assert check_names(page()) > 60  # the page names its parts; the check must have read them


def test_the_detail_page_names_only_what_exists():
    """docs/internals.md is prose, but the modules, functions and paths it names exist."""
    assert check_names((ROOT / "docs" / "internals.md").read_text(encoding="utf-8")) > 80


def test_every_arrow_of_a_walk_is_a_call_its_caller_makes():
    arrows = 0
    for title in ("A message in, a block out", "A memory captured, superseded, recalled"):
        text = re.sub(r"\s+", " ", section(title))
        # an arrow binds the names on both sides; chains share their middle names
        # (a parenthesis between a name and its arrow is a gloss on the name)
        pairs = re.findall(r"(?=`([\w.]+)`(?:\s*\([^()]*\))?\s*→\s*`([\w.]+)`)", text)
        for caller, callee in pairs:
            source = inspect.getsource(resolve(caller))
            short = callee.rsplit(".", 1)[-1]
            assert re.search(rf"\b{re.escape(short)}\b", source), (
                f"docs/architecture.md says {caller} → {callee}, but {caller} never names {short}"
            )
            arrows += 1
    assert arrows >= 15


def dotted_of(path: str) -> str:
    """``remem/cli/`` -> ``remem.cli``; ``remem/engine.py`` -> ``remem.engine``;
    ``remem/__init__.py`` -> ``remem``."""
    stem = path.rstrip("/").removesuffix(".py").removesuffix("/__init__")
    return stem.replace("/", ".")


def table_rows() -> list[tuple[str, str]]:
    rows = re.findall(r"^\| `(remem/[^`]*)` \| ([a-z ]+) \|", section("Packages"), re.M)
    assert rows, "docs/architecture.md's package table is empty"
    return rows


def test_the_package_table_is_the_layer_table():
    from architecture.test_layers import LAYERS, layer_of

    names = [layer for layer, _ in LAYERS]
    for path, layer in table_rows():
        assert layer in names, f"{path}: no layer {layer!r} in tests/architecture/test_layers.py"
        module = dotted_of(path)
        actual = names[layer_of(module + ".x" if path.endswith("/") else module)]
        assert actual == layer, (
            f"docs/architecture.md puts {path} in {layer}, the checks in {actual}"
        )


def test_the_package_table_lists_every_package_and_top_level_module():
    listed = {dotted_of(path) for path, _ in table_rows()}
    remem = SRC / "remem"
    present = {"remem"}
    for child in remem.iterdir():
        if child.is_dir() and (child / "__init__.py").exists():
            present.add(f"remem.{child.name}")
        elif child.suffix == ".py" and child.name != "__init__.py":
            present.add(f"remem.{child.stem}")
    assert present - listed == set(), "add these to docs/architecture.md's package table"
    assert listed - present == set(), "docs/architecture.md lists what src/remem does not hold"


def test_the_diagram_names_the_layers_in_order():
    diagram = re.search(r"```\n(.*?)```", section("Layers"), re.S)
    assert diagram
    from architecture.test_layers import LAYERS

    firsts = [line.split("  ")[0].strip() for line in diagram.group(1).splitlines() if line]
    assert firsts == [layer for layer, _ in LAYERS]


def test_every_rule_names_a_test_that_exists():
    rules = [
        line for line in section("Rules the build checks").splitlines() if line.startswith("- ")
    ]
    assert len(rules) >= 10
    for rule in rules:
        ids = [name for name in TICKED.findall(rule) if TEST_ID.match(name)]
        assert ids, f"this rule names no test that checks it: {rule}"
        for test_id in ids:
            test_test_id_exists(test_id)


def test_the_strict_modules_are_configured():
    """The facade, the public names, the store protocol and the access module are held to
    every flag of ``mypy --strict`` that mypy accepts per module, and ``make lint`` runs mypy."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    strict = [
        o for o in config["tool"]["mypy"]["overrides"] if o.get("disallow_untyped_defs") is True
    ]
    modules = {m for o in strict for m in o["module"]}
    wanted = {"remem", "remem.engine", "remem.async_memory", "remem.store.base", "remem.access"}
    assert wanted <= modules, f"not held to mypy --strict: {sorted(wanted - modules)}"
    flags = {
        "disallow_any_generics",
        "warn_return_any",
        "disallow_untyped_calls",
        "strict_equality",
    }
    assert all(flags <= set(o) for o in strict)
    lint = re.search(r"^lint:.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.S | re.M)
    assert lint and "mypy" in lint.group(0)


@pytest.mark.parametrize("bad", ["remem.engine.Memory.no_such_method", "remem.no_such_module"])
def test_the_resolver_refuses_what_does_not_exist(bad):
    with pytest.raises(LookupError):
        resolve(bad)


def test_modules_resolve_to_modules():
    assert isinstance(resolve("remem.search.pipeline"), ModuleType)
