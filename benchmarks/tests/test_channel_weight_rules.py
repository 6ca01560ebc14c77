"""The channel-weight rule search (benchmarks/scripts/channel_weight_rules.py) on hand-made rows: scoring a
weight choice, the per-dataset objective, stumps and the search for the best one, the feature
quartiles, and the leave-one-dataset-out pass of main() (a rule is chosen only on the datasets
it is not scored on)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from bench_helpers import load_bench_script

cwr = load_bench_script("channel_weight_rules")
WS = [0.2, 0.4, 0.6]
assert cwr.DEFAULT in WS


def _row(dataset: str, f: dict, per_weight: dict[float, tuple[float, float, float]]) -> dict:
    """A dumped row: (recall@10, MRR, session recall@10) at each weight, features ``f``."""
    row: dict = {"dataset": dataset, "f": f}
    for w, (r10, mrr, s10) in per_weight.items():
        row[f"r10@{w}"], row[f"mrr@{w}"], row[f"s10@{w}"] = r10, mrr, s10
    return row


def _prefers(dataset: str, f: dict, best: float) -> dict:
    """A row for which ``best`` finds everything, the default half, any other weight nothing."""
    values = {w: (1.0, 1.0, 1.0) if w == best else (0.0, 0.0, 0.0) for w in WS}
    if best != cwr.DEFAULT:
        values[cwr.DEFAULT] = (0.5, 0.5, 0.5)
    return _row(dataset, f, values)


def _split(dataset: str, n: int, low: float, high: float) -> list[dict]:
    """n rows: half with x = 0 preferring ``low``, half with x = 1 preferring ``high``; the
    ``noise`` feature alternates inside each half, so it says nothing about the weight."""
    return [
        _prefers(dataset, {"noise": float(i % 2), "x": float(x)}, low if x == 0 else high)
        for x in (0, 1)
        for i in range(n // 2)
    ]


def test_weights_of_reads_the_dumped_keys_in_order():
    row = _row("a", {}, {0.6: (0, 0, 0), 0.2: (0, 0, 0), 0.4: (0, 0, 0)})
    assert cwr.weights_of([row]) == WS
    assert cwr.value({"r10@0.4": 0.5, "mrr@0.4": 0.25}, 0.4) == 0.75


def test_score_averages_each_rows_metrics_at_the_weight_chosen_for_it():
    rows = [
        _row("a", {"x": 0.0}, {0.2: (1.0, 0.5, 1.0), 0.6: (0.0, 0.0, 0.0)}),
        _row("a", {"x": 1.0}, {0.2: (1.0, 1.0, 1.0), 0.6: (0.5, 0.25, 0.0)}),
    ]
    got = cwr.score(rows, lambda r: 0.2 if r["f"]["x"] < 1 else 0.6)
    assert got == {"recall@10": 0.75, "mrr": 0.375, "session_recall@10": 0.5}
    assert cwr.score([], lambda r: 0.2) == {"recall@10": 0, "mrr": 0, "session_recall@10": 0}


def test_objective_counts_each_dataset_once_whatever_its_size():
    good = _row("a", {}, {0.4: (1.0, 1.0, 1.0)})
    bad = _row("b", {}, {0.4: (0.0, 0.0, 0.0)})
    # pooled, the three bad rows would pull the mean to 0.5; per dataset it is (2 + 0) / 2
    assert cwr.objective({"a": [good], "b": [bad, bad, bad]}, lambda r: 0.4) == 1.0


def test_stump_takes_low_below_the_threshold_and_high_from_it_up():
    rule = cwr.stump("x", 0.5, 0.2, 0.6)
    assert [rule({"f": {"x": v}}) for v in (0.0, 0.49, 0.5, 3.0)] == [0.2, 0.2, 0.6, 0.6]


def test_thresholds_are_the_twentieths_of_the_pooled_values():
    rows = [{"f": {"x": float(v)}} for v in reversed(range(100))]
    assert cwr.thresholds(rows, "x") == [float(5 * q) for q in range(1, 20)]
    # a two-valued feature gives its two values (the lower one sends every row to ``high``)
    assert cwr.thresholds(_split("a", 20, 0.2, 0.6), "x") == [0.0, 1.0]


def test_best_stump_finds_the_feature_that_separates_the_rows_and_beats_the_default():
    by_ds = {"a": _split("a", 20, 0.2, 0.6), "b": _split("b", 10, 0.2, 0.6)}
    default = cwr.objective(by_ds, lambda r: cwr.DEFAULT)
    assert default == 1.0  # the default gets half of every row
    # the noise feature comes first, so the search has to pass over it
    found = cwr.best_stump(by_ds, WS, ["noise", "x"])
    assert found["rule"] == ("x", 1.0, 0.2, 0.6)
    assert found["objective"] == pytest.approx(2.0)
    assert found["objective"] > default
    # either fixed weight is only as good as the default: half the rows each
    assert cwr.objective(by_ds, lambda r: 0.6) == default


def test_best_stump_keeps_the_default_when_no_feature_helps():
    by_ds = {"a": [_prefers("a", {"x": float(i % 3)}, cwr.DEFAULT) for i in range(12)]}
    found = cwr.best_stump(by_ds, WS, ["x"])
    assert found == {"objective": 2.0, "rule": None}
    # nor when the only separating rules merely tie the default
    tie = {"a": _split("a", 10, 0.2, 0.6), "b": _split("b", 10, 0.6, 0.2)}
    assert cwr.best_stump(tie, WS, ["x"])["rule"] is None


def test_quartiles_name_each_datasets_best_weight_inside_each_quarter():
    # x = 0..59: cuts at 15, 30, 45; rows under 30 want 0.2, the others 0.6
    rows = [_prefers("a", {"x": float(i)}, 0.2 if i < 30 else 0.6) for i in range(60)]
    cells = cwr.quartiles({"a": rows}, WS, "x")
    assert [c["range"] for c in cells] == [
        [float("-inf"), 15.0],
        [15.0, 30.0],
        [30.0, 45.0],
        [45.0, float("inf")],
    ]
    assert [c["a"]["best"] for c in cells] == [0.2, 0.2, 0.6, 0.6]
    assert all(c["a"] == {"n": 15, "best": c["a"]["best"], "gain": 1.0} for c in cells)
    # a dataset with fewer than 15 rows in a quarter is left out of it
    small = cwr.quartiles({"a": rows[:56]}, WS, "x")
    assert all(set(c) == {"range"} for c in small)


def _write(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_leave_one_out_chooses_the_rule_on_the_other_datasets_only(tmp_path, monkeypatch):
    """Dataset a wants 0.2 below x = 1 and 0.6 above, b the other way round. Chosen on both,
    every x rule only ties the default (no rule); chosen on b alone, b's rule wins, and it
    then gets nothing right on a. A rule chosen with the held-out dataset in view would come
    out as no rule, or as a's own."""
    a, b = _split("a", 20, 0.2, 0.6), _split("b", 20, 0.6, 0.2)
    paths = [_write(tmp_path / "a.jsonl", a), _write(tmp_path / "b.jsonl", b)]
    out = tmp_path / "report.json"
    monkeypatch.setattr(sys, "argv", ["channel_weight_rules.py", *paths, "--out", str(out)])
    cwr.main()
    report = json.loads(out.read_text())

    loo = report["leave_one_out"]
    assert loo["a"]["rule"] == ["x", 1.0, 0.6, 0.2]
    assert loo["b"]["rule"] == ["x", 1.0, 0.2, 0.6]
    for held in ("a", "b"):
        assert loo[held]["held_out"] == {"recall@10": 0.0, "mrr": 0.0, "session_recall@10": 0.0}
        assert loo[held]["default"] == {"recall@10": 0.5, "mrr": 0.5, "session_recall@10": 0.5}
    assert report["all"]["rule"] is None

    assert report["oracle"]["a"] == {"recall@10": 1.0, "mrr": 1.0, "session_recall@10": 1.0}
    assert set(report["fixed"]["a"]) == {"0.2", "0.4", "0.6"}
    assert report["fixed"]["a"]["0.2"]["recall@10"] == 0.5
    assert set(report["quartiles"]) == {"noise", "x"}
