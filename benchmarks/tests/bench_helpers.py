"""Helpers of the benchmark package's tests: its research scripts loaded by path, and a
deterministic stand-in embedder."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_bench_script(name: str) -> ModuleType:
    """scripts/<name>.py, loaded by path (the scripts are not a package), with scripts/ on the
    path so that it imports its siblings as a script run from there would."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class HashEmbedder:
    """A deterministic stand-in for tests of plumbing (not of retrieval quality): bag-of-words
    hashed into 64 dims, so texts sharing words are similar."""

    provider = "test"
    model = "hash64"
    model_id = "test:hash64"
    dim = 64
    default_chunk_chars = 0

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, np.float32)
        for word in text.lower().split():
            h = int(hashlib.md5(word.encode()).hexdigest(), 16)
            v[h % self.dim] += 1.0
        v[0] += 0.01
        return v / np.linalg.norm(v)

    def embed_queries(self, texts):
        return self.embed_passages(texts)

    def embed_passages(self, texts):
        return np.stack([self._vec(t) for t in texts]) if texts else np.empty((0, self.dim))
