"""Add the text-reading answerability inputs to rows dumped by fit_answerability.py, without
searching again: each hit's text and its neighbours (one line each side in its session, as the
pipeline reads them) come from the suite's cached stores, and every feature of ``TEXT_FEATURES``
is computed on them with the same function the pipeline calls.

    PYTHONPATH=src:benchmarks python benchmarks/scripts/reread_rows.py ROWS.jsonl OUT.jsonl

A dump takes most of an hour on a loaded machine; a feature that only reads the hit's text
(``attribute``: the asked attribute, issue 45) does not need one. A refit from the rewritten
rows (``fit_answerability.py --rows OUT.jsonl --write``) gives the fit a fresh dump gives, but
for the neighbours' window read without the question's time (a row does not keep it).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from suite_cli import DATA, REPO, read_rows

from remem.config import Config
from remem.embed.factory import make_embedder
from remem.engine import Memory
from remem.search.hit_evidence import labelled
from remem.store.queries import SessionWindow
from remem.text.answer_types import attribute_evidence
from remem_bench.suite import SuiteRun, suite_datasets

# name -> f(question, [hit, *neighbours] as "speaker: text") -> value or None
TEXT_FEATURES: dict[str, Callable[[str, list[str]], float | None]] = {
    "attribute": attribute_evidence,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows")
    ap.add_argument("out")
    ap.add_argument("--cache-dir", default=str(REPO / ".remem-bench-cache"))
    ap.add_argument("--shared-dir", default=str(REPO.parent / "shared" / "bench"))
    args = ap.parse_args()
    rows = read_rows([args.rows])
    config = Config.load(env={}, overrides={"calendar.timezone": "UTC"})
    run = SuiteRun([], config, Path(args.cache_dir))
    run.embedder = make_embedder(config.embed)
    found = suite_datasets(Path(args.shared_dir), DATA, quick=False)
    datasets = {d.name: d for d in found}
    by_store: dict[tuple[str, int], list[dict]] = {}
    for row in rows:
        by_store.setdefault((row["host"], row["conv"]), []).append(row)
    for (host, ci), asked in sorted(by_store.items()):
        path = run.db_path(datasets[host], ci)
        with Memory(path, run.config, embedder=run.embedder) as mem:
            for row in asked:
                for hit in row["hits"]:
                    record = mem.store.get(hit["id"])
                    if record is None:
                        raise SystemExit(f"{hit['id']} is not in {path}: dump the rows again")
                    around = mem.store.neighbours([record], SessionWindow(1, 1)).get(
                        record.rowid or -1, []
                    )
                    texts = [labelled(record), *(labelled(r) for r in around)]
                    for name, read in TEXT_FEATURES.items():
                        hit["features"][name] = read(row["query"], texts)
    with open(args.out, "w") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
