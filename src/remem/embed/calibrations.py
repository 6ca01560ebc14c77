"""What the relevance stage knows of each embedding model: its calibration and its anchors.

A cosine means different things under different models (e5 puts unrelated pairs near 0.75,
USE near 0.1), so the mapping from evidence to relevance (``search/relevance.py``; decision
record 0018) is fitted per model and lives here, with the models: the logistic coefficients
(``CALIBRATIONS``, and ``LATENT_CALIBRATIONS`` with the latent-term cosine), the fixed
``NEUTRAL`` sentences a query's baseline is measured against, and their vectors shipped for
the bundled model. A model without an entry gets ``LEXICAL_ONLY``: it cannot abstain by its
vectors. Written again after a refit with remem-bench's ``fit_calibration.py``; the shipped
vectors with ``python -m remem.embed.calibrations``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Everyday sentences about nothing in particular, English and Chinese: how close a query comes
# to these is its baseline, the cosine it gets from anything at all (short Chinese queries sit
# near 0.85 under e5 against every text; long English ones near 0.75).
NEUTRAL = (
    "The weather was fine and nothing much happened.",
    "I read an article about something else.",
    "这是一条普通的消息，没有什么特别的。",
    "We talked about various everyday things.",
    "今天和朋友随便聊了聊。",
    "The package arrived on Tuesday.",
)


@dataclass(frozen=True)
class Calibration:
    """Logistic coefficients: relevance = sigmoid(intercept + cosine x cos + baseline x
    base + coverage x cov [+ latent x the latent-term cosine]), base being the query's cosine
    to the nearest NEUTRAL sentence."""

    intercept: float
    cosine: float
    baseline: float
    coverage: float
    latent: float = 0.0

    def __call__(
        self, cos: float | None, base: float | None, cov: float, lat: float | None = None
    ) -> float:
        z = self.intercept + self.coverage * cov
        if cos is not None and base is not None:
            z += self.cosine * cos + self.baseline * base
        if lat is not None:
            z += self.latent * lat
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


# Fitted with remem-bench's fit_calibration.py on every conversation of LoCoMo and zh_groupchat against
# the no-answer set asked on the same stores (the cosine of a candidate in the other script being
# the better of e5's and the cross-script witness's): 16,325 hits. LongMemEval was held out.
CALIBRATIONS: dict[str, Calibration] = {
    "multilingual-e5-small": Calibration(
        intercept=-12.398, cosine=89.969, baseline=-80.342, coverage=4.259
    ),
}
# With the latent-term cosine of the best search.latent_top candidates (search/latent_reader.py):
# fitted with remem-bench's two_model_relevance.py (+sparse) on LoCoMo and zh_groupchat, 2-fold by
# conversation, the noise probes left out; LongMemEval held out
# (remem-bench's sparse-relevance.json).
LATENT_CALIBRATIONS: dict[str, Calibration] = {
    "multilingual-e5-small": Calibration(
        intercept=-10.527, cosine=72.393, baseline=-67.448, coverage=6.57, latent=17.198
    ),
}
# Without a vector (lexical-only search, a record not embedded yet, unknown model): words only.
# Lenient on purpose: a Chinese question shares only a few of its bigrams with its answer, so
# 0.05 of the query's IDF mass already clears the default floor; sharing nothing scores 0.18.
LEXICAL_ONLY = Calibration(intercept=-1.5, cosine=0.0, baseline=0.0, coverage=8.0)


# The NEUTRAL sentences' vectors under the bundled model, shipped so that a process's first
# search does not embed them (~80 ms, a tenth of a CLI search). Only the bundled runtime's own
# vectors are shipped: the same model served elsewhere may round differently.
# tests/integration/test_relevance_floor.py checks them against the model; written again with
# `python -m remem.embed.calibrations`.
SHIPPED_NEUTRAL = {"local:multilingual-e5-small": "neutral-multilingual-e5-small.npy"}


def shipped_neutral_vectors(model_id: str) -> np.ndarray | None:
    """The shipped NEUTRAL vectors of this model, or None (not shipped, or not current)."""
    name = SHIPPED_NEUTRAL.get(model_id)
    if name is None:
        return None
    try:
        data = np.load(Path(__file__).parent.parent / "data" / name, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if data.dtype != np.float32 or data.ndim != 2 or data.shape[0] != len(NEUTRAL):
        return None
    return data


def calibration_for(
    model_id: str | None, table: dict[str, Calibration] | None = None
) -> Calibration:
    """The model's calibration in ``table`` (CALIBRATIONS), else LEXICAL_ONLY."""
    if model_id:
        for name, calibration in (CALIBRATIONS if table is None else table).items():
            if model_id == name or model_id.endswith(":" + name):
                return calibration
    return LEXICAL_ONLY


if __name__ == "__main__":  # write the shipped NEUTRAL vectors with the bundled model
    from remem.embed.local import E5Embedder

    embedder = E5Embedder()
    path = Path(__file__).parent.parent / "data" / SHIPPED_NEUTRAL[embedder.model_id]
    np.save(path, np.asarray(embedder.embed_passages(list(NEUTRAL)), np.float32))
    print(f"wrote {path}")
