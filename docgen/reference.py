"""The reference pages, written from the code: the CLI from the Typer app, the configuration
keys from the pydantic model, the HTTP routes from the OpenAPI schemas. The site's build
(docgen/hooks.py) calls these every time, so the pages cannot fall behind the code."""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

HELP_WIDTH = 100


def _cell(text: str) -> str:
    """Text for a Markdown table cell: pipes escaped, angle brackets shown (outside code)."""
    parts = re.split(r"(`[^`]*`)", " ".join(text.split()))
    out = [
        part if part.startswith("`") else part.replace("<", "&lt;").replace(">", "&gt;")
        for part in parts
    ]
    return "".join(out).replace("|", "\\|")


# --- the command line ------------------------------------------------------------------------


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    if hasattr(command, "list_commands"):  # a group (typer vendors its own click classes)
        ctx = command.context_class(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _commands(sub, (*path, name))


def cli_page() -> str:
    """Every command's `--help`, as `remem` prints it, under a heading per command."""
    import typer
    from typer.testing import CliRunner

    from remem.cli.app import app

    runner = CliRunner()
    lines = [
        "# Command line reference",
        "",
        "Every command's `--help`, generated from the command itself when this site is built.",
        "Global options (`--db`, `--config`, `-v`) may also follow the command.",
        "",
    ]
    for path, _command in _commands(typer.main.get_command(app)):
        result = runner.invoke(
            app, [*path, "--help"], prog_name="remem", env={"COLUMNS": str(HELP_WIDTH)}
        )
        if result.exit_code != 0:
            raise RuntimeError(f"`remem {' '.join(path)} --help` failed: {result.output}")
        name = " ".join(("remem", *path))
        level = "#" * min(2 + max(len(path) - 1, 0), 4)
        lines += [f"{level} `{name}`", "", "```text", result.output.rstrip(), "```", ""]
    return "\n".join(lines)


# --- configuration ---------------------------------------------------------------------------


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return " \\| ".join(f"`{json.dumps(a)}`" for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args)
    if origin is not None:
        inner = ", ".join(_type_name(a) for a in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if annotation is type(None):
        return "none"
    return getattr(annotation, "__name__", str(annotation).replace("typing.", ""))


def _default(field: Any) -> str:
    if field.default is PydanticUndefined:
        value = field.default_factory() if field.default_factory else None
    else:
        value = field.default
    if value is None:
        return "(none)"
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    try:
        return f"`{json.dumps(value, ensure_ascii=False, default=str)}`"
    except TypeError:
        return f"`{value}`"


def config_keys(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, pydantic field) of every setting under ``model``."""
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from config_keys(annotation, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", field


def config_page() -> str:
    """One table per section of the configuration: key, type, default, description."""
    from remem.config import Config

    lines = [
        "# Configuration reference",
        "",
        "Every key remem reads, generated from its configuration model when this site is built.",
        "Set a key in a TOML file (`[section]`, then `key = value`), or as the environment",
        "variable `REMEM_<SECTION>__<KEY>` (`REMEM_SEARCH__FUSION=rrf`). How the layers combine",
        "and examples: [the configuration guide](../guides/configuration.md).",
        "",
    ]
    for section, field in Config.model_fields.items():
        model = field.annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        doc = (model.__doc__ or "").strip()
        lines += [f"## `[{section}]`", ""]
        if doc and not doc.startswith(("A base class", "Usage docs")):
            lines += [" ".join(doc.split()), ""]
        lines += ["| key | type | default | description |", "|---|---|---|---|"]
        for key, sub in config_keys(model):
            env = f"REMEM_{section.upper()}__{key.split('.')[0].upper()}"
            lines.append(
                f"| `{section}.{key}` | {_type_name(sub.annotation)} | {_default(sub)} | "
                f"{_cell(sub.description or '')} (`{env}`) |"
            )
        lines.append("")
    return "\n".join(lines)


# --- HTTP ------------------------------------------------------------------------------------


def _schema_type(schema: dict[str, Any], components: dict[str, Any]) -> str:
    if "$ref" in schema:
        return f"`{schema['$ref'].rsplit('/', 1)[-1]}`"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_schema_type(s, components) for s in schema[key])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_schema_type(schema.get('items', {}), components)}"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    return str(kind)


def _fields(name: str, components: dict[str, Any]) -> list[str]:
    schema = components.get(name, {})
    props = schema.get("properties", {})
    if not props:
        return []
    required = set(schema.get("required", []))
    lines = [f"`{name}`:", "", "| field | type | required | description |", "|---|---|---|---|"]
    for field, spec in props.items():
        lines.append(
            f"| `{field}` | {_schema_type(spec, components)} | "
            f"{'yes' if field in required else ''} | {_cell(spec.get('description', ''))} |"
        )
    return [*lines, ""]


def _operation(method: str, path: str, op: dict[str, Any], components: dict[str, Any]) -> list:
    text = " ".join((op.get("description") or "").split()).replace("``", "`")
    lines = [f"### `{method} {path}`", "", text, ""]
    params = op.get("parameters", [])
    if params:
        lines += ["| parameter | in | type | required |", "|---|---|---|---|"]
        for p in params:
            lines.append(
                f"| `{p['name']}` | {p['in']} | {_schema_type(p.get('schema', {}), components)} "
                f"| {'yes' if p.get('required') else ''} |"
            )
        lines.append("")
    body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = body.get("schema", {}).get("$ref")
    if ref:
        lines += ["Body:", "", *_fields(ref.rsplit("/", 1)[-1], components)]
    codes = ", ".join(sorted(op.get("responses", {})))
    if codes:
        lines += [f"Answers: {codes}.", ""]
    return lines


def rest_page() -> str:
    """Every route of the REST API and of the proxy, from their OpenAPI schemas."""
    from docgen.openapi import operations, schemas

    built = schemas()
    lines = [
        "# REST reference",
        "",
        "Every route, generated from the servers' OpenAPI schemas when this site is built. A",
        "running `remem serve` also serves the schema at `/openapi.json` and browsable docs at",
        '`/docs`. Errors are `{"error": "..."}` with 400 / 401 / 403 / 404 / 409 / 413 / 422;',
        "see [the REST guide](../guides/rest.md) for authentication and examples.",
        "",
    ]
    titles = {
        "rest": "## `remem serve`: the REST API",
        "proxy": "## `remem proxy`: the OpenAI-compatible memory proxy",
    }
    for which, schema in built.items():
        components = schema.get("components", {}).get("schemas", {})
        lines += [titles[which], ""]
        for method, path, op in operations(schema):
            lines += _operation(method, path, op, components)
    return "\n".join(lines)


PAGES = {
    "reference/cli.md": cli_page,
    "reference/configuration.md": config_page,
    "reference/rest.md": rest_page,
}
