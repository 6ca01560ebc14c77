"""remem: long-term memory for LLM agents and chat bots.

Local-first: one SQLite file, a bundled multilingual embedding model, hybrid vector + BM25
search that works for Chinese, Japanese and Korean as well as English.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from remem.errors import RememError, ValidationError

if TYPE_CHECKING:
    from remem.async_memory import AsyncMemory
    from remem.config import Config
    from remem.embed.base import Embedder
    from remem.embed.factory import make_embedder
    from remem.engine import Memory
    from remem.engine_facts import FactCorrection
    from remem.ops import query_vector, store_latent_terms
    from remem.types import Explain, Fact, Filters, Hit, Record, SearchResult, Turn

__version__ = "0.1.0"

__all__ = [
    "AsyncMemory",
    "Config",
    "Embedder",
    "Explain",
    "Fact",
    "FactCorrection",
    "Filters",
    "Hit",
    "Memory",
    "Record",
    "RememError",
    "SearchResult",
    "Turn",
    "ValidationError",
    "__version__",
    "make_embedder",
    "query_vector",
    "store_latent_terms",
]

# Public names imported on first use (PEP 562): the engine's modules pull in pydantic, numpy
# and the search stack, and even the plain record types cost ~20 ms that `remem --help` and
# `remem --version` need not pay.
_LAZY = {
    "AsyncMemory": "remem.async_memory",
    "Config": "remem.config",
    "Memory": "remem.engine",
    "FactCorrection": "remem.engine_facts",
    # for tools that measure the pipeline (the benchmark package): the embedder a config names,
    # the query vector a search would compute (to time and share it), and the latent terms
    # stored now instead of in the background
    "Embedder": "remem.embed.base",
    "make_embedder": "remem.embed.factory",
    **dict.fromkeys(("query_vector", "store_latent_terms"), "remem.ops"),
    **dict.fromkeys(
        ("Explain", "Fact", "Filters", "Hit", "Record", "SearchResult", "Turn"), "remem.types"
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'remem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
