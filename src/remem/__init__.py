"""remem: long-term memory for LLM agents and chat bots.

Local-first: one SQLite file, a bundled multilingual embedding model, hybrid vector + BM25
search that works for Chinese, Japanese and Korean as well as English.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from remem.errors import RememError, ValidationError
from remem.types import Explain, Filters, Hit, Record, SearchResult, Turn

if TYPE_CHECKING:
    from remem.async_memory import AsyncMemory
    from remem.config import Config
    from remem.engine import Memory

__version__ = "0.1.0"

__all__ = [
    "AsyncMemory",
    "Config",
    "Explain",
    "Filters",
    "Hit",
    "Memory",
    "Record",
    "RememError",
    "SearchResult",
    "Turn",
    "ValidationError",
    "__version__",
]

# Public names whose modules pull in pydantic, numpy and the search stack: imported on first
# use (PEP 562), so `remem --help` and `import remem.types` stay fast.
_LAZY = {
    "AsyncMemory": "remem.async_memory",
    "Config": "remem.config",
    "Memory": "remem.engine",
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
