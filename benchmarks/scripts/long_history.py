"""A long history imported with `remem import --fast`: how soon it is searchable by meaning,
what the default model's vectors cost afterwards, and whether the fast model finds the right
session before the default model has reached it (issue 47, item 3).

LongMemEval S (60 held-out-size haystacks, ~30,000 long turns) is not on this machine. Its
stand-in is built from the oracle split's real LongMemEval turns (``build``): for each of
``--haystacks`` questions, its evidence sessions plus sessions of other questions drawn at
random until the haystack holds ``--turns`` turns, each haystack in a scope of its own
(``custom:lme-h<i>``) with distinct record and session ids. The turn texts are the corpus's, so the
length distribution is the oracle's (``build`` prints it); a text used by an earlier haystack
gets `` [h<i>]`` appended, because an import stores one record per distinct text.

Steps (each prints JSON; ``--out`` keeps them in one results file):

    python benchmarks/scripts/long_history.py build --haystacks 60 --turns 500 --out /tmp/lh.jsonl
    python benchmarks/scripts/long_history.py cpu --file /tmp/lh.jsonl          # CPU-s per turn
    nice python benchmarks/scripts/long_history.py run --file /tmp/lh.jsonl [--main]

``cpu`` measures process CPU time (load-independent: the machine may be shared) of the fast
model (USE, on two BLAS threads and on one: the import runs one per handle) and the default
model (multilingual-e5-small) on the same turns. ``run`` imports
the file with ``fast_first`` into a fresh store (wall and CPU time of the fast pass), checks
session recall@10 by meaning alone (vector channel, each question in its haystack's scope)
through the fast model, then with ``--main`` runs the default model's backfill (`remem
embed`'s ``embed_pending``) and checks recall again.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # before any model loads (STACK.md)

import numpy as np

from remem import Config, Memory
from remem.transfer import import_records

ORACLE = Path(__file__).resolve().parents[3] / "shared" / "bench" / "longmemeval_oracle"


def _lengths(texts: list[str]) -> dict[str, Any]:
    n = np.array([len(t) for t in texts])
    pct = np.percentile(n, [10, 25, 50, 75, 90, 99]).round().astype(int).tolist()
    return {"turns": len(n), "mean_chars": round(float(n.mean()), 1), "p10_25_50_75_90_99": pct}


def build(out: Path, haystacks: int, turns: int, seed: int) -> dict[str, Any]:
    corpus = [json.loads(x) for x in (ORACLE / "corpus.jsonl").open(encoding="utf-8")]
    queries = [json.loads(x) for x in (ORACLE / "queries.jsonl").open(encoding="utf-8")]
    sessions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in corpus:
        sessions[t["session"]].append(t)
    by_conv: dict[str, list[str]] = defaultdict(list)
    for sid, ts in sessions.items():
        by_conv[ts[0]["conversation"]].append(sid)
    rng = random.Random(seed)
    chosen = rng.sample([q for q in queries if q["category"] != "abstention"], haystacks)
    seen: set[str] = set()
    written: list[str] = []
    picked = []
    with out.open("w", encoding="utf-8") as fh:
        for i, q in enumerate(chosen):
            own = list(by_conv[q["conversation"]])
            others = [s for s in sessions if sessions[s][0]["conversation"] != q["conversation"]]
            rng.shuffle(others)
            members = own + [s for s in others[: turns * 2]]
            hay: list[dict[str, Any]] = []
            for sid in members:
                if len(hay) >= turns:
                    break
                hay.extend(sessions[sid][: turns - len(hay)])
            hay.sort(key=lambda t: (t["timestamp"], t["id"]))  # a history, oldest first
            for t in hay:
                text = t["text"] if t["text"] not in seen else f"{t['text']} [h{i}]"
                seen.add(text)
                written.append(text)
                line = {
                    "id": f"h{i}:{t['id']}",
                    "text": text,
                    "role": t["role"],
                    "speaker": t["speaker"],
                    "session": f"h{i}:{t['session']}",
                    "scope": f"custom:lme-h{i}",
                    "timestamp": t["timestamp"],
                }
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
            picked.append(
                {
                    "qid": q["qid"],
                    "scope": f"custom:lme-h{i}",
                    "query": q["query"],
                    "timestamp": q["timestamp"],
                    "gold_sessions": [f"h{i}:{s}" for s in q["gold_sessions"]],
                }
            )
    out.with_suffix(".questions.json").write_text(json.dumps(picked, ensure_ascii=False))
    return {
        "file": str(out),
        "haystacks": haystacks,
        "stand_in": _lengths(written),
        "oracle": _lengths([t["text"] for t in corpus]),
    }


def _texts(path: Path) -> list[str]:
    return [json.loads(x)["text"] for x in path.open(encoding="utf-8")]


def _cpu_per_turn(embedder: Any, texts: list[str], prefix: str) -> dict[str, Any]:
    embedder.embed_passages([prefix + texts[0]])  # load the weights outside the clock
    cpu, wall = time.process_time(), time.perf_counter()
    embedder.embed_passages([prefix + t for t in texts])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {
        "turns": len(texts),
        "mean_chars": round(sum(map(len, texts)) / len(texts)),
        "cpu_s_per_turn": round(cpu / len(texts), 4),
        "wall_s": round(wall, 1),
    }


def cpu(path: Path, n_fast: int, n_main: int, seed: int, fast_only: bool) -> dict[str, Any]:
    """USE on two BLAS threads (``use_*``) and on one (``use_one_thread_*``: what `remem
    import --fast` runs, a handle per core), then e5 (unless ``fast_only``)."""
    from remem.embed.factory import make_embedder
    from remem.embed.local import USEEmbedder

    texts = _texts(path)
    rng = random.Random(seed)
    sample = rng.sample(texts, n_fast)
    long = [t for t in texts if 1800 <= len(t) <= 2200]
    long = rng.sample(long, min(len(long), n_main))
    out: dict[str, Any] = {"load_at_start": os.getloadavg()}
    for name, threads in (("use", 2), ("use_one_thread", 1)):
        use = USEEmbedder(threads=threads)
        out[f"{name}_sample"] = _cpu_per_turn(use, sample, "")
        out[f"{name}_2000_chars"] = _cpu_per_turn(use, long, "")
    if not fast_only:
        e5 = make_embedder(Config.load(env={}).embed)
        assert e5 is not None
        out["e5_sample"] = _cpu_per_turn(e5, sample[:n_main], "")
        out["e5_2000_chars"] = _cpu_per_turn(e5, long, "")
    return out | {"load_at_end": os.getloadavg()}


def recall(mem: Memory, questions: list[dict[str, Any]], scopes: set[str]) -> dict[str, Any]:
    """Session recall@10 by meaning alone, each question within its haystack."""
    hits, asked, took = 0, 0, []
    for q in questions:
        if q["scope"] not in scopes:
            continue
        started = time.perf_counter()
        found = mem.search(
            q["query"],
            k=10,
            filters={"scope": q["scope"]},
            now=q["timestamp"],
            channels=("vector",),
        )
        took.append(time.perf_counter() - started)
        got = {h.record.session for h in found.hits}
        asked += 1
        hits += bool(got & set(q["gold_sessions"]))
    return {
        "questions": asked,
        "session_recall_at_10": round(hits / max(asked, 1), 3),
        "search_p50_ms": round(1000 * float(np.median(took)), 1) if took else None,
    }


def run(path: Path, main: bool, limit: int | None) -> dict[str, Any]:
    questions = json.loads(path.with_suffix(".questions.json").read_text())
    lines = path.read_text(encoding="utf-8").splitlines()[:limit]
    scopes = {json.loads(x)["scope"] for x in lines}
    result: dict[str, Any] = {
        "turns": len(lines),
        "haystacks": len(scopes),
        "load_at_start": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Config.load(env={})
        with Memory(Path(tmp) / "m.db", cfg) as mem:
            cpu0, wall0 = time.process_time(), time.perf_counter()
            report = import_records(mem, lines, fast_first=True)
            result["fast_pass"] = {
                "wall_s": round(time.perf_counter() - wall0, 1),
                "cpu_s": round(time.process_time() - cpu0, 1),
                "added": report.added,
                "fast_vectors": report.fast_vectors,
                "load_after": os.getloadavg(),
            }
            result["recall_fast"] = recall(mem, questions, scopes)
            if main:
                cpu0, wall0 = time.process_time(), time.perf_counter()
                done = mem.embed_pending()
                result["main_pass"] = {
                    "wall_s": round(time.perf_counter() - wall0, 1),
                    "cpu_s": round(time.process_time() - cpu0, 1),
                    **done,
                    "load_after": os.getloadavg(),
                }
                result["recall_main"] = recall(mem, questions, scopes)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("step", choices=("build", "cpu", "run"))
    ap.add_argument("--file", type=Path, default=Path("/tmp/long-history.jsonl"))
    ap.add_argument("--haystacks", type=int, default=60)
    ap.add_argument("--turns", type=int, default=500, help="build: turns per haystack")
    ap.add_argument("--limit", type=int, default=None, help="run: the first N lines only")
    ap.add_argument("--main", action="store_true", help="run: then the default model's pass")
    ap.add_argument("--fast-n", type=int, default=300, help="cpu: turns for USE")
    ap.add_argument("--main-n", type=int, default=30, help="cpu: turns for e5")
    ap.add_argument("--fast-only", action="store_true", help="cpu: USE only, not e5")
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--out", type=Path, default=None, help="append the JSON to this file")
    args = ap.parse_args()
    if args.step == "build":
        data = build(args.file, args.haystacks, args.turns, args.seed)
    elif args.step == "cpu":
        data = cpu(args.file, args.fast_n, args.main_n, args.seed, args.fast_only)
    else:
        data = run(args.file, args.main, args.limit)
    data = {
        "step": args.step,
        "argv": vars(args) | {"file": str(args.file), "out": str(args.out)},
        **data,
    }
    print(json.dumps(data, indent=1))
    if args.out is not None:
        prior = json.loads(args.out.read_text()) if args.out.exists() else []
        args.out.write_text(json.dumps([*prior, data], indent=1) + "\n")


if __name__ == "__main__":
    main()
