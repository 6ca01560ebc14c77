"""Crash trials: a writer killed with SIGKILL at a random moment, every acknowledged write
checked afterwards (issue 44, item 5).

Each trial starts a child process on one store that accumulates over the trials (a SQLite
file, or a postgresql:// URL and ``--schema``). The child ingests single messages with and
without ids, 5-message ``ingest_many`` batches, curated ``add``s and a few deletes, embedding
in line (``indexing.mode = sync``) or in the background (``async``), the mode drawn per trial.
Before each call it appends the operation to a journal, and after the call returns, what was
acknowledged. The parent kills it after a random delay and reads the store:

- acked: records whose write returned (and deletes that returned), checked every trial since;
- lost: an acknowledged record missing, or an acknowledged delete undone (should be 0);
- interrupted: the operation in flight when the kill landed; either outcome is correct, but a
  batch lands whole or not at all (``torn`` counts those that did not);
- extra: records in the store that no operation wrote.

Without the journal written before each call, a delete in flight whose transaction had
committed makes its (acknowledged) record look lost.

    python benchmarks/scripts/crash_trials.py --db /tmp/crash.db --trials 100 --cpu-load
    python benchmarks/scripts/crash_trials.py --db postgresql://... --schema crash1 --trials 100 --cpu-load

``--cpu-load`` runs a busy loop per core beside the trials; run the whole under ``nice`` on
a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WRITE_KINDS = ("ingest-id", "ingest", "batch", "add")


# ---------------------------------------------------------------- the child


def _config(provider: str, mode: str, schema: str | None) -> Any:
    from remem import Config

    overrides = {"indexing.mode": mode, "embed.provider": provider}
    if schema:
        overrides["store.pg_schema"] = schema
    return Config.load(env={}, overrides=overrides)


def _operation(rng: random.Random, tag: str, acked: list[tuple[str, str]]) -> dict[str, Any]:
    """The next operation: its kind, the texts it writes (each unique), their ids (None:
    the store makes one) or, for a delete, the acknowledged record it deletes."""
    roll = rng.random()
    if roll < 0.08 and acked:
        record_id, text = acked.pop(rng.randrange(len(acked)))
        return {"kind": "delete", "ids": [record_id], "texts": [text]}
    if roll < 0.45:
        return {"kind": "ingest-id", "ids": [f"c{tag}"], "texts": [f"note {tag} about the ferry"]}
    if roll < 0.6:
        return {"kind": "ingest", "ids": [None], "texts": [f"note {tag} without an id"]}
    if roll < 0.8:
        ids = [f"c{tag}b{i}" if i % 2 else None for i in range(5)]
        return {"kind": "batch", "ids": ids, "texts": [f"batch {tag} line {i}" for i in range(5)]}
    return {"kind": "add", "ids": [None], "texts": [f"Ann's fact {tag}: she rows on the lake"]}


def _call(mem: Any, op: dict[str, Any]) -> list[str]:
    """Run one operation; the ids it acknowledged."""
    kind, ids, texts = op["kind"], op["ids"], op["texts"]
    if kind == "delete":
        mem.delete(ids)
        return list(ids)
    if kind == "add":
        return [mem.add(texts[0], scope="user:ann").id]
    messages = [
        {"text": t, "session": "crash", "speaker": "Ann"} | ({"id": i} if i else {})
        for i, t in zip(ids, texts, strict=True)
    ]
    if kind == "batch":
        return [r.id for r in mem.ingest_many(messages)]
    return [mem.ingest(messages[0]).id]


def child(db: str, journal: Path, seed: int, mode: str, provider: str, schema: str | None) -> None:
    """Write until killed, journalling each operation before its call and after it."""
    from remem import Memory

    rng = random.Random(seed)
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def note(entry: dict[str, Any]) -> None:
        # one write per line: what reached the kernel survives the kill of the process
        os.write(fd, (json.dumps(entry) + "\n").encode())

    acked: list[tuple[str, str]] = []
    with Memory(db, _config(provider, mode, schema)) as mem:
        note({"ready": True})
        for n in range(1, 10**9):
            op = _operation(rng, f"{seed}x{n}", acked)
            note({"op": n} | op)
            done = _call(mem, op)
            note({"op": n, "done": done})
            if op["kind"] != "delete":
                acked.extend(zip(done, op["texts"], strict=True))


# ---------------------------------------------------------------- the parent


@dataclass
class Tally:
    """What the trials found (``present``: text -> whether the store must hold it)."""

    present: dict[str, bool] = field(default_factory=dict)
    trials: int = 0
    acked_ops: int = 0
    acked_records: int = 0
    lost: int = 0
    extra: int = 0
    torn: int = 0
    interrupted: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "acked_operations": self.acked_ops,
            "acked_records": self.acked_records,
            "lost": self.lost,
            "extra": self.extra,
            "torn": self.torn,
            "interrupted": sum(self.interrupted.values()),
            "interrupted_by_outcome": dict(sorted(self.interrupted.items())),
            "failures": self.failures[:10],
        }


def read_journal(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The operations that returned (each with its ``done`` ids) and the one in flight at
    the kill (None: the kill landed between two)."""
    begun: dict[int, dict[str, Any]] = {}
    done: list[dict[str, Any]] = []
    lines = path.read_text().splitlines() if path.exists() else []
    for line in lines:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by the kill: its operation never returned
        if "done" in entry:
            op = begun.pop(entry["op"])
            done.append(op | {"done": entry["done"]})
        elif "op" in entry:
            begun[entry["op"]] = entry
    assert len(begun) <= 1, f"more than one operation in flight: {sorted(begun)}"
    return done, next(iter(begun.values()), None)


def settle(tally: Tally, done: list[dict[str, Any]], flight: dict[str, Any] | None, held: set[str]):
    """Fold one trial's journal and the store's texts (``held``) into the tally."""
    for op in done:
        tally.acked_ops += 1
        for text in op["texts"]:
            tally.present[text] = op["kind"] != "delete"
            tally.acked_records += int(op["kind"] != "delete")
    if flight is not None:
        there = sum(t in held for t in flight["texts"])
        if 0 < there < len(flight["texts"]):
            tally.torn += 1
            tally.failures.append(f"trial {tally.trials}: {flight['kind']} landed {there} lines")
        landed = there == len(flight["texts"]) and flight["kind"] != "delete"
        gone = there == 0 and flight["kind"] == "delete"
        outcome = "committed" if landed or gone else "not committed"
        tally.interrupted[f"{flight['kind']}: {outcome}"] += 1
        for text in flight["texts"]:
            tally.present[text] = text in held  # settled now, checked from here on
    for text, must in tally.present.items():
        if must != (text in held):
            tally.lost += 1
            tally.failures.append(f"trial {tally.trials}: {text!r} should be {must}")
            tally.present[text] = text in held  # counted once
    for text in held - set(tally.present):
        tally.extra += 1
        tally.failures.append(f"trial {tally.trials}: {text!r} was never written")
        tally.present[text] = True


def held_texts(db: str, schema: str | None) -> set[str]:
    """Every record's text in the store (read without an embedder)."""
    from remem import Memory

    with Memory(db, _config("none", "sync", schema)) as mem:
        texts = {r.text for r in mem.store.iter_records(None)}
        if "://" not in db:
            check = mem.store._conn.execute("PRAGMA integrity_check").fetchone()[0]  # type: ignore[attr-defined]
            assert check == "ok", f"integrity_check: {check}"
    return texts


def _wait_gone(db: str, app: str, deadline: float) -> None:
    """PostgreSQL: wait until the server has ended the killed child's sessions (a commit it
    had sent is applied or rolled back by then)."""
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (app,)
            ).fetchone()
            if not row or not row[0]:
                return
            time.sleep(0.05)
    raise RuntimeError(f"the killed child's sessions ({app}) did not end")


def _ready(journal: Path, proc: subprocess.Popen, err: Path, deadline: float, done: int) -> None:
    """Wait until the child has opened the store and acknowledged ``done`` operations."""

    def ready() -> bool:
        text = journal.read_text() if journal.exists() else ""
        return text.startswith('{"ready"') and text.count('"done"') >= done

    while not ready():
        if proc.poll() is not None:
            raise RuntimeError(f"the child exited ({proc.returncode}): {err.read_text()[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the child did not open the store and write {done} times in 300 s")
        time.sleep(0.05)


def trial(tally: Tally, args: argparse.Namespace, rng: random.Random, work: Path) -> None:
    """One child, killed after a random delay, and the store checked."""
    n = tally.trials
    journal, err = work / f"journal-{n}.jsonl", work / f"child-{n}.err"
    mode = rng.choice(["sync", "async"])
    app = f"remem-crash-{os.getpid()}-{n}"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--db", args.db]
    cmd += ["--journal", str(journal), "--seed", str(args.seed * 100_000 + n), "--mode", mode]
    cmd += ["--provider", args.provider] + (["--schema", args.schema] if args.schema else [])
    env = dict(os.environ, OMP_WAIT_POLICY="passive", PGAPPNAME=app)
    with err.open("w") as stderr:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        _ready(journal, proc, err, time.monotonic() + 300, args.min_done)
        time.sleep(rng.uniform(0.0, args.max_delay))  # the random moment of the kill
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    if "://" in args.db:
        _wait_gone(args.db, app, time.monotonic() + 60)
    done, flight = read_journal(journal)
    tally.trials += 1
    settle(tally, done, flight, held_texts(args.db, args.schema))


def busy_loops(n: int) -> list[subprocess.Popen]:
    """A process spinning on each of ``n`` cores (stopped by ``stop``)."""
    code = "while True: pass"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """The trials; with ``args.out`` the report so far is rewritten after each one (a run
    stopped early keeps its figures)."""
    tally, rng = Tally(), random.Random(args.seed)
    spinners = busy_loops(os.cpu_count() or 1) if args.cpu_load else []
    started = time.monotonic()

    def report() -> dict[str, Any]:
        out = {"note": args.note} if args.note else {}
        out |= {"db": args.db.split("@")[-1], "provider": args.provider}
        out |= {"cpu_load": args.cpu_load, "niceness": os.nice(0)}
        out |= {"seconds": round(time.monotonic() - started, 1), **tally.summary()}
        return out

    try:
        for _ in range(args.trials):
            trial(tally, args, rng, work)
            if args.out:
                args.out.write_text(json.dumps(report(), indent=2) + "\n")
            print(f"trial {tally.trials}: lost {tally.lost}", file=sys.stderr, flush=True)
    finally:
        for proc in spinners:
            proc.kill()
            proc.wait()
    return report()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", required=True, help="a SQLite path or a postgresql:// URL")
    p.add_argument("--schema", help="the PostgreSQL schema (store.pg_schema)")
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-delay", type=float, default=2.0, help="seconds before the kill, at most")
    p.add_argument("--provider", default="local", help="embed.provider of the child")
    p.add_argument(
        "--min-done", type=int, default=0, help="acknowledged operations before the delay"
    )
    p.add_argument("--cpu-load", action="store_true", help="a busy loop per core beside")
    p.add_argument("--work", type=Path, help="where the journals go (default: a temp dir)")
    p.add_argument("--out", type=Path, help="also write the JSON report here")
    p.add_argument("--note", help="a note kept first in the report")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--journal", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--mode", default="sync", help=argparse.SUPPRESS)
    return p


def main() -> None:
    args = parser().parse_args()
    if args.child:
        child(args.db, args.journal, args.seed, args.mode, args.provider, args.schema)
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="remem-crash-") as tmp:
        report = run(args, args.work or Path(tmp))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
