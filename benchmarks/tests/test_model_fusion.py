"""The model-fusion benchmark (benchmarks/scripts/model_fusion.py): its fusion rules and separation figures
on hand-made lists, and the whole offline pass on a tiny dataset with both bundled models."""

from __future__ import annotations

import doctest
import json
import sys
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest
from bench_helpers import load_bench_script

REPO = Path(__file__).resolve().parents[2]


mf = load_bench_script("model_fusion")
rules = sys.modules["fusion_rules"]


def test_doctests_pass():
    result = doctest.testmod(rules)
    assert result.attempted >= 7 and result.failed == 0


# Three turns: e5 ranks 0 > 1 > 2, USE ranks 2 > 1 > 0; turn 1 is second for both.
COS = {"e5": np.array([0.90, 0.85, 0.70]), "use": np.array([0.10, 0.50, 0.60])}
LISTS = {"e5": [(0, 0.90), (1, 0.85)], "use": [(2, 0.60), (1, 0.50)]}


def test_mean_cosine_reads_the_missing_models_exact_cosine():
    # Turn 0 is only in e5's list: its USE cosine (0.10) is fetched, not taken as missing.
    assert rules.mean_cosine(LISTS, COS, 3) == [(1, 0.675), (2, 0.65), (0, 0.5)]


def test_rrf_rewards_agreement_and_ignores_scale():
    ranked = rules.rrf(LISTS, COS, 3)
    assert ranked[0][0] == 1  # second in both lists beats first in one
    assert ranked[0][1] == pytest.approx(2 / 62 / (2 / 61), abs=1e-4)
    scaled = {m: [(i, s * 100) for i, s in lst] for m, lst in LISTS.items()}
    assert rules.rrf(scaled, COS, 3) == ranked


def test_minmax_rules_put_each_models_best_at_one_and_the_unlisted_at_zero():
    by_max = dict(rules.max_minmax(LISTS, COS, 3))
    assert by_max[0] == 1.0 and by_max[2] == 1.0 and by_max[1] == 0.0
    by_mean = dict(rules.mean_minmax(LISTS, COS, 3))
    # turn 0: 1 for e5, its USE cosine is below USE's list so 0 (not negative)
    assert by_mean == {0: 0.5, 1: 0.0, 2: 0.5}


def test_rules_truncate_to_the_pool():
    for rule in mf.FUSION_RULES.values():
        assert len(rule(LISTS, COS, 2)) == 2


def test_separation_reports_spreads_and_auc_per_group():
    tops = {"e5": {"answerable": [0.9, 0.8, 0.7], "cross_lingual": [0.7], "no_answer": [0.6, 0.75]}}
    out = mf.separation(tops)["e5"]
    assert out["answerable"]["p50"] == 0.8 and out["no_answer"]["n"] == 2
    assert out["auc_answerable_vs_no_answer"] == pytest.approx(5 / 6, abs=1e-4)
    assert out["auc_cross_lingual_vs_no_answer"] == 0.5
    assert "auc_answerable_vs_unanswerable" not in out


def test_cross_lingual_questions_count_in_their_own_group_too():
    cross = {"query": "q", "gold": ["t1"], "category": "cross_lingual"}
    assert mf.Question(cross, False).groups == ["answerable", "cross_lingual"]
    assert mf.Question({**cross, "gold": []}, False).groups == ["unanswerable"]
    assert mf.Question({"query": "q"}, True).groups == ["no_answer"]


def _summary(r10: float, mrr: float) -> dict:
    overall = {"recall@5": r10 - 0.1, "recall@10": r10, "mrr": mrr}
    return {"n_answerable": 10, "overall": overall, "by_category": {}}


def test_summary_averages_datasets_and_names_those_below_lexical():
    results = [
        {
            "dataset": "a",
            "suite": {"lexical": _summary(0.5, 0.3)},
            "offline": {"lexical": _summary(0.4, 0.3), "hybrid:x": _summary(0.45, 0.4)},
        },
        {
            "dataset": "b",
            "suite": {"lexical": _summary(0.5, 0.3)},
            "offline": {"lexical": _summary(0.6, 0.3), "hybrid:x": _summary(0.55, 0.2)},
        },
    ]
    table = mf.summary(results)
    # offline rows are held against the offline lexical list, not the suite's
    assert table["hybrid:x"]["below_lexical_recall@10"] == ["b"]
    assert table["hybrid:x"]["macro"]["recall@10"] == 0.5
    assert table["hybrid:x"]["macro"]["mrr"] == 0.3
    assert table["suite:lexical"]["below_lexical_recall@10"] == []


@pytest.mark.slow
def test_whole_run_on_a_tiny_dataset(tmp_path, monkeypatch):
    """Both models embed a six-turn chat; the suite and offline passes score its questions.
    Each question repeats its turn word for word, so every channel ranks it first: a
    rowid/position mix-up between the two stores would show as an MRR below 1."""
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")
    data = tmp_path / "zh_groupchat"
    data.mkdir()
    texts = [
        "我下周二要去成都出差",
        "The staging server moved to a new rack in the basement",
        "Let's order pizza for the team on Friday",
        "我的猫叫咪咪，三岁了",
        "The quarterly report is due next Monday",
        "明天下午三点开会讨论预算",
    ]
    turns = [
        {
            "id": f"t{i}",
            "conversation": "c",
            "session": f"s{i % 2}",
            "timestamp": 1_700_000_000 + i,
            "speaker": "a",
            "role": "user",
            "text": t,
        }
        for i, t in enumerate(texts)
    ]
    questions = [
        {
            "qid": f"q{i}",
            "conversation": "c",
            "query": texts[i],
            "gold": [f"t{i}"],
            "gold_sessions": [f"s{i % 2}"],
            "category": "cross_lingual" if i == 5 else "single_fact",
            "timestamp": 1_700_000_100,
        }
        for i in (1, 5)
    ]
    questions.append(
        {
            "qid": "q9",
            "conversation": "c",
            "query": "谁的生日是几号",
            "gold": [],
            "category": "unanswerable",
            "timestamp": 1_700_000_100,
        }
    )
    for name, rows in (("corpus", turns), ("queries", questions)):
        (data / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    probes = [{"qid": "na-1", "query": "how tall is mount everest", "target": "both"}]
    dataset = mf.SuiteDataset("zh_groupchat", data)
    args = Namespace(
        cache_dir=str(tmp_path / "cache"),
        out_dir=str(tmp_path),
        limit_conversations=None,
        skip_suite=False,
    )
    result = mf.run_dataset(dataset, probes, args)

    assert set(result["suite"]) == {
        "e5-default",
        "e5-vector",
        "lexical",
        "use-default",
        "use-vector",
    }
    assert result["suite"]["e5-vector"]["no_answer"]["n"] == 1
    offline = result["offline"]
    rules = [f"fused-{r}" for r in mf.FUSION_RULES]
    expected = {"lexical"} | {
        f"{how}:{v}" for how in ("vector", "hybrid") for v in ["e5", "use", *rules]
    }
    assert set(offline) == expected
    for name, summary in offline.items():
        assert summary["n_answerable"] == 2, name
        assert summary["overall"]["mrr"] == 1.0, name
    groups = result["separation"]["fused-mean-cos"]
    assert groups["answerable"]["n"] == 2
    assert groups["unanswerable"]["n"] == 1 and groups["no_answer"]["n"] == 1
    assert result["params"]["pool"] == 50 and result["params"]["no_answer_probes"] == 1
    assert groups["cross_lingual"]["n"] == 1

    # --skip-suite: the offline pass again over the cached stores, the suite figures kept
    # from the file; everything but timings comes out the same
    (tmp_path / "model-fusion-zh_groupchat.json").write_text(json.dumps(result))
    args.skip_suite = True
    again = mf.run_dataset(dataset, probes, args)
    assert again["suite"] == result["suite"]
    assert again["separation"] == result["separation"]
    drop = ("latency_ms",)
    for name, summary in offline.items():
        kept = {k: v for k, v in again["offline"][name].items() if k not in drop}
        assert kept == {k: v for k, v in summary.items() if k not in drop}, name
