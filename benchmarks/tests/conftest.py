"""Fixtures of the benchmark package's tests. As in remem's own tests, every test gets its own
temporary directories (xdist safe) and the user's real config, data and cache directories are
never read or written."""

from __future__ import annotations

import os
import tempfile

import pytest

# Isolate platformdirs (config file, default db, model-verification cache) before remem loads.
_HOME = tempfile.mkdtemp(prefix="remem-bench-test-home-")
for _var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
    os.environ[_var] = os.path.join(_HOME, _var.lower())
for _var in [v for v in os.environ if v.startswith("REMEM_")]:
    del os.environ[_var]

from remem import Config, Embedder, make_embedder  # noqa: E402


@pytest.fixture(scope="session")
def e5() -> Embedder:
    """The bundled e5 model (remem's default), loaded once."""
    embedder = make_embedder(Config.load(env={}).embed)
    assert embedder is not None and "e5" in embedder.model_id
    return embedder


@pytest.fixture
def config() -> Config:
    return Config.load(env={}, overrides={"indexing.mode": "sync"})


def pytest_collection_modifyitems(config, items):
    """A test that loads the bundled model is a real-model test: marked ``slow``."""
    for item in items:
        if "e5" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
