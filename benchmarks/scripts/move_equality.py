"""LoCoMo through the suite runner before and after it moved out of remem (issue 43 item 4):
the same figures question by question.

The runner lived in ``src/remem/benchmark_suite.py`` until 37f8a45 moved it, and f51b9bb made
it the ``remem_bench`` package. Each side runs in its own checkout of those commits, with its
own cache of stores (each ingests LoCoMo itself), the configuration ``remem bench --suite``
builds (``load_config(long_lived=True, calendar.timezone=UTC)``) and the suite's hybrid
variant, through that side's own ``SuiteRun`` (all 10 conversations, the no-answer probes aimed
at LoCoMo). Every scored row is checkpointed as it comes, so a run cut short can still be
compared on the questions both sides reached::

    git worktree add --detach ../pre 37f8a45~1 && git worktree add --detach ../post f51b9bb
    (cd ../pre && PYTHONPATH=src python $OLDPWD/benchmarks/scripts/move_equality.py \\
        run pre ../pre/bench/data /tmp/cache-pre /tmp/pre.json)
    (cd ../post && PYTHONPATH=src:benchmarks python $OLDPWD/benchmarks/scripts/move_equality.py \\
        run post ../post/benchmarks/data /tmp/cache-post /tmp/post.json)
    python benchmarks/scripts/move_equality.py compare /tmp/pre.json /tmp/post.json

``compare`` writes ``benchmarks/results/suite-locomo-move-equality.json``. Latencies are left
out of the comparison (they are timings of a shared machine, not results).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

SHARED = Path(os.environ.get("REMEM_BENCH_DIR", "/work/shared/bench"))
OUT = Path(__file__).resolve().parents[1] / "results" / "suite-locomo-move-equality.json"
# the harness modules on each side of the move
HARNESS = {
    "pre": ("remem.benchmark", "remem.benchmark_suite"),
    "post": ("remem_bench.benchmark", "remem_bench.suite"),
}
ROWS = ("answerable", "categories", "unanswerable_hits", "no_answer_hits")


def run(side: str, data: Path, cache: Path, out: Path) -> None:
    """LoCoMo through ``side``'s harness; ``out`` holds the rows so far, then the summary."""
    from remem.cli.common import load_config

    bench, suite = (importlib.import_module(m) for m in HARNESS[side])
    (dataset,) = [d for d in suite.suite_datasets(SHARED, data, quick=True) if d.name == "locomo"]
    no_answer = suite.load_no_answer(data / "no_answer" / "queries.jsonl")
    probes = [q for q in no_answer if q.get("target") in suite.NO_ANSWER_TARGETS["locomo"]]
    config = load_config(long_lived=True, **{"calendar.timezone": "UTC"})
    start, last = time.time(), [0.0]

    def snapshot(done: int, total: int, final: bool = False) -> None:
        scores = runner.scores["locomo"]["hybrid"]
        rows = asdict(scores)
        rows.pop("latency_ms")
        doc: dict[str, Any] = {"side": side, "done": done, "total": total, "rows": rows}
        doc |= {"final": final, "elapsed_s": round(time.time() - start, 1)}
        if final:
            doc["summary"] = suite.summarise(scores)
            doc["embed_model"] = runner.embedder and runner.embedder.model_id
        out.with_suffix(".tmp").write_text(json.dumps(doc, indent=1, sort_keys=True))
        out.with_suffix(".tmp").replace(out)

    def progress(name: str, done: int, total: int) -> None:
        if time.time() - last[0] > 30 or done == total:
            last[0] = time.time()
            snapshot(done, total)
            print(f"{time.strftime('%H:%M:%S')} {name} {done}/{total}", file=sys.stderr)

    variant = bench.Variant("hybrid", ("vector", "lexical"))
    runner = suite.SuiteRun([variant], config, cache, progress=progress)
    runner.run(dataset, probes)
    snapshot(-1, -1, final=True)


def compare(pre_file: Path, post_file: Path) -> dict[str, Any]:
    """Row by row on the questions both sides reached; the summaries when both finished."""
    pre, post = (json.loads(p.read_text()) for p in (pre_file, post_file))
    report: dict[str, Any] = {"rows": {}}
    for key in ROWS:
        a, b = pre["rows"][key], post["rows"][key]
        n = min(len(a), len(b))
        report["rows"][key] = {
            "compared": n,
            "differing": [i for i in range(n) if a[i] != b[i]],
        }
    if pre.get("final") and post.get("final"):
        figures = [
            {k: v for k, v in s["summary"].items() if k != "latency_ms"} for s in (pre, post)
        ]
        report["summaries_equal"] = figures[0] == figures[1]
    for side, doc in (("pre", pre), ("post", post)):
        report[side] = {
            "finished": bool(doc.get("final")),
            "questions_asked": sum(len(doc["rows"][k]) for k in ROWS[1:]),
            "summary": doc.get("summary"),
            "figures_on_compared": prefix_figures(doc["rows"], report["rows"]),
        }
    return report


def prefix_figures(rows: dict[str, list], compared: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each metric's mean over the answerable questions both sides reached, and the share of
    those no-answer probes that got a hit (the suite's false_hit_rate)."""
    answerable = rows["answerable"][: compared["answerable"]["compared"]]
    probes = rows["no_answer_hits"][: compared["no_answer_hits"]["compared"]]
    metrics = sorted({key for row in answerable for key in row})
    means = {m: round(sum(r[m] for r in answerable) / len(answerable), 4) for m in metrics}
    rate = round(sum(probes) / len(probes), 4) if probes else None
    return {"n_answerable": len(answerable), "overall": means, "no_answer_false_hit_rate": rate}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run")
    run_p.add_argument("side", choices=sorted(HARNESS))
    for name in ("data", "cache", "out"):
        run_p.add_argument(name, type=Path)
    cmp_p = sub.add_parser("compare")
    cmp_p.add_argument("pre", type=Path)
    cmp_p.add_argument("post", type=Path)
    cmp_p.add_argument("--out", type=Path, default=OUT)
    cmp_p.add_argument("--note", default="", help="how and where it ran (kept in the file)")
    args = parser.parse_args()
    if args.command == "run":
        run(args.side, args.data, args.cache, args.out)
    else:
        report = {"note": args.note, **compare(args.pre, args.post)}
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(args.out.read_text())


if __name__ == "__main__":
    main()
