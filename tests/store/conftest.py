"""The ``store`` fixture: one fresh store per backend in ``conformance.BACKENDS``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conformance import BACKENDS

from remem.store.base import Store


@pytest.fixture(params=list(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path) -> Iterator[Store]:
    backend = BACKENDS[request.param](tmp_path)
    yield backend
    backend.close()
