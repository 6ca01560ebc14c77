"""The bundled fast model (USE multilingual) and how its cosines read on a main model's scale.

The fast lane (``ingest/fast_lane.py``) gives records waiting for the main model a USE
vector at once, and the relevance stage asks USE as a witness across scripts
(``search/witness.py``); both read USE's cosines as the main model's through ``SCORE_LINE``,
fitted per main model. What is specific to these models lives here, with the models.
"""

from __future__ import annotations

import threading

from remem.config import Config
from remem.embed.base import Embedder

FAST_MODEL = "use-multilingual-v3"
FAST_MODEL_ID = f"local:{FAST_MODEL}"
FAST_DIM = 512
# Main models whose cosines the fast model's are mapped onto. Each model's level moves with
# the question, so the line maps margins over each model's own neutral baseline (the query's
# best cosine to remem.search.relevance.NEUTRAL): e5 - e5_base = a + b * (USE - USE_base),
# fitted over 354k (question, turn) pairs of LoCoMo and the Chinese dev set: R^2 0.67,
# residual sd 0.024, against 0.17 for one line on the raw cosines (remem-bench's fast_lane_mapping.py,
# remem-bench's fast-lane-mapping.json). Another main model gets no lane: its scale is
# unknown.
SCORE_LINE = {"local:multilingual-e5-small": (0.0121, 0.1707)}


def stands_in_for(main_model_id: str | None) -> bool:
    """Whether the fast model's vectors stand in for ``main_model_id``'s (a main model with a
    fitted score line): then they are temporary, dropped once the main model has embedded
    their records. Never for the fast model itself (a store switched to it)."""
    return main_model_id in SCORE_LINE


def lane_applies(config: Config, main_model_id: str | None, local_index: bool) -> bool:
    """Whether a store gets the fast lane: on in the config, a store with a local snapshot
    index (``Store.index_root``: it searches the waiting records), and a main model the fast
    model stands in for."""
    return bool(config.indexing.fast_lane and local_index and stands_in_for(main_model_id))


def to_main_scale(main_model_id: str, cosine: float, fast_base: float, main_base: float) -> float:
    """A fast-model cosine as the main model's cosine it stands for (see SCORE_LINE)."""
    a, b = SCORE_LINE[main_model_id]
    return main_base + a + b * (cosine - fast_base)


_shared: dict[int, Embedder] = {}
_shared_lock = threading.Lock()


def fast_embedder(threads: int) -> Embedder:
    """The process's one fast model (the lane's writer and the searches share its weights)."""
    with _shared_lock:
        if threads not in _shared:
            from remem.embed.local import USEEmbedder

            _shared[threads] = USEEmbedder(threads=threads)
        return _shared[threads]


_workers: dict[int, list[Embedder]] = {}


def fast_workers(n: int) -> list[Embedder]:
    """``n`` handles on the process's fast model for bulk passages side by side
    (``embed.parallel.SideBySide``: `remem import --fast`), each on one BLAS thread and a
    background thread of its own, over one copy of the weights. One BLAS thread each because
    two threads on one USE call cost 3x the CPU time for the same texts on the shared 2 cores
    (0.072 against 0.023 CPU-s per turn of a long history, same run, load 14-21; equal on
    2,000-character turns: remem-bench's long_history.py ``cpu``); the cores are used by running
    ``n`` calls at once instead."""
    first = fast_embedder(1)  # outside the lock: it takes it
    with _shared_lock:
        if n not in _workers:
            from remem.embed.local import USEEmbedder

            assert isinstance(first, USEEmbedder)
            twins: list[Embedder] = [USEEmbedder(1, weights_of=first) for _ in range(n - 1)]
            _workers[n] = [first, *twins]
        return _workers[n]
