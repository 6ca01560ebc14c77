"""The pre-turn read path: before an LLM call, what to inject and how.

One input type (``remem.types.Turn``), two sources (archived messages: ``messages``; curated
memories: ``memories``) and one renderer with one untrusted-data wrapper (``render``).
"""

from remem.recall.render import render_block, render_memories

__all__ = ["render_block", "render_memories"]
