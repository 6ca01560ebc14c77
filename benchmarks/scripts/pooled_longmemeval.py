"""LongMemEval's questions asked of stores of realistic size: conversations pooled together.

LongMemEval oracle gives each question a store of its evidence sessions only (2-68 records,
median 22). Evidence that depends on what a store holds at all (a question word no record holds)
means nothing in a store that small, and it is where real stores differ most. This script pools
``--pool`` consecutive conversations' cached stores into one (records, vectors and latent
terms copied, nothing embedded again) and asks each question of its pool: its own evidence
among the other conversations' sessions, as one user's long history would hold it.

PYTHONPATH=src:benchmarks/scripts python benchmarks/scripts/pooled_longmemeval.py --cache-dir DIR --pool 10 \
    --limit-conversations 200 --variants default,unseen-0.3 --out OUT.json
(the conversations' own stores must be in DIR already: run the suite on them first)
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

from suite_cli import DATA, add_suite_options, chosen_datasets
from suite_variants import VARIANTS

from remem.config import Config
from remem.engine import Memory
from remem.ops import store_latent_terms
from remem.transfer.copy import _BatchCopier
from remem_bench.suite import (
    NO_ANSWER_TARGETS,
    SuiteRun,
    VariantScores,
    cache_key,
    conversations,
    load_no_answer,
    macro_average,
    summarise,
)


def pooled_store(run: SuiteRun, name: str, members: list[Path], target: Path) -> None:
    """Copy every member store into ``target`` (built once; reused when complete)."""
    config = run.config
    if target.exists():
        return
    missing = [str(path) for path in members if not path.is_file()]
    if missing:
        raise SystemExit(f"not cached yet: {', '.join(missing)}; run the suite on them first")
    partial = target.with_suffix(".partial.db")
    partial.unlink(missing_ok=True)
    with Memory(partial, config, embedder=run.embedder) as dst:
        for path in members:
            with Memory(path, config, embedder=run.embedder) as src:
                copier = _BatchCopier(
                    src.store, dst.store, dst.tokenizer, config.text.context_turns
                )
                records = src.store.iter_records(batch=500, after=0)
                while batch := list(itertools.islice(records, 500)):
                    copier.copy(batch)
        dst.embed_pending()
        store_latent_terms(dst)
    partial.rename(target)
    print(f"  pooled {name}: {len(members)} conversations", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_suite_options(ap, datasets="longmemeval_oracle")
    ap.add_argument("--pool", type=int, default=10)
    ap.add_argument("--variants", default="default")
    ap.add_argument("--out", required=True)
    ap.add_argument(
        "--probes",
        action="store_true",
        help="also ask every pool the no-answer probes aimed at LoCoMo (English chat stores)",
    )
    args = ap.parse_args()
    (dataset,) = chosen_datasets(args)
    variants = [VARIANTS[name] for name in args.variants.split(",")]
    run = SuiteRun(variants, Config.load(env={}), Path(args.cache_dir))
    convs = conversations(dataset.path, [], args.limit_conversations)
    folder = run.db_path(dataset, 0).parent
    pooled = Path(args.cache_dir) / f"{cache_key(dataset, run.embedder.model_id)}-pool{args.pool}"
    pooled.mkdir(parents=True, exist_ok=True)
    scores = {v.name: VariantScores() for v in variants}
    targets = NO_ANSWER_TARGETS["locomo"]
    no_answer = load_no_answer(DATA / "no_answer" / "queries.jsonl") if args.probes else []
    probes = [q for q in no_answer if q.get("target") in targets]
    for start in range(0, len(convs), args.pool):
        members = list(range(start, min(start + args.pool, len(convs))))
        target = pooled / f"pool-{start}-{members[-1]}.db"
        pooled_store(run, target.stem, [folder / f"conv-{ci}.db" for ci in members], target)
        with Memory(target, run.config, embedder=run.embedder) as mem:
            session_of = {t["id"]: t["session"] for ci in members for t in convs[ci][1]}
            for ci in members:
                for q in convs[ci][2]:
                    run.ask(mem, q, session_of, scores, probe=False)
            for q in probes:
                run.ask(mem, {**q, "timestamp": None}, session_of, scores, probe=True)
        print(f"  {members[-1] + 1}/{len(convs)} conversations asked", flush=True)
    per_variant = {
        name: {"datasets": {f"longmemeval_pool{args.pool}": summarise(s)}}
        for name, s in scores.items()
    }
    for name, body in per_variant.items():
        body["macro"] = macro_average(body["datasets"])
        summary = body["datasets"][f"longmemeval_pool{args.pool}"]
        o, probes_answered = summary["overall"], summary["no_answer"]["false_hit_rate"]
        print(
            f"{name:16s} r@5 {o['recall@5']:.3f} r@10 {o['recall@10']:.3f} mrr {o['mrr']:.3f} "
            f"session {o['session_recall@10']:.3f} probes answered {probes_answered}"
        )
    Path(args.out).write_text(json.dumps({"variants": per_variant, "pool": args.pool}, indent=1))


if __name__ == "__main__":
    main()
