"""The channel-fusion screen (benchmarks/scripts/channel_fusion.py) on hand-made candidate lists: the score
normalisers, weighted fusion (records found by both channels, a channel's missing records, the
default rule's span floor), reciprocal rank fusion, recall@10 / MRR of a fused list, and the
score pass over dumped rows."""

from __future__ import annotations

import json

import pytest
from bench_helpers import load_bench_script

cf = load_bench_script("channel_fusion")


# ---------------------------------------------------------------------------- normalisers


def test_minmax_maps_the_range_onto_zero_one_with_an_optional_span_floor():
    f = cf._norm_minmax([0.2, 0.6, 1.0])
    assert [f(s) for s in (0.2, 0.6, 1.0)] == pytest.approx([0.0, 0.5, 1.0])
    # a 0.02 spread counts as 0.05: the best still maps to 1, the worst only down to 0.6
    g = cf._norm_minmax([0.80, 0.82], min_span=0.05)
    assert [g(0.80), g(0.82)] == pytest.approx([0.6, 1.0])
    # a wide spread is not touched by the floor
    assert cf._norm_minmax([0.2, 1.0], min_span=0.05)(0.2) == pytest.approx(0.0)
    assert cf._norm_minmax([0.7, 0.7])(0.7) == 1.0  # no spread at all


def test_over_best_divides_by_the_top_score():
    f = cf._norm_over_best([2.0, 4.0, 1.0])
    assert [f(4.0), f(2.0), f(1.0)] == [1.0, 0.5, 0.25]
    assert cf._norm_over_best([0.0, -1.0])(0.0) == 0.0


def test_z_scores_and_a_constant_list():
    f = cf._norm_z([1.0, 3.0])  # mean 2, population sd 1
    assert [f(1.0), f(3.0), f(2.0)] == [-1.0, 1.0, 0.0]
    assert cf._norm_z([5.0, 5.0])(5.0) == 0.0


def test_dbsf_maps_mean_minus_three_sd_to_zero_and_mean_plus_three_sd_to_one():
    scores = [0.3, 0.5, 0.9, 1.3]  # mean 0.75, population sd 0.3841...
    mu = sum(scores) / 4
    sd = (sum((s - mu) ** 2 for s in scores) / 4) ** 0.5
    f = cf._norm_dbsf(scores)
    assert f(mu - 3 * sd) == pytest.approx(0.0, abs=1e-12)
    assert f(mu + 3 * sd) == pytest.approx(1.0)
    assert f(mu) == pytest.approx(0.5)
    assert cf._norm_dbsf([2.0, 2.0])(2.0) == 0.5  # sd 0 counts as 1


# ---------------------------------------------------------------------------- fusion


def test_weighted_minmax_ranks_a_record_both_channels_found_above_a_one_channel_tie():
    # records 1 and 2 tie at the top of the vector list; only 1 is also found by BM25
    v = [(2, 0.9), (1, 0.9), (3, 0.5)]
    lx = [(1, 5.0), (4, 1.0)]
    fuse = cf.weighted(cf._norm_minmax, cf._norm_minmax, 0.5)
    assert fuse(v, lx) == [1, 2, 3, 4]  # 1.0, 0.5, then 3 and 4 at 0 by rowid
    assert cf.RULES["minmax-0.5"](v, lx) == [1, 2, 3, 4]


def test_weighted_gives_a_records_missing_channel_zero_or_the_missing_value():
    v, lx = [(1, 3.0), (2, 1.0)], [(1, 1.0), (3, 3.0)]  # z: 1 -> +1 / -1, 2 -> -1, 3 -> +1
    # absent counts 0: 3 = 0.5, 1 = 0, 2 = -0.5
    assert cf.weighted(cf._norm_z, cf._norm_z, 0.5)(v, lx) == [3, 1, 2]
    # absent counts -1 (as low as a z-score usually goes): 1 = 0 and 3 = 0 tie, 2 = -1
    assert cf.weighted(cf._norm_z, cf._norm_z, 0.5, missing=-1.0)(v, lx) == [1, 3, 2]
    assert cf.RULES["z-0.5"](v, lx) == [1, 3, 2]


def test_weighted_with_one_channel_empty_keeps_the_other_channels_order():
    fuse = cf.weighted(cf._norm_minmax, cf._norm_minmax, 0.4)
    assert fuse([], [(6, 1.0), (5, 2.0)]) == [5, 6]
    assert fuse([(6, 0.1), (5, 0.9)], []) == [5, 6]
    assert fuse([], []) == []


def test_weighted_leans_on_the_channel_with_more_weight():
    v, lx = [(1, 0.9), (2, 0.1)], [(2, 9.0), (1, 1.0)]
    assert cf.weighted(cf._norm_minmax, cf._norm_minmax, 0.6)(v, lx) == [1, 2]
    assert cf.weighted(cf._norm_minmax, cf._norm_minmax, 0.4)(v, lx) == [2, 1]


def test_default_rules_span_floor_keeps_a_tiny_cosine_gap_from_deciding():
    # vector: 1 over 2 by 0.01; BM25: 2 clearly over 1
    v, lx = [(1, 0.81), (2, 0.80)], [(2, 4.0), (1, 3.0)]
    # span 0.05: vector 1.0 / 0.8, BM25 over the best 0.75 / 1.0 -> 1: 0.875, 2: 0.9
    assert cf.RULES["default-0.5"](v, lx) == [2, 1]
    # without the floor the 0.01 gap is the whole range: 1: 0.875, 2: 0.5
    assert cf.weighted(cf._norm_minmax, cf._norm_over_best, 0.5)(v, lx) == [1, 2]


def test_rrf_ranks_by_position_not_by_score():
    v, lx = [(1, 0.9), (2, 0.1)], [(3, 50.0), (2, 49.0)]
    # 2 is second in both lists: 1/62 beats 0.5/61 for 1 and 3 (tied, by rowid)
    assert cf.rrf(60)(v, lx) == [2, 1, 3]
    # min-max would instead put 2 last: 0 in both channels
    assert cf.weighted(cf._norm_minmax, cf._norm_minmax, 0.5)(v, lx) == [1, 3, 2]
    # any scores in the same order give the same fusion
    assert cf.rrf(60)([(1, 1e6), (2, 1e5)], [(3, 0.2), (2, 0.1)]) == [2, 1, 3]
    # the weight tilts ties between channels; wv = 1 reads the vector list alone
    assert cf.rrf(60, wv=0.6)(v, lx)[:2] == [2, 1]
    assert cf.rrf(60, wv=1.0)(v, lx)[:2] == [1, 2]


def test_rrf_k_sets_how_much_the_top_rank_counts():
    # 1: first in vector only; 2: fourth in both. Small k favours the single first place.
    v = [(1, 0.9), (8, 0.8), (10, 0.75), (2, 0.7)]
    lx = [(7, 3.0), (9, 2.0), (11, 1.5), (2, 1.0)]
    assert cf.rrf(1)(v, lx).index(1) < cf.rrf(1)(v, lx).index(2)  # 0.5/2 > 1/5
    assert cf.rrf(60)(v, lx).index(2) < cf.rrf(60)(v, lx).index(1)  # 1/64 > 0.5/61


def test_rrf_counts_ranks_from_one():
    # k = 1, wv = 0.6: 2 (second in both) 0.6/3 + 0.4/3 beats 1 (first in vector) 0.6/2 and
    # 3 (first in BM25) 0.4/2; ranks counted from 0 would put 1 first (0.6 against 0.5)
    v, lx = [(1, 0.9), (2, 0.8)], [(3, 2.0), (2, 1.0)]
    assert cf.rrf(1, wv=0.6)(v, lx) == [2, 1, 3]


@pytest.mark.parametrize("name", sorted(cf.RULES))
def test_every_rule_returns_each_candidate_once(name):
    v = [(1, 0.9), (2, 0.7), (3, 0.65)]
    lx = [(3, 7.0), (4, 2.5), (5, 0.5)]
    ranked = cf.RULES[name](v, lx)
    assert sorted(ranked) == [1, 2, 3, 4, 5]


# ---------------------------------------------------------------------------- scoring


def test_metrics_averages_recall_at_ten_and_mrr_over_the_rows():
    rows = [
        # gold 5 at rank 2 and 7 at rank 4; three gold turns, one not stored (no rowid)
        {"gold": [5, 7], "n_gold": 3, "final": [1, 5, 2, 7]},
        # its only gold at rank 11: outside the top ten, for recall and MRR alike
        {"gold": [9], "n_gold": 1, "final": [*range(10, 20), 9]},
    ]
    got = cf.metrics(rows, lambda r: r["final"])
    assert got == {"recall@10": round((2 / 3) / 2, 4), "mrr": 0.25}
    assert cf.metrics([], lambda r: []) == {"recall@10": 0.0, "mrr": 0.0}


def _dump(dataset: str, v, lx, gold, final) -> dict:
    return {
        "dataset": dataset,
        "category": "single_fact",
        "v": [list(p) for p in v],
        "l": [list(p) for p in lx],
        "gold": gold,
        "n_gold": len(gold),
        "final": final,
    }


def test_score_fuses_the_dumped_lists_per_dataset(tmp_path, capsys):
    rows = [
        # vector finds the answer (1) first, BM25 ranks it second
        _dump("a", [(1, 0.9), (2, 0.5)], [(2, 3.0), (1, 2.0)], [1], [2, 1]),
        # only BM25 finds the answer
        _dump("a", [(3, 0.8)], [(4, 1.0)], [4], [4, 3]),
        _dump("b", [(5, 0.9), (6, 0.89)], [(6, 2.0)], [6], [6]),
    ]
    path = tmp_path / "cf.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "report.json"
    cf.score([str(path)], str(out))
    report = json.loads(out.read_text())

    assert set(report) == {"whole pipeline (defaults)", *cf.RULES}
    assert report["whole pipeline (defaults)"] == {
        "a": {"recall@10": 1.0, "mrr": 0.75},
        "b": {"recall@10": 1.0, "mrr": 1.0},
    }
    # rrf: a's first row has 1 and 2 tied (1 wins by rowid), its second 3 before 4
    assert report["rrf60-0.5"]["a"] == {"recall@10": 1.0, "mrr": 0.75}
    # minmax-0.6 puts 5 first in b (0.6 against 6's 0.4 + 0 from the 0.01 lower cosine)
    assert report["minmax-0.6"]["b"] == {"recall@10": 1.0, "mrr": 0.5}
    # the default's span floor keeps 6 (0.6 x 0.8 + 0.4 x 1) ahead of 5 (0.6 x 1)
    assert report["default-0.6"]["b"] == {"recall@10": 1.0, "mrr": 1.0}
    printed = capsys.readouterr().out
    assert "whole pipeline (defaults)" in printed and "macro" in printed
