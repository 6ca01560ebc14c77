"""Pre-turn recall at scale with the bundled model, against its floor, in one run.

A chat's recall before each turn is ``Memory.search`` with the turn's filters (own session:
``kinds=["message"]``, ``sessions=[its session]``, minus the turn itself; whole store: the
kind alone). Its floor is what no search can skip: embedding the question with the store's
model, an exact dense search (one matrix-vector product over every vector in memory, top 40)
and the same keyword query (FTS5, top 40).

The store holds n records made from the suite's cached stores (``.remem-bench-cache``: the
LoCoMo and zh_groupchat conversations the suite embedded with multilingual-e5-small, their
vectors and latent terms copied, nothing embedded again), repeated with a ``#k`` suffix past
their count (copy k of a session is a session of its own, so a session keeps its real size).
Two states of it:

- ``terms``: every record's latent terms stored, as ingest, copy and an import of an export
  with vectors leave it;
- ``no-terms``: none stored, as an import of a file without them leaves it until the
  background fill has caught up (issue 47: p95 1,080 ms at 100k when each search computed
  them for its best candidates).

Questions are the LoCoMo and zh_groupchat questions, each asked once (new questions: nothing
cached from an earlier search of the same text). Wall times on the shared 2-core machine swing
with its load: the ratio to the floor is taken query by query in the same run.

    PYTHONPATH=src:benchmarks:benchmarks/scripts python benchmarks/scripts/pre_turn_recall.py \
        --n 100000 --queries 200 [--json benchmarks/results/pre-turn-recall-100k.json] \
        [--store-dir /var/tmp/pre-turn]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from remem import Config, Memory
from remem.embed import latent
from remem.embed.local import E5Embedder
from remem.index.exact import blas_one_thread
from remem.schemas import content_hash
from remem.store.queries import LexicalQuery, VectorRead, VectorWrite
from remem.store.sqlite import SQLiteStore
from remem.text.tokenize import Tokenizer
from remem.types import Filters

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "bench"
MODEL = E5Embedder.model_id
TERMS = latent.MODEL_IDS[MODEL]
DIM = 384
SOURCES = ("locomo", "zh_groupchat")


def source_rows(cache: Path) -> list[tuple[dict, np.ndarray, bytes | None]]:
    """(record fields, vector, latent terms) of every record of the suite's cached stores."""
    out = []
    for name in SOURCES:
        for db in sorted(cache.glob(f"{name}-local_multilingual-e5-small-*/conv-*.db")):
            store = SQLiteStore(db)
            try:
                rows = store.read_vectors(VectorRead(MODEL, DIM, by_rowid=True))
                rowids = [int(r) for r in rows.rowids]
                records = store.get_by_rowids(rowids)
                terms = store.latent_terms_of(TERMS, rowids)
                for i, rowid in enumerate(rowids):
                    r = records.get(rowid)
                    if r is None or r.kind != "message":
                        continue
                    fields = {
                        "text": r.text,
                        "session": f"{name}/{db.stem}/{r.session}",
                        "speaker_id": r.speaker_id,
                        "speaker_label": r.speaker_label,
                        "role": r.role,
                        "created_at": r.created_at,
                    }
                    out.append((fields, np.array(rows.matrix[i]), terms.get(rowid)))
            finally:
                store.close()
    return out


def build(db: Path, n: int, source: list, with_terms: bool) -> list[str]:
    """A store of n records (copies of the source past its size); returns its sessions."""
    store = SQLiteStore(db)
    tok = Tokenizer.from_config(Config.load(env={}).text)  # the engine's own
    sessions: dict[str, None] = {}
    try:
        for start in range(0, n, 5000):
            rows, vecs, codes = [], [], []
            for i in range(start, min(n, start + 5000)):
                fields, vec, code = source[i % len(source)]
                copy = i // len(source)
                text = fields["text"] + (f" #{copy}" if copy else "")
                session = f"{fields['session']}#{copy}"
                sessions.setdefault(session, None)
                f = {
                    **fields,
                    "id": f"r{i}",
                    "kind": "message",
                    "text": text,
                    "session": session,
                    "scope": "global",
                    "created_at": fields["created_at"] + copy,
                    "content_hash": content_hash(text),
                    "importance": 0.5,
                }
                rows.append((f, tok.index_string(text)))
                vecs.append(vec)
                codes.append(code)
            rowids = store.insert_records(rows)
            store.put_vectors(
                VectorWrite(
                    MODEL, "local", "multilingual-e5-small", list(zip(rowids, vecs, strict=True))
                )
            )
            if with_terms:
                items = [
                    (rid, f["content_hash"], code)
                    for rid, (f, _), code in zip(rowids, rows, codes, strict=True)
                    if rid is not None and code is not None
                ]
                store.put_latent_terms(TERMS, items)
    finally:
        store.close()
    return list(sessions)


def questions(count: int) -> list[str]:
    out: list[str] = []
    for path in (
        SHARED / "locomo" / "queries.jsonl",
        REPO / "benchmarks" / "data" / "zh_groupchat" / "queries.jsonl",
    ):
        if path.exists():
            out += [json.loads(line)["query"] for line in path.read_text().splitlines() if line]
    random.Random(7).shuffle(out)
    return list(dict.fromkeys(out))[:count]


def pct(values: list[float], p: float) -> float:
    return round(float(np.percentile(values, p)), 1)


def measure(db: Path, sessions: list[str], qs: list[str], embedder: E5Embedder) -> dict:
    """Search p50/p95 and the floor's, whole store and own session, query by query."""
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    out: dict = {}
    with Memory(db, config, embedder=embedder) as mem:
        store = mem.store
        matrix = store.read_vectors(VectorRead(MODEL, DIM, by_rowid=True))
        mem.search("warm up the index", k=10)
        rng = random.Random(11)
        for mode in ("whole-store", "own-session"):
            runs: list[float] = []
            floors: list[float] = []
            for i, q in enumerate(qs):
                session = rng.choice(sessions)
                filters = Filters(kinds=["message"], exclude_ids=[f"r{i}"])
                if mode == "own-session":
                    filters.sessions = [session]
                t = time.perf_counter()
                vec = embedder.embed_queries([q])[0]
                with blas_one_thread():
                    scores = matrix.matrix @ vec
                np.argpartition(-scores, 40)[:40]
                store.lexical_search(
                    LexicalQuery(mem.tokenizer.query_tokens(q), filters, time.time()), 40
                )
                floors.append((time.perf_counter() - t) * 1000)
                # a new question each time: nothing cached from the floor's embedding
                text = f"{q} ({mode})"
                t = time.perf_counter()
                mem.search(text, k=10, filters=filters)
                runs.append((time.perf_counter() - t) * 1000)
            ratio = [r / f for r, f in zip(runs, floors, strict=True)]
            out[mode] = {
                "search_p50_ms": pct(runs, 50),
                "search_p95_ms": pct(runs, 95),
                "floor_p50_ms": pct(floors, 50),
                "floor_p95_ms": pct(floors, 95),
                "p95_over_floor_p95": round(pct(runs, 95) / pct(floors, 95), 2),
                "ratio_p50": round(float(np.median(ratio)), 2),
            }
            print(db.name, mode, out[mode], flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--cache-dir", type=Path, default=REPO / ".remem-bench-cache")
    ap.add_argument("--states", default="terms,no-terms")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--store-dir", type=Path, help="keep the built stores here and reuse them (minutes each)"
    )
    args = ap.parse_args()
    source = source_rows(args.cache_dir)
    embedder = E5Embedder()
    embedder.embed_queries(["warm up"])
    qs = questions(args.queries)
    report: dict = {
        "n": args.n,
        "source_records": len(source),
        "queries": len(qs),
        "load_avg_at_start": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for state in args.states.split(","):
            db = Path(tmp) / f"{state}.db"
            kept = args.store_dir / f"{args.n}-{state}.db" if args.store_dir else None
            if kept is not None and kept.exists():
                # a copy of the kept build: a search may write (latent terms filled)
                shutil.copyfile(kept, db)
                sessions = json.loads(kept.with_suffix(".sessions.json").read_text())
                built = kept.parent / f"{kept.name}.remem-index"  # its vector index's files
                if built.exists():
                    shutil.copytree(built, db.parent / f"{db.name}.remem-index")
            else:
                t = time.perf_counter()
                sessions = build(db, args.n, source, with_terms=state == "terms")
                report[f"{state} build_s"] = round(time.perf_counter() - t, 1)
                if kept is not None:
                    shutil.copyfile(db, kept)
                    kept.with_suffix(".sessions.json").write_text(json.dumps(sessions))
            report[state] = measure(db, sessions, qs, embedder)
            if kept is not None and not (kept.parent / f"{kept.name}.remem-index").exists():
                shutil.copytree(
                    db.parent / f"{db.name}.remem-index", kept.parent / f"{kept.name}.remem-index"
                )
    report["load_avg_at_end"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
