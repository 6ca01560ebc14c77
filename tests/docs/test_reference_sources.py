"""What the generated reference pages are made of must be complete: every configuration key
has a description, and every HTTP route of the REST API and the proxy has one (issue 43: the
site's reference pages come from the config model and the OpenAPI schema)."""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import BaseModel

from remem.config import Config

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from docgen.openapi import operations, schemas


def config_keys(model: type[BaseModel], prefix: str = ""):
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from config_keys(annotation, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", field


def test_every_configuration_key_has_a_description():
    keys = dict(config_keys(Config))
    assert len(keys) > 150  # the walk reached into every section
    missing = [key for key, field in keys.items() if not (field.description or "").strip()]
    assert missing == [], f"give these keys Field(description=...): {missing}"


def test_every_http_route_has_a_description():
    missing = [
        f"{which}: {method} {path}"
        for which, schema in schemas().items()
        for method, path, op in operations(schema)
        if not (op.get("description") or "").strip()
    ]
    assert missing == [], f"give these routes a docstring (FastAPI's description): {missing}"
