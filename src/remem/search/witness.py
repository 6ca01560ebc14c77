"""A second model's word on the best candidates written in another script than the question.

The bundled e5-small matches a question to a line in another script poorly: an English
question about a Chinese line gets a cosine that reads as unrelated, so the relevance floor
cannot tell a cross-language answer from an off-topic hit (AUC 0.46 on zh_groupchat,
remem-bench's HISTORY.md "Both models at once"). The bundled USE model, which the fast lane already
loads, is better across languages (AUC 0.89 there). For the best few candidates in the other script, the
relevance stage asks USE about the (question, text) pair and reads its cosine on e5's scale
(the fast lane's fitted line, ``fast_lane.to_main_scale``; the script: ``text/scripts.py``); the better of the two models'
cosines is the candidate's evidence.

Only the relevance stage uses it: re-ranking by it lowered zh_groupchat's MRR at every weight
(remem-bench's cross-script-ranking.json). A store and a question in one script never load
USE; a model other than the bundled e5 has no fitted line and gets no witness.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np

from remem.embed.base import Embedder
from remem.embed.fast_model import SCORE_LINE, fast_embedder, to_main_scale
from remem.errors import RememError
from remem.index.exact import blas_one_thread

log = logging.getLogger("remem.search")

Anchors = Callable[[Embedder], np.ndarray]  # a model's vectors of the NEUTRAL sentences


class CrossScriptWitness:
    """Per searcher: USE cosines of the question against candidates in the other script, on
    the main model's scale. If USE cannot load, the witness switches itself off (logged
    once) and relevance goes on with the main model alone."""

    def __init__(self, threads: int, anchors: Anchors) -> None:
        self._threads = threads
        self._anchors = anchors
        self._off: str | None = None

    def applies(self, main_model_id: str | None) -> bool:
        return self._off is None and main_model_id in SCORE_LINE

    def cosines(
        self, query: str, texts: Sequence[str], main_model_id: str | None, main_base: float
    ) -> list[float] | None:
        """Each text's USE cosine to the query as the main model's cosine it stands for; None
        when the witness is off or USE failed."""
        if not texts or main_model_id is None or not self.applies(main_model_id):
            return None
        try:
            use = fast_embedder(self._threads)
            vectors = np.asarray(use.embed_queries([query, *texts]), np.float32)
            anchors = self._anchors(use)
        except RememError as exc:
            self._off = str(exc)
            log.warning("relevance without the cross-script witness: %s", exc)
            return None
        with blas_one_thread():
            sims = vectors[1:] @ vectors[0]
            base = float(np.max(anchors @ vectors[0]))
        return [to_main_scale(main_model_id, float(s), base, main_base) for s in sims]
