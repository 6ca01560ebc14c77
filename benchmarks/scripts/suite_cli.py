"""What the suite's bench scripts share: their dataset options, the datasets they name, a
progress line on stderr, and reading the JSONL rows they dump.

Imported as a sibling script (``python benchmarks/scripts/x.py`` puts scripts/ first on the path).
"""

from __future__ import annotations

import argparse
import atexit
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from remem.config import Config
from remem_bench.benchmark import Variant
from remem_bench.suite import SuiteDataset, SuiteRun, suite_datasets

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "benchmarks" / "data"


def add_suite_options(ap: argparse.ArgumentParser, datasets: str = "locomo,zh_groupchat") -> None:
    """--datasets, --shared-dir (../shared/bench beside the checkout), --cache-dir and
    --limit-conversations."""
    ap.add_argument("--datasets", default=datasets)
    ap.add_argument("--shared-dir", default=str(REPO.parent / "shared" / "bench"))
    ap.add_argument("--cache-dir", default=str(REPO / ".remem-bench-cache"))
    ap.add_argument("--limit-conversations", type=int)


def hybrid_run(
    args: argparse.Namespace, config: Config, progress: SuiteProgress | None = None
) -> SuiteRun:
    """A run of the default hybrid search over the suite options' cache and conversations
    (``add_suite_options``), reporting to ``progress`` when given."""
    return SuiteRun(
        [Variant("hybrid")],
        config,
        Path(args.cache_dir),
        progress=progress,
        limit_conversations=args.limit_conversations,
        note=progress.note if progress is not None else None,
    )


def chosen_datasets(args: argparse.Namespace) -> list[SuiteDataset]:
    """The suite's datasets that ``--datasets`` names and this machine has, in suite order."""
    names = args.datasets.split(",")
    found = suite_datasets(Path(args.shared_dir), DATA, quick=False)
    return [d for d in found if d.name in names]


class SuiteProgress:
    """A script's progress on stderr (rich): on a terminal a bar per dataset (questions asked
    of all, elapsed, time left), else at most one line per ``seconds`` (a log); ``note`` prints
    a line at once (a store being built, its facts derived: minutes under load, which a
    question count alone never showed)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.console = Console(stderr=True)
        self.live = self.console.is_terminal
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            disable=not self.live,
        )
        self.tasks: dict[str, TaskID] = {}
        self.started = time.time()
        self.last = 0.0
        if self.live:
            self.bar.start()
            atexit.register(self.bar.stop)

    def __call__(self, name: str, done: int, total: int) -> None:
        if name not in self.tasks:
            self.tasks[name] = self.bar.add_task(name, total=total)
            self.note(f"{name}: {total} questions to ask")
        self.bar.update(self.tasks[name], completed=done, total=total)
        if not self.live and (time.time() - self.last > self.seconds or done == total):
            self.last = time.time()
            self.note(f"  {name} {done}/{total}")

    def note(self, text: str) -> None:
        self.console.print(f"[{time.time() - self.started:5.0f}s] {text}", markup=False)


def progress_every(seconds: float) -> SuiteProgress:
    """The scripts' progress (``SuiteProgress``): pass it as a ``SuiteRun``'s ``progress`` and
    its ``note`` as the run's ``note``."""
    return SuiteProgress(seconds)


def read_rows(paths: list[str]) -> list[dict]:
    """Every JSON line of the files, in order."""
    rows: list[dict] = []
    for path in paths:
        with open(path) as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def rows_and_out() -> argparse.Namespace:
    """The arguments of a script that reads dumped rows: the files, and ``--out`` for its
    JSON report."""
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--out")
    return ap.parse_args()


def watch_fusion(searcher: Any, keep: Callable[[list, list], None]) -> None:
    """Have ``searcher`` hand its two channel lists (vector, lexical) to ``keep`` before each
    fusion; wrapped once per searcher."""
    if getattr(searcher, "_watched", False):
        return
    fuse = searcher._fuse

    def watched(vector: list, lexical: list, *more: Any) -> list:
        keep(vector, lexical)
        return fuse(vector, lexical, *more)

    searcher._fuse = watched
    searcher._watched = True


def dump_rows(run_class: type[SuiteRun], args: argparse.Namespace, seconds: float = 30) -> None:
    """Every chosen dataset's questions asked once with the defaults by ``run_class`` (a
    SuiteRun taking an ``out`` file it writes JSON lines to), into ``args.out``."""
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    progress = progress_every(seconds)
    with open(args.out, "w") as out:
        run: Any = run_class(
            [Variant("default")],
            config,
            Path(args.cache_dir),
            progress=progress,
            limit_conversations=args.limit_conversations,
            note=progress.note,
            out=out,
        )
        for dataset in chosen_datasets(args):
            run.run(dataset, [])
