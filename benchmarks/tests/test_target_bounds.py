"""benchmarks/scripts/target_bounds.py: the union bound counts a question when any ranking has its answer in
the top K, the abstention AUC ranks answerable margins against unanswerable ones, and the
margin probe reads every floor without gating while it reads and gates as shipped after."""

from __future__ import annotations

import pytest
from bench_helpers import HashEmbedder, load_bench_script

from remem import Memory
from remem.config import Config
from remem.search import relevance as relevance_stage

tb = load_bench_script("target_bounds")


def _row(**ranks: int | None) -> dict:
    names = ["default", "vector-only", "lexical-only", "e5 raw", "USE raw"]
    return {
        "qid": "q",
        "query": "?",
        **{n: ranks.get(n.replace(" ", "_").replace("-", "_")) for n in names},
    }


def test_the_union_takes_the_best_ranking_of_each_question():
    rows = [
        _row(default=3, USE_raw=9),  # in the top 5 of one ranking
        _row(vector_only=7, e5_raw=12),  # in the top 10 of one, the top 5 of none
        _row(),  # found by none
    ]
    found = tb.summarise_ranks(rows)["rankings"]
    assert found["default"]["hit@5"] == pytest.approx(1 / 3, abs=0.001)
    assert found["USE raw"]["hit@10"] == pytest.approx(1 / 3, abs=0.001)
    assert found["union of all"]["hit@5"] == pytest.approx(1 / 3, abs=0.001)
    assert found["union of all"]["hit@10"] == pytest.approx(2 / 3, abs=0.001)
    assert found["union of all"]["hit@20"] == pytest.approx(2 / 3, abs=0.001)
    assert found["lexical-only"]["hit@20"] == 0.0


def test_abstention_auc_ranks_answerable_margins_above_unanswerable_ones():
    separated = tb.summarise_margins([(0.5, True), (0.4, True), (0.1, False), (0.0, False)])
    assert separated["auc"] == 1.0
    assert separated["by_threshold"][0] == {
        "margin above": 0.0,
        "unanswerable answered": 0.5,
        "answerable emptied": 0.0,
    }
    mixed = tb.summarise_margins([(0.5, True), (0.1, True), (0.3, False), (0.3, False)])
    assert mixed["auc"] == 0.5
    assert tb.summarise_margins([(0.5, True)]) == {"n_answerable": 1, "n_unanswerable": 0}


def test_the_probe_reads_the_margin_without_gating_and_restores_the_gate(tmp_path):
    # by words alone (a lexical search) a line sharing one word of five scores far below 0.99
    config = Config.load(env={}, overrides={"search.relevance_floor": 0.99})
    with Memory(tmp_path / "m.db", config, embedder=HashEmbedder()) as mem:
        mem.ingest_many(
            [
                {"id": "a", "session": "s", "speaker": "A", "text": "the hut costs 65 euros"},
                {"id": "b", "session": "s", "speaker": "B", "text": "my bike needs new tyres"},
            ]
        )

        def off_topic():
            return mem.search(
                "quantum chromodynamics lecture bike seminar", k=3, channels=("lexical",)
            )

        original = relevance_stage.Floors.judge
        with tb.MarginProbe() as probe:
            assert off_topic().hits == []  # not reading: gated as shipped
            found = []
            margin = probe.margin(lambda: found.extend(off_topic().hits))
            assert found  # reading: every candidate the gate would remove comes back
            assert margin < 0  # ... and none cleared its floor
            assert off_topic().hits == []
        assert relevance_stage.Floors.judge is original
