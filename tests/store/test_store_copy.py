"""`copy_store` moves a whole store between any two backends of the conformance suite:
records, sessions, every model's vectors, access counts, markers; resumable; verified."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from conformance import BACKENDS, fields

from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import ValidationError
from remem.store.base import Store
from remem.store.queries import FactBacklog, RecordPage, TextUpdate, VectorWrite
from remem.text.tokenize import Tokenizer
from remem.transfer import copy_store

PAIRS = list(itertools.product(BACKENDS, BACKENDS))
CONFIG = Config.load(env={}, overrides={"indexing.mode": "sync"})
LATENT_ID = "local:multilingual-e5-small/latent-top128"
TOKENIZER = Tokenizer.from_config(CONFIG.text)


def make(backend: str, root: Path, name: str) -> Store:
    folder = root / name
    folder.mkdir()
    return BACKENDS[backend](folder)


def fill(store: Store, n: int = 120) -> None:
    """Messages in three sessions (one a sub-session with a platform), a notice that is stored
    only, memories (one superseded), vectors of two models plus legacy ones, access counts."""
    # not closed: closing a Memory closes its store, which the test still uses
    mem = Memory(config=CONFIG, store=store, embedder=HashEmbedder())
    mem.ingest_many(
        [
            {
                "id": f"m{i}",
                "text": f"turn {i} about otters and river number {i % 7}",
                "session": f"s{i % 3}",
                "speaker": "Ann" if i % 2 else "Bo",
                "role": "user" if i % 2 else "assistant",
                "timestamp": 1_700_000_000 + i,
                "metadata": {"n": i},
            }
            for i in range(n)
        ]
    )
    mem.ingest({"id": "notice", "text": "sent a photo", "role": "notice", "session": "s0"})
    mem.set_session("s1", origin_platform="qq", parent="s0")
    old = mem.add("Ann lives in Lisbon", scope="user:ann", id="old", category="fact")
    mem.add("Ann likes green tea", scope="user:ann", id="tea", importance=0.9)
    store.set_validity(old.rowid, 1_700_000_500.0, {"superseded_by": "tea"})
    rows = [r.rowid for r in mem.list(limit=None) if r.index_status != "skipped"]
    rng = np.random.default_rng(3)
    store.put_vectors(
        VectorWrite("other:m32", "other", "m32", [(r, rng.standard_normal(32)) for r in rows[:50]])
    )
    store.put_vectors(VectorWrite("", "", "", [(r, rng.standard_normal(16)) for r in rows[50:60]]))
    store.record_access([(rows[0], 3, 1_700_000_900.0), (rows[-1], 1, 1_700_000_950.0)])
    kept = store.get_by_rowids(rows[:40])  # the bundled model's latent terms of 40 records
    store.put_latent_terms(
        LATENT_ID, [(r, kept[r].content_hash, bytes([r % 256]) * 8) for r in kept]
    )


def search_ids(store: Store, query: str) -> list[tuple[str, float]]:
    mem = Memory(config=CONFIG, store=store, embedder=HashEmbedder())  # not closed: see fill
    hits = mem.search(query, k=8, now=1_800_000_000)
    return [(h.record.id, round(h.score, 6)) for h in hits]


@pytest.mark.parametrize(("src_kind", "dst_kind"), PAIRS)
def test_copy_moves_everything_and_verifies(tmp_path, src_kind, dst_kind):
    src, dst = make(src_kind, tmp_path, "src"), make(dst_kind, tmp_path, "dst")
    fill(src)
    seen: list[int] = []
    report = copy_store(
        src,
        dst,
        tokenizer=TOKENIZER,
        context_turns=CONFIG.text.context_turns,
        source_name="src",
        batch_size=16,
        sample=500,
        seed=1,
        progress=seen.append,
    )
    assert report.verified, report.mismatches
    assert report.copied == src.count() == dst.count() == sum(seen) == 123
    assert report.sampled == 123  # every record compared, vectors byte for byte
    assert report.counts["vectors:(legacy):16"] == [10, 10]
    assert report.counts["vectors:other:m32:32"] == [50, 50]
    assert sorted(src.vector_stats()) == sorted(dst.vector_stats())
    assert dst.get("notice").index_status == "skipped"
    assert dst.session_info("s1") == src.session_info("s1")
    assert dst.count_missing_latent_terms(LATENT_ID) == src.count_missing_latent_terms(LATENT_ID)
    by_id = {r.id: r.rowid for r in dst.list_records(RecordPage(limit=None))}
    for rec in src.list_records(RecordPage(limit=None)):
        mine = src.latent_terms_of(LATENT_ID, [rec.rowid]).get(rec.rowid)
        assert dst.latent_terms_of(LATENT_ID, [by_id[rec.id]]).get(by_id[rec.id]) == mine
    # lexical tokens and context tokens were remade the same way: the same hits, same scores
    for query in ("otters river number 3", "what did Ann say about otters", "green tea"):
        assert search_ids(dst, query) == search_ids(src, query)
    src.close()
    dst.close()


class Killed(Exception):
    """Stands for the process dying between two batches."""


def test_a_cut_short_copy_resumes_where_it_stopped(tmp_path):
    src, dst = make("sqlite", tmp_path, "src"), make("sqlite", tmp_path, "dst")
    fill(src)
    batches = 0

    def stop_after_three(n: int) -> None:
        nonlocal batches
        batches += 1
        if batches == 3:
            raise Killed  # as if killed after the third batch was committed

    common = {"tokenizer": TOKENIZER, "context_turns": 2, "source_name": "src", "batch_size": 20}
    with pytest.raises(Killed):
        copy_store(src, dst, progress=stop_after_three, **common)  # type: ignore[arg-type]
    assert dst.count() == 60
    report = copy_store(src, dst, sample=500, **common)  # type: ignore[arg-type]
    assert report.copied == 63 and report.resumed_after > 0
    assert report.verified, report.mismatches
    # a record added to the source later comes across on the next run; nothing is doubled
    src.insert_records([(fields(999, id="late", kind="memory", text="late fact"), "late fact")])
    again = copy_store(src, dst, sample=500, **common)  # type: ignore[arg-type]
    assert (again.copied, again.verified, dst.count()) == (1, True, 124)
    used = {
        r.id: r.access_count for r in src.list_records(RecordPage(limit=None)) if r.access_count
    }
    assert sorted(used.values()) == [1, 3]  # topped up once, not added again by the reruns
    assert {i: dst.get(i).access_count for i in used} == used


def test_refuses_a_destination_with_other_records(tmp_path):
    src, dst = make("memory", tmp_path, "src"), make("memory", tmp_path, "dst")
    fill(src, 5)
    fill(dst, 2)
    with pytest.raises(ValidationError, match="copy into an empty store"):
        copy_store(src, dst, tokenizer=TOKENIZER, context_turns=2, source_name="src")
    other = make("memory", tmp_path, "other")
    copy_store(src, other, tokenizer=TOKENIZER, context_turns=2, source_name="src")
    with pytest.raises(ValidationError, match="a copy of 'src'"):
        copy_store(src, other, tokenizer=TOKENIZER, context_turns=2, source_name="elsewhere")


def test_verification_finds_differences(tmp_path):
    src, dst = make("sqlite", tmp_path, "src"), make("sqlite", tmp_path, "dst")
    fill(src, 10)
    common = {"tokenizer": TOKENIZER, "context_turns": 2, "source_name": "src", "sample": 100}
    assert copy_store(src, dst, **common).verified  # type: ignore[arg-type]
    changed = dst.get("m3")
    dst.update_text(TextUpdate(changed.rowid, "tampered", "x", "tampered"))
    dst.delete(["m4"])
    report = copy_store(src, dst, **common)  # type: ignore[arg-type]
    assert not report.verified
    assert "kind:message: 11 in the source, 10 in the destination" in report.mismatches
    assert any("'m3': text is 'tampered'" in m for m in report.mismatches)
    assert any("'m4': missing" in m for m in report.mismatches)


@pytest.mark.parametrize(("src_kind", "dst_kind"), PAIRS)
def test_records_owing_their_facts_owe_them_in_the_copy(tmp_path, src_kind, dst_kind):
    """The source's facts backlog comes across: a record the source has not read the facts of
    yet (marked as waiting) waits for them in the copy, where the first reader reads them;
    records whose facts were read are not marked again (their facts came with the copy)."""
    src, dst = make(src_kind, tmp_path, "src"), make(dst_kind, tmp_path, "dst")
    mem = Memory(config=CONFIG, store=src, embedder=HashEmbedder())  # not closed: see fill
    said = {"speaker": "Tom", "session": "chat"}
    mem.ingest({**said, "id": "read", "text": "I work at Globex", "timestamp": 1_700_000_000})
    assert mem.indexer.facts is not None and mem.indexer.facts.settle(60)
    mem.indexer.facts.stop(finish=False)  # as if killed before the next one's facts were read
    mem.ingest({**said, "id": "owed", "text": "I live in Lisbon now", "timestamp": 1_700_000_100})
    owed = [r.id for r in src.records_awaiting_facts(FactBacklog())]
    assert owed == ["owed"] and [f.value for f in src.facts()] == ["Globex"]
    report = copy_store(
        src, dst, tokenizer=TOKENIZER, context_turns=2, source_name="src", batch_size=1
    )
    assert report.verified, report.mismatches
    assert [r.id for r in dst.records_awaiting_facts(FactBacklog())] == owed
    copy = Memory(config=CONFIG, store=dst, embedder=HashEmbedder())
    assert sorted(f.value for f in copy.facts("Tom")) == ["Globex", "Lisbon"]
    assert dst.count_awaiting_facts() == 0
    src.close()
    dst.close()
