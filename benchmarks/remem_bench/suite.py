"""The development suite (issue 17): every dataset through the same variants, one table.

Datasets: LoCoMo and LongMemEval oracle (the shared benchmark folder), the Chinese group-chat
set and the no-answer set (this package's ``data`` folder); and a held-out Chinese set
(``data/zh_validation``), run and reported but never part of the macro average: defaults
are chosen on the others, and it checks that they carry over to chats nobody tuned on. Each conversation is ingested
once into a store cached by dataset, embedding model and corpus digest, so a second run (or a
run with other search settings) only searches.

Scoring differs by question kind, so that nothing is averaged as a zero it is not:

- answerable questions (gold turns, not an abstention category): recall@5/10, hit@10,
  session_recall@10, MRR, overall and per category;
- unanswerable questions (no gold, or category ``unanswerable`` / ``abstention``): the
  *false-hit rate*, the share of them for which the pipeline returned anything at all (every
  hit returned passed the relevance floor, so any hit is a false injection);
- the no-answer set: each question asked against every conversation store of the dataset it
  targets, scored as a false-hit rate the same way;
- the near-miss sets (``near_miss``, ``near_miss_heldout``; issue 45): unanswerable questions
  about a real person of one conversation of another dataset (its ``target``), each asked of
  that one conversation's store (the host's cached store) and scored as ``unanswerable``.

The macro average is the plain mean over answerable datasets (held-out ones left out) of
recall@10 and MRR.
"""

from __future__ import annotations

import hashlib
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remem import Config, Embedder, Filters, make_embedder, query_vector, store_latent_terms
from remem_bench.benchmark import (
    METRICS,
    Variant,
    apply_overrides,
    by_conversation,
    load_dataset,
    read_jsonl,
    score_query,
    turn_fields,
)
from remem_bench.store_cache import (
    Note,
    building_path,
    derive_facts,
    discard,
    entry_lock,
    publish,
)

UNANSWERABLE_CATEGORIES = frozenset({"unanswerable", "abstention"})
NO_ANSWER_TARGETS = {"locomo": ("both", "locomo"), "zh_groupchat": ("both", "zh_groupchat")}
Progress = Callable[[str, int, int], None]
# (dataset, its summary per variant, seconds it took): called as each dataset finishes
DatasetDone = Callable[[str, dict[str, dict[str, Any]], float], None]


@dataclass(frozen=True)
class SuiteDataset:
    name: str
    path: Path
    held_out: bool = False  # reported, never averaged in: nothing is chosen on it
    # the datasets whose stores this set's questions are asked of, each question of the
    # conversation its ``target`` and ``conversation`` name (the near-miss sets); () for a set
    # with its own corpus
    hosts: tuple[SuiteDataset, ...] = ()


@dataclass
class VariantScores:
    """Everything one variant scored on one dataset."""

    answerable: list[dict[str, float]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    unanswerable_hits: list[bool] = field(default_factory=list)  # one per question
    no_answer_hits: list[bool] = field(default_factory=list)  # one per (question, store)
    latency_ms: list[float] = field(default_factory=list)

    def add_answerable(self, row: dict[str, float], category: str) -> None:
        self.answerable.append(row)
        self.categories.append(category)


def is_unanswerable(query: dict[str, Any]) -> bool:
    """No gold to find, or a category whose point is that nothing should be found."""
    return not query.get("gold") or query.get("category") in UNANSWERABLE_CATEGORIES


def rate(flags: list[bool]) -> float | None:
    """Share of True; None (not 0) when there is nothing to measure."""
    return round(sum(flags) / len(flags), 4) if flags else None


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {m: round(statistics.fmean(r[m] for r in rows), 4) for m in METRICS} if rows else {}


def _percentile(values: list[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))], 2)


def summarise(scores: VariantScores) -> dict[str, Any]:
    """Aggregate one variant's scores on one dataset (answerable means exclude the rest)."""
    by_cat: dict[str, list[dict[str, float]]] = defaultdict(list)
    for cat, row in zip(scores.categories, scores.answerable, strict=True):
        by_cat[cat].append(row)
    return {
        "n_answerable": len(scores.answerable),
        "overall": _mean(scores.answerable),
        "by_category": {c: {**_mean(r), "n": len(r)} for c, r in sorted(by_cat.items())},
        "unanswerable": {
            "n": len(scores.unanswerable_hits),
            "false_hit_rate": rate(scores.unanswerable_hits),
        },
        "no_answer": {
            "n": len(scores.no_answer_hits),
            "false_hit_rate": rate(scores.no_answer_hits),
        },
        "latency_ms": {
            "p50": _percentile(scores.latency_ms, 50),
            "p95": _percentile(scores.latency_ms, 95),
        },
    }


def macro_average(
    datasets: dict[str, dict[str, Any]], held_out: frozenset[str] = frozenset()
) -> dict[str, float]:
    """Mean over datasets with answerable questions of recall@10 and MRR, the ``held_out``
    ones left out."""
    rows = [
        d["overall"] for name, d in datasets.items() if d["n_answerable"] and name not in held_out
    ]
    return {
        m: round(statistics.fmean(r[m] for r in rows), 4) if rows else 0.0
        for m in ("recall@5", "recall@10", "mrr")
    }


def load_no_answer(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path)


def conversations(
    path: Path, probes: list[dict[str, Any]], limit: int | None = None
) -> list[tuple[str, list[dict], list[dict]]]:
    """(conversation, its turns, its questions) in corpus order, for the conversations that are
    asked something (a question of their own, or the no-answer probes), the first ``limit``."""
    turns_of, queries_of = by_conversation(*load_dataset(path))
    convs = [c for c in turns_of if queries_of.get(c) or probes][:limit]
    return [(c, turns_of[c], queries_of[c]) for c in convs]


def hosted_conversations(
    dataset: SuiteDataset, limit: int | None = None
) -> list[tuple[SuiteDataset, int, list[dict], list[dict]]]:
    """For a set asked of other datasets' stores: (host, the conversation's index among the
    host's stores, its turns, the set's questions about it), hosts not on this machine left
    out. The index is the one the host's own run gives the conversation (every conversation
    of the suite's hosts has questions of its own, so probes or not, the order is the same)."""
    questions = read_jsonl(dataset.path / "queries.jsonl")
    out = []
    for host in dataset.hosts:
        mine = [q for q in questions if q.get("target") == host.name]
        if not mine or not (host.path / "corpus.jsonl").is_file():
            continue
        for ci, (conv, turns, _own) in enumerate(conversations(host.path, [], limit)):
            asked = [q for q in mine if q.get("conversation") == conv]
            if asked:
                out.append((host, ci, turns, asked))
    return out


def cache_key(dataset: SuiteDataset, model_id: str) -> str:
    """Stores depend on the corpus and the model that embedded it, nothing else we vary."""
    digest = hashlib.sha1((dataset.path / "corpus.jsonl").read_bytes()).hexdigest()[:12]
    safe_model = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model_id)
    return f"{dataset.name}-{safe_model}-{digest}"


@dataclass
class SuiteRun:
    """One suite run: the variants, the shared embedder, where stores are cached."""

    variants: list[Variant]
    config: Config
    cache_dir: Path
    embedder: Embedder | None = None
    k: int = 10
    progress: Progress | None = None
    limit_conversations: int | None = None
    note: Note | None = None  # told each slow step of a store's build (``ingest``)
    scores: dict[str, dict[str, VariantScores]] = field(default_factory=dict)
    # what every search is narrowed to (scripts/shared_store.py: one conversation's sessions)
    filters: Filters | None = None

    def run(self, dataset: SuiteDataset, probes: list[dict[str, Any]]) -> None:
        """Every conversation of the dataset: ingest (or reuse), ask its questions, then
        the no-answer probes aimed at it."""
        if dataset.hosts:
            self.run_hosted(dataset)
            return
        convs = conversations(dataset.path, probes, self.limit_conversations)
        self.scores.setdefault(dataset.name, {v.name: VariantScores() for v in self.variants})
        total, done = sum(len(qs) + len(probes) for _, _, qs in convs), 0
        if self.progress:
            self.progress(dataset.name, 0, total)  # the ingest ahead may take minutes
        for ci, (_conv, turns, questions) in enumerate(convs):
            db = self.db_path(dataset, ci)  # loads the embedder first: the cache is keyed by it
            build_missing(db, turns, self.open_store, self.noting(dataset, ci))
            with self.open_store(db) as mem:
                ingest(mem, turns, self.noting(dataset, ci))
                done = self.ask_all(mem, dataset.name, turns, questions, probes, (done, total))

    def run_hosted(self, dataset: SuiteDataset) -> None:
        """A set asked of its hosts' stores: each question of the one conversation it is
        about, in that conversation's cached store (built as the host's run builds it)."""
        rows = hosted_conversations(dataset, self.limit_conversations)
        self.scores.setdefault(dataset.name, {v.name: VariantScores() for v in self.variants})
        total, done = sum(len(asked) for *_, asked in rows), 0
        if self.progress:
            self.progress(dataset.name, 0, total)
        for host, ci, turns, asked in rows:
            db = self.db_path(host, ci)
            build_missing(db, turns, self.open_store, self.noting(host, ci))
            with self.open_store(db) as mem:
                ingest(mem, turns, self.noting(host, ci))
                done = self.ask_all(mem, dataset.name, turns, asked, [], (done, total))

    def open_store(self, db: Path) -> Any:
        """A ``Memory`` on ``db`` with this run's config and embedder."""
        from remem.engine import Memory

        return Memory(db, self.config, embedder=self.embedder)

    def noting(self, dataset: SuiteDataset, ci: int) -> Note | None:
        """``note``, each line naming the store (the dataset and conversation) it is about."""
        note = self.note
        if note is None:
            return None
        return lambda text: note(f"{dataset.name} conversation {ci}: {text}")

    def ask_all(
        self,
        mem: Any,
        name: str,
        turns: list[dict],
        questions: list[dict],
        probes: list[dict[str, Any]],
        progress: tuple[int, int],
    ) -> int:
        """A conversation's questions, then the probes, asked of ``mem``; returns how many
        of the dataset's ``progress`` (done, total) are done after them."""
        per_variant = self.scores[name]
        session_of = {t["id"]: t["session"] for t in turns}
        done, total = progress
        asked = [(q, False) for q in questions] + [(p, True) for p in probes]
        for q, probe in asked:
            self.ask(mem, q, session_of, per_variant, probe=probe)
            done += 1
            if self.progress:
                self.progress(name, done, total)
        return done

    def db_path(self, dataset: SuiteDataset, ci: int) -> Path:
        """The cached store of the dataset's ``ci``-th conversation (loads the embedder: its
        model names the cache)."""
        if self.embedder is None:
            self.embedder = make_embedder(self.config.embed)  # its id names the cache
        model_id = self.embedder.model_id if self.embedder else "lexical-only"
        folder = self.cache_dir / cache_key(dataset, model_id)
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"conv-{ci}.db"

    def ask(
        self,
        mem: Any,
        q: dict[str, Any],
        session_of: dict[str, str],
        per_variant: dict[str, VariantScores],
        *,
        probe: bool,
    ) -> None:
        qvec = query_vector(mem, q["query"]) if self.embedder else None
        for variant in self.variants:
            saved = apply_overrides(mem.config, variant.overrides)
            start = time.perf_counter()
            try:
                result = mem.search(
                    q["query"],
                    k=max(self.k, 10),
                    now=q.get("timestamp"),
                    filters=self.filters,
                    query_vector=qvec if "vector" in variant.channels else None,
                    channels=variant.channels,
                    disable=variant.disable,
                )
            finally:
                apply_overrides(mem.config, saved)
            scores = per_variant[variant.name]
            scores.latency_ms.append((time.perf_counter() - start) * 1000)
            ids = [h.record.id for h in result.hits]
            if probe:
                scores.no_answer_hits.append(bool(ids))
            elif is_unanswerable(q):
                scores.unanswerable_hits.append(bool(ids))
            else:
                row = score_query(
                    ids, [session_of.get(i, "") for i in ids], q["gold"], q.get("gold_sessions", [])
                )
                scores.add_answerable(row, q.get("category", "all"))


def ingest(mem: Any, turns: list[dict], note: Note | None = None) -> None:
    """A conversation's turns into its store, unless a complete cached copy is there.

    The store's facts are those today's extractor derives, as in a user's store (see
    ``store_cache.derive_facts``). ``note`` is told each slow step taken (writing and
    embedding, latent terms, facts). A cached store is checked and topped up under its lock
    (``store_cache.entry_lock``): a process sharing the cache waits, then finds it whole."""
    if mem.path is None:  # an in-memory store: nobody else can see it
        _fill(mem, turns, note)
        return
    with entry_lock(mem.path):
        _fill(mem, turns, note)


def _fill(mem: Any, turns: list[dict], note: Note | None) -> None:
    say = note or (lambda _text: None)
    if mem.count() != len(turns):  # else cached from an earlier run
        say(f"building the store: writing and embedding {len(turns)} turns")
        mem.ingest_many(turn_fields(turns), on_conflict="skip", wait=True)
    # Also for a cached store: a run cut off after the writes but before every vector would
    # otherwise leave it searched with vectors missing. Nothing missing costs one count. The
    # latent terms too, so a search reads them as a user's store would (when they are on).
    mem.embed_pending()
    store_latent_terms(mem)
    if mem.path is not None:  # an in-memory store derived its facts as it was written
        derive_facts(mem, mem.path, say)


def build_missing(
    db: Path, turns: list[dict], open_store: Callable[[Path], Any], note: Note | None = None
) -> None:
    """A missing cached store built: under a temporary name, renamed to ``db`` once complete,
    so no process opens it half-written (one that wants it meanwhile waits on its lock). A
    store already there is left to ``ingest`` to check. ``open_store`` opens a ``Memory``."""
    with entry_lock(db):
        if db.exists():
            return
        for stale in db.parent.glob(f".{db.name}.*.building"):  # from runs cut off
            discard(stale)
        built = building_path(db)
        try:
            with open_store(built) as mem:
                _fill(mem, turns, note)
            publish(built, db)
        except BaseException:
            discard(built)
            raise


def suite_candidates(shared_dir: Path, data_dir: Path, *, quick: bool) -> list[SuiteDataset]:
    """Every dataset of the suite, LongMemEval left out when quick, whether it is here or not."""
    locomo = SuiteDataset("locomo", shared_dir / "locomo")
    zh_groupchat = SuiteDataset("zh_groupchat", data_dir / "zh_groupchat")
    changed_facts = SuiteDataset("changed_facts", data_dir / "changed_facts")
    hosts = (locomo, zh_groupchat, changed_facts)
    candidates = [
        locomo,
        SuiteDataset("longmemeval_oracle", shared_dir / "longmemeval_oracle"),
        zh_groupchat,
        SuiteDataset("zh_validation", data_dir / "zh_validation", held_out=True),
        # written for issues 45, 46 and 48: facts that change, English questions about Chinese
        # lines, the dialogue so far as the query; each has a held-out twin or will get one
        changed_facts,
        SuiteDataset("changed_facts_heldout", data_dir / "changed_facts_heldout", held_out=True),
        SuiteDataset("mixed_script", data_dir / "mixed_script"),
        SuiteDataset("dialogue_notes", data_dir / "dialogue_notes"),
        # issue 45: near misses about the people of the hosts' conversations, asked of them
        SuiteDataset("near_miss", data_dir / "near_miss", hosts=hosts),
        SuiteDataset(
            "near_miss_heldout", data_dir / "near_miss_heldout", held_out=True, hosts=hosts
        ),
        SuiteDataset("dialogue_notes_heldout", data_dir / "dialogue_notes_heldout", held_out=True),
        # issue 46: long Chinese chats (4-8 turns, ~200 characters) as the query, the shape of
        # the maintainers' held-out set that dialogue_notes' three-line chats do not cover
        SuiteDataset("dialogue_long", data_dir / "dialogue_long"),
        SuiteDataset("dialogue_long_heldout", data_dir / "dialogue_long_heldout", held_out=True),
    ]
    if quick:
        candidates = [d for d in candidates if d.name != "longmemeval_oracle"]
    return candidates


def suite_datasets(shared_dir: Path, data_dir: Path, *, quick: bool) -> list[SuiteDataset]:
    """The suite's datasets that exist on this machine, LongMemEval left out when quick."""
    candidates = suite_candidates(shared_dir, data_dir, quick=quick)
    return [d for d in candidates if (d.path / "queries.jsonl").is_file()]


def missing_files(shared_dir: Path, data_dir: Path, *, quick: bool) -> dict[str, Path]:
    """The suite's parts whose questions are not on this machine (name -> the file looked
    for): a run without them scores less than the whole suite."""
    wanted = {
        d.name: d.path / "queries.jsonl"
        for d in suite_candidates(shared_dir, data_dir, quick=quick)
    }
    wanted["no_answer"] = data_dir / "no_answer" / "queries.jsonl"
    return {name: path for name, path in wanted.items() if not path.is_file()}


def run_suite(
    datasets: list[SuiteDataset],
    *,
    no_answer: list[dict[str, Any]],
    config: Config,
    cache_dir: Path,
    variants: list[Variant] | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    limit_conversations: int | None = None,
    on_dataset: DatasetDone | None = None,
) -> dict[str, Any]:
    """Run every dataset through every variant; returns per-variant, per-dataset summaries
    plus each variant's macro average."""
    run = SuiteRun(
        variants or [Variant("hybrid")],
        config,
        cache_dir,
        embedder=embedder,
        progress=progress,
        limit_conversations=limit_conversations,
    )
    for dataset in datasets:
        targets = NO_ANSWER_TARGETS.get(dataset.name, ())
        probes = [q for q in no_answer if q.get("target") in targets]
        start = time.perf_counter()
        run.run(dataset, probes)
        if on_dataset is not None:
            scores = run.scores[dataset.name]
            summaries = {v.name: summarise(scores[v.name]) for v in run.variants}
            on_dataset(dataset.name, summaries, time.perf_counter() - start)
    held_out = frozenset(d.name for d in datasets if d.held_out)
    out: dict[str, Any] = {
        "variants": {},
        "embed_model": run.embedder and run.embedder.model_id,
        "held_out": sorted(held_out),
    }
    for variant in run.variants:
        per_dataset = {name: summarise(v[variant.name]) for name, v in run.scores.items()}
        out["variants"][variant.name] = {
            "datasets": per_dataset,
            "macro": macro_average(per_dataset, held_out),
        }
    return out
