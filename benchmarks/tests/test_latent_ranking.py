"""benchmarks/scripts/latent_ranking.py: the best N hits re-sorted by score and latent relevance, the rest
left in place, MRR before and after."""

from __future__ import annotations

from bench_helpers import load_bench_script

lr = load_bench_script("latent_ranking")


def _hit(score, cos, scos, gold=False):
    return {"score": score, "cos": cos, "cov": 0.0, "scos": scos, "gold": gold, "cross": False}


def _row(hits):
    return {"dataset": "a", "kind": "ans", "base": 0.8, "ubase": 0.1, "hits": hits}


def test_the_latent_evidence_can_move_an_answer_up_within_the_best_n_only():
    row = _row([_hit(1.0, 0.85, 0.05), _hit(0.9, 0.86, 0.40, gold=True), _hit(0.5, 0.9, 0.9)])
    assert [h["scos"] for h in lr.reranked(row, 2, 1.0)] == [0.40, 0.05, 0.9]
    assert lr.reranked(row, 2, 0.0) == row["hits"]  # by score alone: as it was
    assert lr.first_gold(lr.reranked(row, 2, 1.0)) == 1.0 > lr.first_gold(row["hits"])


def test_rows_without_latent_cosines_are_left_as_they_are():
    row = _row([_hit(1.0, 0.85, 0.05), {"score": 0.9, "cos": None, "gold": True}])
    assert lr.reranked(row, 2, 1.0) == row["hits"]


def test_report_gives_each_dataset_its_pipeline_mrr_and_every_shape():
    rows = [_row([_hit(1.0, 0.85, 0.05), _hit(0.9, 0.86, 0.40, gold=True)])]
    got = lr.report(rows)["a"]
    assert got["n"] == 1 and got["pipeline"] == 0.5
    assert set(got) == {"n", "pipeline", *(f"best {n}, alpha {a}" for n, a in lr.SHAPES)}
