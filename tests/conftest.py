"""Shared fixtures. Every test gets its own temporary directories (xdist safe), and the user's
real config, data and cache directories are never read or written."""

from __future__ import annotations

import os
import tempfile

import pytest

# Isolate platformdirs (config file, default db, model-verification cache) before remem loads.
_HOME = tempfile.mkdtemp(prefix="remem-test-home-")
for _var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
    os.environ[_var] = os.path.join(_HOME, _var.lower())
for _var in [v for v in os.environ if v.startswith("REMEM_")]:
    del os.environ[_var]

from helpers import HashEmbedder  # noqa: E402
from remem import Config, Memory  # noqa: E402
from remem.embed.local import E5Embedder  # noqa: E402


@pytest.fixture(scope="session")
def e5() -> E5Embedder:
    return E5Embedder()


@pytest.fixture
def config() -> Config:
    return Config.load(env={}, overrides={"indexing.mode": "sync"})


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "remem.db"


@pytest.fixture
def memory(db_path, config, e5):
    with Memory(db_path, config, embedder=e5) as mem:
        yield mem


@pytest.fixture
def hash_memory(db_path, config):
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        yield mem


# Fixtures that load a bundled model: a test that uses one is a real-model test.
REAL_MODEL_FIXTURES = {"e5", "memory"}


def pytest_collection_modifyitems(config, items):
    """Mark real-model tests ``slow`` (``pytest -m "not slow"`` is the quick loop; ``make
    test`` runs everything)."""
    for item in items:
        if REAL_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
