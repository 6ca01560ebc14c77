"""The read pipeline's scoring stages after fusion, in order (see the modules they come from).

Each stage is a small function over the candidate list; its name is what ``disable=`` and the
explain trace use. A stage takes the part of the search's context it reads (``search/context.py``):
the request alone (``on_request``), the request and the report of drops (``gate``), or the whole context when it reads what the query
understanding, the channels and earlier stages found. Diversity and the aggregate spread run after these, over the final order.
"""

from __future__ import annotations

from collections.abc import Callable

from remem.search import gates, scoring
from remem.search.adaptive import adaptive_fusion
from remem.search.answerability import answerability
from remem.search.candidates import Candidate
from remem.search.context import Report, Request, StageContext
from remem.search.currency import currency
from remem.search.links import link_lift
from remem.search.relevance import relevance
from remem.search.replies import reply_after_question
from remem.search.rerank import rerank
from remem.search.time_intent import time_intent

Stage = Callable[[list[Candidate], StageContext], list[Candidate]]
# a stage that reads only what was asked (the query, the clock, the settings, the asker)
RequestStage = Callable[[list[Candidate], Request], list[Candidate]]


def on_request(stage: RequestStage) -> Stage:
    """The stage given only the search's request: what it does not read, it is not handed."""
    return lambda cands, ctx: stage(cands, ctx.request)


# a gate: reads what was asked and reports the candidates it drops
GateStage = Callable[[list[Candidate], Request, Report], list[Candidate]]


def gate(stage: GateStage) -> Stage:
    """The stage given the search's request and its report, and nothing else."""
    return lambda cands, ctx: stage(cands, ctx.request, ctx.report)


SCORE_STAGES: list[tuple[str, Stage]] = [
    ("adaptive_fusion", adaptive_fusion),
    ("min_semantic", gate(gates.min_semantic)),
    ("noise", gate(gates.noise)),
    ("rerank", rerank),
    ("recency", on_request(scoring.recency)),
    ("importance", on_request(scoring.importance)),
    ("authority", on_request(scoring.authority)),
    ("length", on_request(scoring.length_norm)),
    ("decay", on_request(scoring.decay)),
    ("access", on_request(scoring.access)),
    ("time_weight", on_request(scoring.time_weighting)),
    ("same_user", on_request(scoring.same_user)),
    ("session_lift", on_request(scoring.session_lift)),
    ("neighbour_lift", scoring.neighbour_lift),
    ("link_lift", link_lift),
    ("time_intent", time_intent),
    ("self_reference", on_request(scoring.self_reference)),
    ("named_speaker", scoring.named_speaker),
    ("reply_after_question", reply_after_question),
    ("relevance", relevance),
    ("currency", currency),
    ("answerability", answerability),
    ("min_score", gate(gates.min_score)),
]
STAGE_NAMES = [name for name, _ in SCORE_STAGES] + ["diversity", "aggregate_spread"]
