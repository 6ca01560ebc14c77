"""The relevance stage: IDF coverage, the logistic calibration, the floor as a gate on the
whole result (with its reason in the trace) and the rescaling of scores into [0, 1]."""

from __future__ import annotations

import math

import numpy as np
import pytest

from remem.config import Config
from remem.retrieve.candidates import Candidate
from remem.retrieve.context import StageContext
from remem.retrieve.relevance import (
    LEXICAL_ONLY,
    Calibration,
    calibration_for,
    idf_weights,
    relevance,
    term_coverage,
)
from remem.text.tokenize import Tokenizer
from remem.types import Record


class Stats:
    """term_stats over a fixed table: 100 records, 'the' in 90 of them, 'hut' in 2."""

    def term_stats(self, tokens):
        table = {"the": 90, "hut": 2}
        return 100, {t: table[t] for t in tokens if t in table}


def test_idf_weights_follow_bm25_and_count_unseen_terms_fully():
    w = idf_weights(Stats(), ["the", "hut", "hut", "zebra"])
    assert list(w) == ["the", "hut", "zebra"]  # distinct, in order
    assert w["the"] == pytest.approx(math.log(1 + 10.5 / 90.5))
    assert w["hut"] == pytest.approx(math.log(1 + 98.5 / 2.5))
    assert w["zebra"] == pytest.approx(math.log(1 + 100.5 / 0.5))  # never seen: the most
    assert idf_weights(Stats(), []) == {}


def test_coverage_is_the_idf_share_of_query_terms_in_the_text():
    w = {"the": 0.1, "hut": 3.0, "zebra": 0.9}
    assert term_coverage(w, ["hut", "the", "roof"]) == pytest.approx(3.1 / 4.0)
    assert term_coverage(w, ["roof"]) == 0.0
    assert term_coverage({}, ["hut"]) == 0.0


def test_calibration_is_monotone_and_bounded():
    cal = Calibration(intercept=-30.0, cosine=35.0, coverage=4.0)
    assert 0 < cal(0.70, 0.0) < cal(0.80, 0.0) < cal(0.80, 0.5) < 1
    assert cal(None, 1.0) == pytest.approx(1 / (1 + math.exp(26.0)))
    assert calibration_for("local:multilingual-e5-small") is not LEXICAL_ONLY
    assert calibration_for("test:hash64") is LEXICAL_ONLY
    assert calibration_for(None) is LEXICAL_ONLY


def _ctx(query: str, floor: float, store, qvec=None, vectors=None) -> StageContext:
    config = Config.load(env={}, overrides={"search.relevance_floor": floor})
    return StageContext(
        query=query,
        now=0.0,
        k=10,
        config=config,
        store=store,
        tokenizer=Tokenizer(),
        query_vector=qvec,
        vectors=vectors or {},
    )


def _cands(texts_scores):
    out = []
    for rowid, (text, score) in enumerate(texts_scores, start=1):
        rec = Record(id=f"r{rowid}", kind="message", text=text, created_at=0.0, rowid=rowid)
        c = Candidate(rowid, record=rec, lexical_rank=rowid)
        c.score = c.fused = score
        out.append(c)
    return out


def test_floor_drops_everything_and_says_which_gate():
    cands = _cands([("bring warm gloves", 0.9), ("the deploy moved", 0.4)])
    ctx = _ctx("capital of australia", 0.5, Stats())
    assert relevance(cands, ctx) == []
    assert [d.stage for d in ctx.dropped] == ["relevance", "relevance"]
    assert "search.relevance_floor 0.5" in ctx.dropped[0].reason
    assert any(n.startswith("relevance gate: nothing relevant") for n in ctx.notes)


def test_scores_become_best_relevance_times_relative_score():
    cands = _cands([("the hut is booked", 0.8), ("bring warm gloves", 0.4)])
    ctx = _ctx("hut zebra", 0.0, Stats())  # 'zebra' unseen: it counts, 'hut' is there
    out = relevance(cands, ctx)
    best = LEXICAL_ONLY(None, term_coverage(idf_weights(Stats(), ["hut", "zebra"]), ["hut"]))
    assert 0.2 < best < 0.8
    assert [c.record.id for c in out] == ["r1", "r2"]  # order kept
    assert out[0].score == pytest.approx(best)
    assert out[1].score == pytest.approx(best / 2)
    assert out[0].relevance == pytest.approx(best) and out[1].relevance < best
    assert all(0 <= c.score <= 1 for c in out)


def test_cosine_comes_from_the_stored_vector():
    q = np.array([1.0, 0.0], np.float32)
    vectors = {1: np.array([0.8, 0.6], np.float32), 2: np.array([0.0, 1.0], np.float32)}
    cands = _cands([("aaa", 0.5), ("bbb", 0.5)])
    ctx = _ctx("zzz", 0.0, Stats(), qvec=q, vectors=vectors)
    ctx.model_id = "local:multilingual-e5-small"
    relevance(cands, ctx)
    cal = calibration_for(ctx.model_id)
    assert cands[0].relevance == pytest.approx(cal(0.8, 0.0))
    assert cands[1].relevance == pytest.approx(cal(0.0, 0.0))
