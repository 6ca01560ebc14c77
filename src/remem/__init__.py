"""remem: long-term memory for LLM agents and chat bots.

Local-first: one SQLite file, a bundled multilingual embedding model, hybrid vector + BM25
search that works for Chinese, Japanese and Korean as well as English.
"""

from remem.async_memory import AsyncMemory
from remem.config import Config
from remem.engine import Memory
from remem.errors import RememError, ValidationError
from remem.types import Explain, Filters, Hit, Record, SearchResult, Turn

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
