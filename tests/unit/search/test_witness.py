"""The cross-script witness: which candidates it reads, and what the relevance stage makes of
its word (the real USE model is exercised in tests/integration/test_memory.py)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from remem.embed.calibrations import calibration_for
from remem.embed.fast_model import to_main_scale
from remem.errors import RememError
from remem.search import witness as witness_module
from remem.search.relevance import relevance
from remem.search.witness import CrossScriptWitness
from remem.text.budget import tail_within
from unit.search.test_relevance import Stats, _cands, _ctx

E5 = "local:multilingual-e5-small"


class FakeUSE:
    """Embeds a text as a fixed unit vector by its first character; records every call."""

    def __init__(self):
        self.calls: list[list[str]] = []

    def embed_queries(self, texts):
        self.calls.append(list(texts))
        table = {"W": [1.0, 0.0], "我": [0.8, 0.6], "今": [-1.0, 0.0], "T": [0.6, 0.8]}
        return np.array([table.get(t[0], [1.0, 0.0]) for t in texts], np.float32)


def _witness(monkeypatch, use):
    monkeypatch.setattr(witness_module, "fast_embedder", lambda threads: use)
    # the neutral anchors: the query's USE baseline is its cosine 0.0 to [0, -1]
    return CrossScriptWitness(2, lambda embedder: np.array([[0.0, -1.0]], np.float32))


def _e5_ctx(query, cands, witness, floor=0.0):
    q = np.array([1.0, 0.0], np.float32)
    # e5 reads every candidate as unrelated (cosine 0.80 against a baseline of 0.80)
    vectors = {c.rowid: np.array([0.8, 0.6], np.float32) for c in cands}
    ctx = _ctx(query, floor, Stats(), qvec=q, vectors=vectors)
    ctx.found.model_id, ctx.found.baseline, ctx.readers.witness = E5, 0.8, witness
    return ctx


def test_relevance_takes_the_witness_cosine_of_candidates_in_the_other_script(monkeypatch):
    use = FakeUSE()
    cands = _cands([("我对花生过敏", 0.9), ("The hut costs 65 euros", 0.8), ("今天下雨", 0.1)])
    ctx = _e5_ctx("Who is allergic to peanuts?", cands, _witness(monkeypatch, use))
    relevance(cands, ctx)
    # one call: the question and the two Chinese lines, never the English one
    assert use.calls == [["Who is allergic to peanuts?", "我对花生过敏", "今天下雨"]]
    cal = calibration_for(E5)
    witnessed = to_main_scale(E5, 0.8, 0.0, 0.8)
    assert witnessed > 0.8
    assert cands[0].relevance == pytest.approx(cal(witnessed, 0.8, 0.0), rel=1e-5)
    assert cands[1].relevance == pytest.approx(cal(0.8, 0.8, 0.0), rel=1e-5)  # e5's own word
    # a witness that reads less than e5 does not lower the candidate
    assert cands[2].relevance == pytest.approx(cal(0.8, 0.8, 0.0), rel=1e-5)
    assert any("USE read 2 candidates in the other script" in n for n in ctx.report.notes)


def test_the_witness_reads_only_the_best_candidates(monkeypatch):
    use = FakeUSE()
    cands = _cands([("今天下雨", 0.1), ("我对花生过敏", 0.9)])
    ctx = _e5_ctx("Who is allergic to peanuts?", cands, _witness(monkeypatch, use))
    ctx.request.config.search.witness_top = 1
    relevance(cands, ctx)
    assert use.calls == [["Who is allergic to peanuts?", "我对花生过敏"]]


def test_a_long_chat_turn_is_read_as_the_vector_channel_embeds_it(monkeypatch):
    use = FakeUSE()
    turn = "我们聊了周末的计划和天气。" * 40 + "谁对花生过敏？"
    cands = _cands([("I am allergic to peanuts", 0.9)])
    relevance(cands, _e5_ctx(turn, cands, _witness(monkeypatch, use)))
    # USE reads the turn's last 32 tokens, as e5 embedded them, not the whole turn
    asked = tail_within(turn, 32)
    assert len(asked) < len(turn) // 10
    assert use.calls == [[asked, "I am allergic to peanuts"]]


def test_no_witness_in_one_script_when_off_or_for_another_model(monkeypatch):
    use = FakeUSE()
    witness = _witness(monkeypatch, use)
    cands = _cands([("The hut costs 65 euros", 0.9)])
    relevance(cands, _e5_ctx("Who is allergic to peanuts?", cands, witness))
    cands = _cands([("我对花生过敏", 0.9)])
    ctx = _e5_ctx("Who is allergic to peanuts?", cands, witness)
    ctx.request.config.search.cross_script_witness = False
    relevance(cands, ctx)
    ctx = _e5_ctx("Who is allergic to peanuts?", cands, witness)
    ctx.found.model_id = "openai:text-embedding-3-small"  # no fitted line onto its scale
    relevance(cands, ctx)
    assert use.calls == []


def test_a_witness_that_cannot_load_switches_itself_off(monkeypatch, caplog):
    def broken(threads):
        raise RememError("USE weights missing")

    monkeypatch.setattr(witness_module, "fast_embedder", broken)
    witness = CrossScriptWitness(2, lambda embedder: np.zeros((1, 2), np.float32))
    cands = _cands([("我对花生过敏", 0.9)])
    with caplog.at_level(logging.WARNING, logger="remem.search"):
        out = relevance(cands, _e5_ctx("Who is allergic to peanuts?", cands, witness))
    assert [c.record.id for c in out] == ["r1"]  # the search goes on with e5 alone
    assert cands[0].relevance == pytest.approx(calibration_for(E5)(0.8, 0.8, 0.0), rel=1e-5)
    assert not witness.applies(E5)
    assert "without the cross-script witness: USE weights missing" in caplog.text
