"""Every test under tests/fuzz carries the ``fuzz`` marker (``pytest -m fuzz`` runs them
alone; ``make test`` runs them with the rest)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.fuzz)


@pytest.fixture(scope="module")
def fast_dir(tmp_path_factory) -> Iterator[Path]:
    """A folder for the fuzzed store: in RAM (/dev/shm) where there is one, because every
    committed write fsyncs (synchronous=FULL) and thousands of them on a disk would take
    minutes; the database is the real SQLite file all the same."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path_factory.mktemp("fuzz")
        return
    folder = Path(tempfile.mkdtemp(prefix="remem-fuzz-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
