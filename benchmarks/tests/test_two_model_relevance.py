"""The two-model relevance study (benchmarks/scripts/two_model_relevance.py) on hand-made rows: the evidence
sets, the balanced logistic fit, the training set, the 2-fold-by-conversation judging (no row
scored by a fit that saw it, held-out datasets never fitted on), the floor table and the floor
it would ship with, and the CJK marking of load()."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from bench_helpers import load_bench_script

REPO = Path(__file__).resolve().parents[2]


tmr = load_bench_script("two_model_relevance")


def _sigmoid(z: float) -> float:
    return 1 / (1 + np.exp(-z))


def _hit(cos: float | None, gold: bool = False, **kw) -> dict:
    return {"cos": cos, "gold": gold, "cov": 0.5, "ucos": 0.3, "cross": False, **kw}


def _row(kind: str, hits: list[dict], *, dataset="a", conv=0, n_gold=None, **kw) -> dict:
    n = sum(h["gold"] for h in hits) if n_gold is None else n_gold
    row = {"dataset": dataset, "conv": conv, "qid": "q", "kind": kind, "hits": hits}
    return {**row, "n_gold": n, "base": 0.8, "ubase": 0.2, "cjk": 0.0, **kw}


def _cos(row: dict, hit: dict) -> list[float]:
    """One-number evidence for the fit tests: the hit's cosine as it stands."""
    return [hit["cos"]]


# ---------------------------------------------------------------------------- evidence


def test_e5_evidence_maps_uses_cosine_only_for_hits_the_witness_reads():
    a, b = tmr.A, tmr.B
    row = {"base": 0.8, "ubase": 0.2, "cjk": 0.0}
    mapped = 0.8 + a + b * (0.6 - 0.2)
    assert mapped > 0.7
    assert tmr._e5(row, _hit(0.7, ucos=0.6, cross=True, cov=0.25)) == pytest.approx(
        [mapped, 0.8, 0.25]
    )
    assert tmr._e5(row, _hit(0.7, ucos=0.6, cross=False))[0] == 0.7
    # the better of the two: a low mapped USE cosine leaves e5's own
    assert tmr._e5(row, _hit(0.95, ucos=0.0, cross=True))[0] == 0.95


def test_evidence_sets_add_the_use_margin_and_the_smaller_margin():
    row = {"base": 0.8, "ubase": 0.2, "cjk": 0.0}
    hit = _hit(0.85, ucos=0.5, cov=0.4)
    today = [0.85, 0.8, 0.4]
    assert tmr.EVIDENCE["today"](row, hit) == today
    assert tmr.EVIDENCE["+use"](row, hit) == pytest.approx([*today, 0.3])
    # USE's margin 0.3 against e5's raw margin 0.05: both must agree, so 0.05
    assert tmr.EVIDENCE["+use-min"](row, hit) == pytest.approx([*today, 0.3, 0.05])
    # by-script: a CJK question gets an intercept and coefficients of its own
    assert tmr.EVIDENCE["by-script"](row, hit) == [*today, 0.0, 0.0, 0.0, 0.0]
    assert tmr.EVIDENCE["by-script"]({**row, "cjk": 1.0}, hit) == [*today, 1.0, *today]


# ---------------------------------------------------------------------------- the fit


def _two_groups(n_pos: int, n_neg: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Feature 0 separates the classes (means +1 and -1, overlapping); feature 1 is noise."""
    rng = np.random.default_rng(seed)
    pos = np.column_stack([rng.normal(1.0, 1.0, n_pos), rng.normal(0.0, 1.0, n_pos)])
    neg = np.column_stack([rng.normal(-1.0, 1.0, n_neg), rng.normal(0.0, 1.0, n_neg)])
    return np.vstack([pos, neg]), np.r_[np.ones(n_pos), np.zeros(n_neg)]


def test_fit_recovers_the_sign_of_a_separating_feature():
    x, y = _two_groups(200, 200)
    w = tmr.fit(x, y)
    assert w.shape == (3,)
    assert w[1] > 1.0 and abs(w[2]) < 0.3 * w[1]
    flipped = tmr.fit(x * np.array([-1.0, 1.0]), y)
    assert flipped[1] == pytest.approx(-w[1], rel=1e-6)
    # ordering: the fitted probabilities rank positives over negatives (AUC; the best any
    # score can do on these two overlapping groups is about 0.92)
    p = _sigmoid(np.hstack([np.ones((len(x), 1)), x]) @ w)
    auc = (p[y == 1][:, None] > p[y == 0][None, :]).mean()
    assert auc > 0.85


def test_fit_weighs_the_classes_equally():
    # With an intercept and balanced class weights the fit makes the mean probability of the
    # positives and that of the negatives add up to one, however many there are of each;
    # an unweighted fit on 1 positive in 10 would put both means near 0.1.
    x, y = _two_groups(30, 270, seed=1)
    w = tmr.fit(x, y)
    p = _sigmoid(np.hstack([np.ones((len(x), 1)), x]) @ w)
    assert p[y == 1].mean() + p[y == 0].mean() == pytest.approx(1.0, abs=1e-3)
    assert p[y == 1].mean() > 0.7


def test_training_set_takes_gold_hits_of_answerable_rows_against_every_probe_hit():
    rows = [
        _row("ans", [_hit(0.9, True), _hit(0.5), _hit(None, True)]),
        _row("probe", [_hit(0.1 * i) for i in range(12)]),  # only the top 10 count
        _row("unans", [_hit(0.7), _hit(0.6)]),  # unanswerable questions do not train
    ]
    x, y = tmr.training_set(rows, _cos)
    assert x.shape == (11, 1)
    assert y.tolist() == [1.0] + [0.0] * 10
    assert x[0, 0] == 0.9 and x[-1, 0] == pytest.approx(0.9)


def test_best_relevance_is_the_best_of_the_top_ten_hits():
    w = np.array([0.0, 1.0])
    row = _row("ans", [_hit(None), _hit(0.0), _hit(2.0), *[_hit(-1.0)] * 7, _hit(9.0)])
    assert tmr.best_relevance(row, w, _cos) == pytest.approx(_sigmoid(2.0))
    assert tmr.best_relevance(_row("probe", []), w, _cos) == 0.0
    assert tmr.best_relevance(_row("probe", [_hit(None)]), w, _cos) == 0.0


def test_recall10_counts_gold_in_the_top_ten_over_all_gold():
    hits = [_hit(0.9, True), *[_hit(0.5)] * 8, _hit(0.4, True), _hit(0.3, True)]
    assert tmr.recall10(_row("ans", hits, n_gold=4)) == 0.5
    assert tmr.recall10(_row("unans", [_hit(0.9)], n_gold=0)) == 0.0


# ---------------------------------------------------------------------------- judging


# Overlapping values, so no fit runs off to infinity.
SPREAD = (1.5, 1.0, 0.5, -0.5)


def _conversation(conv: int, sign: float, dataset: str = "a") -> list[dict]:
    """Answers at ``sign`` x SPREAD, probe hits at the mirror image."""
    ans = [_row("ans", [_hit(sign * v, True)], dataset=dataset, conv=conv) for v in SPREAD]
    probes = [_row("probe", [_hit(-sign * v)], dataset=dataset, conv=conv) for v in SPREAD]
    return ans + probes


def test_judged_scores_each_row_with_the_fit_of_the_other_conversations():
    """Conversation 0 has its answers high, conversation 1 low. Fitted on the other fold
    (conversation 1: high means off-topic), conversation 0's answers come out below 1/2 and
    its probes above; a fit that had seen them would split the difference instead."""
    c0, c1 = _conversation(0, 1.0), _conversation(1, -1.0)
    c2 = _conversation(2, 1.0)  # the same fold as conversation 0
    rows = c0 + c1 + c2
    rel = tmr.judged(rows, set(), _cos)
    assert set(rel) == {id(r) for r in rows}
    w0 = tmr.fit(*tmr.training_set(c1, _cos))  # the fit without fold 0
    w1 = tmr.fit(*tmr.training_set(c0 + c2, _cos))  # the fit without fold 1
    assert w0[1] < 0 < w1[1]
    for r in c0 + c2:
        assert rel[id(r)] == pytest.approx(tmr.best_relevance(r, w0, _cos))
    for r in c1:
        assert rel[id(r)] == pytest.approx(tmr.best_relevance(r, w1, _cos))
    # what leakage would change: every answer with a hit at 1.5 looks off-topic out of fold
    top_answers = [r for r in c0 + c1 if r["kind"] == "ans" and abs(r["hits"][0]["cos"]) == 1.5]
    assert all(rel[id(r)] < 0.2 for r in top_answers)
    w_all = tmr.fit(*tmr.training_set(rows, _cos))
    assert all(tmr.best_relevance(r, w_all, _cos) > 0.5 for r in c0[:1] + c2[:1])


def test_held_out_datasets_are_never_fitted_on():
    fitted = _conversation(0, 1.0) + _conversation(1, 1.0)
    # many held-out rows that say the opposite: fitted on, they would flip the sign
    held = [r for c in range(4) for r in _conversation(c, -1.0, dataset="h")] * 5
    rel = tmr.judged(fitted + held, {"h"}, _cos)
    alone = tmr.judged(fitted, set(), _cos)
    for r in fitted:
        assert rel[id(r)] == alone[id(r)]
    w_all = tmr.fit(*tmr.training_set(fitted, _cos))
    assert w_all[1] > 0
    for r in held:
        assert rel[id(r)] == pytest.approx(tmr.best_relevance(r, w_all, _cos))
    # judged by the fitted datasets' calibration, the held-out answers look off-topic
    assert all(rel[id(r)] < 0.5 for r in held if r["kind"] == "ans" and r["hits"][0]["cos"] < -1)


# ---------------------------------------------------------------------------- floors


def test_floor_table_loses_recall_and_answers_fewer_probes_as_the_floor_rises():
    r1 = _row("ans", [_hit(0.9, True)])
    r2 = _row("ans", [_hit(0.9, True)])
    r3 = _row("ans", [_hit(0.9, True)], n_gold=2)  # half its gold in the top ten
    p1, p2, u1 = _row("probe", [_hit(0.1)]), _row("probe", [_hit(0.1)]), _row("unans", [])
    only_ans = _row("ans", [_hit(0.9, True)], dataset="b")
    rows = [r1, r2, r3, p1, p2, u1, only_ans]
    rel = {id(r1): 0.12, id(r2): 0.5, id(r3): 0.9, id(p1): 0.3, id(p2): 0.6, id(u1): 0.2}
    rel[id(only_ans)] = 1.0
    table = tmr.floor_table(rows, rel)
    assert set(table) == {"a", "b"} and set(table["a"]) == set(tmr.FLOORS)
    a = table["a"]
    assert a[0.05] == {"recall@10 lost": 0.0, "probes answered": 1.0, "unanswerable answered": 1.0}
    assert a[0.15]["recall@10 lost"] == pytest.approx(1 / 3, abs=1e-4)
    assert a[0.55]["recall@10 lost"] == pytest.approx(2 / 3, abs=1e-4)
    assert a[0.35]["probes answered"] == 0.5 and a[0.65]["probes answered"] == 0.0
    # a best relevance right at the floor clears it
    assert a[0.2]["unanswerable answered"] == 1.0 and a[0.25]["unanswerable answered"] == 0.0
    assert a[0.3]["probes answered"] == 1.0
    assert a[0.5]["recall@10 lost"] == pytest.approx(1 / 3, abs=1e-4)
    lost = [a[f]["recall@10 lost"] for f in tmr.FLOORS]
    probes = [a[f]["probes answered"] for f in tmr.FLOORS]
    assert lost == sorted(lost) and lost[-1] > lost[0]
    assert probes == sorted(probes, reverse=True) and probes[-1] < probes[0]
    # a dataset without probes or unanswerable questions has only the recall column
    assert table["b"][0.7] == {"recall@10 lost": 0.0}


def _table(lost: dict[float, float]) -> dict[float, dict]:
    return {f: {"recall@10 lost": lost.get(f, 0.0 if f < min(lost) else 1.0)} for f in tmr.FLOORS}


def test_shipping_floor_is_the_highest_floor_costing_no_dataset_over_the_rule():
    a = _table({0.35: 0.01, 0.4: 0.02})  # 0.01 is allowed, 0.02 is not
    b = _table({0.45: 0.05})
    assert tmr.shipping_floor({"a": a}) == 0.35
    assert tmr.shipping_floor({"b": b}) == 0.4
    assert tmr.shipping_floor({"a": a, "b": b}) == 0.35  # the strictest dataset decides
    assert tmr.shipping_floor({"a": _table({0.05: 0.5})}) == 0.0


def test_shipping_floor_from_a_floor_table_keeps_a_loss_of_exactly_one_percent():
    # 100 answers each fully found: one falls under floors above 0.32, another above 0.42
    rows = [_row("ans", [_hit(0.9, True)]) for _ in range(100)]
    rel = {id(r): 0.9 for r in rows}
    rel[id(rows[0])], rel[id(rows[1])] = 0.32, 0.42
    table = tmr.floor_table(rows, rel)
    assert table["a"][0.4]["recall@10 lost"] == 0.01
    assert table["a"][0.45]["recall@10 lost"] == 0.02
    assert tmr.shipping_floor(table) == 0.4


# ---------------------------------------------------------------------------- load / main


def _dump_rows() -> list[dict]:
    rows = []
    for conv in (0, 1, 2, 3):
        for i, v in enumerate(SPREAD):
            rows.append(_row("ans", [_hit(0.8 + 0.05 * v, True)], conv=conv, qid=f"q{conv}{i}"))
            rows.append(_row("probe", [_hit(0.8 - 0.05 * v)], conv=conv, qid=f"p{i}"))
    rows.append(_row("unans", [_hit(0.75)], conv=0, qid="u0"))
    return rows


def test_load_marks_cjk_questions_and_drops_rows_without_a_baseline(tmp_path, monkeypatch):
    scripts = {("zh", "q1"): "cjk", ("en", "q1"): "latin", "p1": "cjk", "p2": "latin"}
    monkeypatch.setattr(tmr, "_question_scripts", lambda: scripts)
    rows = [
        _row("ans", [], dataset="zh", qid="q1"),
        _row("ans", [], dataset="en", qid="q1"),  # the same qid in another dataset
        _row("probe", [], dataset="en", qid="p1"),  # probes are looked up by qid alone
        _row("probe", [], dataset="zh", qid="p2"),
        _row("ans", [], dataset="zh", qid="unknown"),
        _row("ans", [], dataset="zh", qid="q1", base=None),
    ]
    path = tmp_path / "xs.jsonl"
    path.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "cjk"}) + "\n" for r in rows)
    )
    loaded = tmr.load([str(path)])
    assert [r["cjk"] for r in loaded] == [1.0, 0.0, 1.0, 0.0, 0.0]


def test_main_reports_every_evidence_set_at_its_shipping_floor(tmp_path, monkeypatch):
    path = tmp_path / "xs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _dump_rows()))
    out = tmp_path / "report.json"
    monkeypatch.setattr(tmr, "_question_scripts", lambda: {"q00": "cjk"})
    monkeypatch.setattr(sys, "argv", ["two_model_relevance.py", str(path), "--out", str(out)])
    tmr.main()
    report = json.loads(out.read_text())
    # rows dumped without the store's nearest cosines, the sparse cosines, the unseen share or
    # the translated coverage: the evidence that needs them is left out
    needs_store = {
        name
        for name in tmr.EVIDENCE
        if any(field in name for field in ("store", "sparse", "unseen", "tcov"))
    }
    assert needs_store and set(report) == {"rule", *tmr.EVIDENCE} - needs_store
    for name in set(tmr.EVIDENCE) - needs_store:
        got = report[name]
        floor = got["shipping floor"]
        assert floor in (0.0, *tmr.FLOORS)
        assert got["at the shipping floor"]["a"] == got["floors"]["a"].get(str(floor))
        if floor:
            assert got["floors"]["a"][str(floor)]["recall@10 lost"] <= tmr.RULE
        n_features = len(tmr.EVIDENCE[name](_dump_rows()[0], _dump_rows()[0]["hits"][0]))
        assert len(got["coefficients (fitted on all but the held-out)"]) == n_features + 1


def test_the_store_baseline_reads_the_kth_nearest_or_a_small_stores_last():
    row = {"store_cos": [0.9, 0.8, 0.7]}
    assert tmr._store(row, 1) == 0.9
    assert tmr._store(row, 3) == 0.7
    assert tmr._store(row, 5) == 0.7  # three records only


def test_with_the_stores_nearest_cosines_every_evidence_set_and_the_one_script_split_report(
    tmp_path, monkeypatch
):
    rows = _dump_rows()
    for r in rows:  # an answer stands out of its store's neighbourhood less than a probe
        r["store_cos"] = [r["hits"][0]["cos"] - 0.01 * k for k in range(6)]
    path = tmp_path / "xs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "report.json"
    monkeypatch.setattr(tmr, "_question_scripts", lambda: {})
    monkeypatch.setattr(sys, "argv", ["two_model_relevance.py", str(path), "--out", str(out)])
    tmr.main()
    report = json.loads(out.read_text())
    sparse = {name for name in tmr.EVIDENCE if "sparse" in name or "unseen" in name}
    assert set(report) == {"rule", *tmr.EVIDENCE, "one-script calibration"} - sparse
    split = report["one-script calibration"]
    assert len(split["coefficients (intercept, cosine, baseline, coverage)"]) == 4
    assert split["own fit's floor at the rule"] in (0.0, *tmr.FLOORS)
    # every row is in one script (dataset "a", no CJK): the whole table is the split's own fit
    assert set(split["at the shared floor"]) == {"a"}
    assert tmr.one_script({"cjk": 0.0, "dataset": "locomo"})
    assert not tmr.one_script({"cjk": 1.0, "dataset": "locomo"})
    assert not tmr.one_script({"cjk": 0.0, "dataset": "zh_groupchat"})


def test_with_sparse_cosines_the_sparse_evidence_is_fitted_and_noise_probes_are_left_out(
    tmp_path, monkeypatch
):
    rows = _dump_rows()
    for r in rows:  # the sparse cosine tells answers from probes where e5's cosine does
        for h in r["hits"]:
            h["scos"] = 0.3 if h["gold"] else 0.1
    noise = _row("probe", [_hit(0.95)], conv=0, qid="na-noise")  # a noise probe's close hit
    path = tmp_path / "xs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*rows, noise]))
    monkeypatch.setattr(tmr, "_question_scripts", lambda: {})
    monkeypatch.setattr(tmr, "_noise_probes", lambda: {"na-noise"})
    assert "na-noise" not in {r["qid"] for r in tmr.load([str(path)])}
    out = tmp_path / "report.json"
    monkeypatch.setattr(sys, "argv", ["two_model_relevance.py", str(path), "--out", str(out)])
    tmr.main()
    report = json.loads(out.read_text())
    assert {"+sparse", "+sparse-by-script"} <= set(report)
    assert len(report["+sparse"]["coefficients (fitted on all but the held-out)"]) == 5


def test_the_noise_probes_are_the_no_answer_sets_greetings_and_emoji():
    noise = tmr._noise_probes()
    queries = {
        q["qid"]: q["query"]
        for q in map(
            json.loads, (tmr.DATA / "no_answer" / "queries.jsonl").read_text().splitlines()
        )
    }
    assert {queries[q] for q in noise} >= {"ok", "thanks", "谢谢", "😀"}
    assert "What is the capital of Australia?" not in {queries[q] for q in noise}
