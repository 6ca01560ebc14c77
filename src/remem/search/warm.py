"""Warm a long-running server for its first recall, in the background.

A fresh process's first search loads what later ones reuse: the bundled USE tokenizer (word
rarity of small stores, ``embed/word_rarity.py``; ~0.1 s from its cache, ~0.5 s without), the
answer-type tables and rjieba's dictionary (answerability, ~0.35 s), the pattern tables it
touches (``text/lazy_re.py``) and the fact rules' gates (a recall waits for the facts of a
message said a moment ago: ~0.4 s the first time, ``facts/extract.py``). `remem serve`, `remem mcp` and `remem proxy` call
``warm_in_background`` after start so that a chat's first recall does not pay for them; the
one-shot CLI commands do not (they would pay for what they may never use).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time

log = logging.getLogger("remem.search")

# a warm-up yields the cores to whatever else runs (a request, the indexer): nice 10
NICENESS = 10


def warm_in_background() -> threading.Thread:
    """Start the warm-up on a daemon thread at low priority; the thread, already started."""
    thread = threading.Thread(target=warm, name="remem-warm-up", daemon=True)
    thread.start()
    return thread


def warm() -> None:
    """Load and compile what a first search needs; never fails (a failure only leaves the
    first search to do it, and is logged)."""
    started = time.process_time()
    # Linux: a thread is a task of its own, so this lowers only this thread's priority
    # (another OS: warm at normal priority)
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)
    try:
        from remem.embed.word_rarity import word_rarity
        from remem.facts.rule_sets import prepare_rule_sets
        from remem.search import answerability  # noqa: F401  # its tables, imported
        from remem.text import answer_types  # noqa: F401  # imported on a first search too
        from remem.text.lazy_re import compile_all

        word_rarity().weights(["warm"])  # loads the USE tokenizer (None without the package)
        with contextlib.suppress(ImportError):
            import rjieba  # noqa: F401  # answer types' Chinese tagger (dictionary load)
        compiled = compile_all()
        prepare_rule_sets()  # a first recall settles the facts of what was just said
    except Exception:  # a warm-up is an optimisation, never a reason for a server to fail
        log.warning("warming for the first search failed", exc_info=True)
        return
    log.info(
        "warmed for the first search: %d patterns compiled, %.2f CPU-s",
        compiled,
        time.process_time() - started,
    )
