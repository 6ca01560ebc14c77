"""export / import round trips, idempotence, invalid lines; config show / validate."""

from __future__ import annotations

import json
import sqlite3

import pytest
from test_cli import one_error_line, run

from helpers import HashEmbedder
from remem import Config, Memory, ValidationError
from remem.store.queries import RecordPage
from remem.transfer import export_file, export_records, import_records


def cfg():
    return Config.load(env={}, overrides={"indexing.mode": "sync"})


def test_round_trip_with_vectors_is_idempotent(tmp_path):
    emb = HashEmbedder()
    src = tmp_path / "src.db"
    with Memory(src, cfg(), embedder=emb) as mem:
        mem.ingest_many(
            [
                {
                    "id": f"m{i}",
                    "text": f"note number {i}",
                    "session": "s",
                    "speaker": "Ann",
                    "timestamp": 1_700_000_000 + i,
                }
                for i in range(1203)
            ]
        )
        mem.add("Ann likes tea", scope="user:ann", category="preference", importance=0.9)
        mem.set_session("s", origin_platform="qq", parent="root")
        out = tmp_path / "dump.jsonl"
        with out.open("w") as fh:
            assert export_records(mem, fh, with_vectors=True) == 1204  # past any page size
    lines = out.read_text().splitlines()
    assert len(lines) == 1204 and all(json.loads(line)["vectors"] for line in lines)
    with Memory(tmp_path / "dst.db", cfg(), embedder=emb) as mem:
        calls = emb.calls
        report = import_records(mem, lines)
        assert (report.added, report.skipped, report.vectors, report.invalid) == (1204, 0, 1204, [])
        assert emb.calls == calls  # vectors were reused, nothing re-embedded
        tea = mem.get(next(json.loads(x)["id"] for x in lines if "tea" in x))
        assert (tea.scope, tea.category, tea.importance) == ("user:ann", "preference", 0.9)
        info = mem.session_info("s")  # session facts travel with the records
        assert (info["origin_platform"], info["parent"]) == ("qq", "root")
        again = import_records(mem, lines)
        assert (again.added, again.skipped) == (0, 1204)
        assert mem.stats()["records"] == 1204


def test_invalid_lines_are_reported_and_nothing_is_written(tmp_path):
    lines = [
        '{"text": "good one"}',
        "not json",
        '{"text": ""}',
        '["x"]',
        '{"text": "good two", "role": "boss"}',
        '{"text": "good three"}',
    ]
    with Memory(tmp_path / "d.db", cfg(), embedder=HashEmbedder()) as mem:
        report = import_records(mem, lines, scope="project:x")
        assert (report.added, report.records, report.written) == (0, 2, False)
        assert [n for n, _ in report.invalid] == [2, 3, 4, 5] and report.invalid_count == 4
        assert mem.stats()["records"] == 0
        report = import_records(mem, lines, scope="project:x", skip_invalid=True)
        assert (report.added, report.written, report.invalid_count) == (2, True, 4)
        assert {r.scope for r in mem.list(limit=None)} == {"project:x"}
        dry = import_records(mem, ['{"text": "new"}'], dry_run=True)
        assert dry.added == 1 and mem.stats()["records"] == 2


def test_cli_export_import_and_config(tmp_path):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    f = tmp_path / "in.jsonl"
    f.write_text(
        '{"id": "x1", "text": "hello there", "scope": "user:1"}\n'
        '{"id": "x2", "text": "bye now", "scope": "user:2"}\n'
    )
    assert run(["ingest", str(f)], a, lexical=True).returncode == 0
    dump = tmp_path / "dump.jsonl"
    proc = run(["export", "--scope", "user:1", "-o", str(dump)], a, lexical=True)
    assert proc.returncode == 0 and "exported 1 records" in proc.stderr
    assert [json.loads(x)["id"] for x in dump.read_text().splitlines()] == ["x1"]
    report = json.loads(run(["import", str(dump), "--json"], b, lexical=True).stdout)
    assert report["added"] == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\nnope\n')
    proc = run(["import", str(bad)], b, lexical=True)
    assert proc.returncode == 2 and "bad.jsonl:2: not valid JSON" in proc.stderr  # bad input
    assert "does not exist" in one_error_line(run(["import", str(tmp_path / "x")], b, lexical=True))
    assert "invalid --scope" in one_error_line(
        run(["import", str(dump), "--scope", "bad"], b, lexical=True)
    )
    shown = json.loads(run(["config", "show", "--json"], b, lexical=True).stdout)
    assert shown["store.path"]["source"] == "env:REMEM_DB"
    assert shown["embed.provider"] == {"value": "none", "source": "env:REMEM_EMBED__PROVIDER"}
    good = tmp_path / "good.toml"
    good.write_text('[search]\nfusion = "rrf"\n')
    assert "valid" in run(["config", "validate", str(good)]).stdout
    broken = tmp_path / "broken.toml"
    broken.write_text("[search]\nfusion = 'magic'\n")
    assert "search.fusion" in one_error_line(run(["config", "validate", str(broken)]))


def test_export_file_is_atomic_and_checks_filters_first(tmp_path):
    target = tmp_path / "dump.jsonl"
    partial = tmp_path / "dump.jsonl.partial"
    with Memory(tmp_path / "a.db", cfg(), embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": f"note {i}", "scope": "user:a"} for i in range(3)])
        mem.add("a global fact")
        assert export_file(mem, target, filters={"scope": "user:a", "kind": None}) == 3
        assert len(target.read_text().splitlines()) == 3 and not partial.exists()
        with pytest.raises(ValidationError, match="invalid scope"):
            export_file(mem, tmp_path / "never.jsonl", filters={"scope": "bad"})
        assert sorted(p.name for p in tmp_path.iterdir() if "jsonl" in p.name) == ["dump.jsonl"]
    # A failure after the partial file was opened (here: reading from a closed store) leaves
    # the previous export in place and no partial file.
    with pytest.raises(sqlite3.ProgrammingError):
        export_file(mem, target)
    assert len(target.read_text().splitlines()) == 3 and not partial.exists()


def test_latent_terms_travel_with_an_export_with_vectors(tmp_path):
    """An imported store reads its records' latent terms instead of computing them in a
    search's path (issue 47, item 4)."""
    import base64

    import numpy as np

    from remem.embed import latent

    terms_id = next(iter(latent.MODEL_IDS.values()))
    emb = HashEmbedder()
    with Memory(tmp_path / "src.db", cfg(), embedder=emb) as mem:
        recs = mem.ingest_many([{"id": f"m{i}", "text": f"note {i}"} for i in range(3)])
        codes = {
            r.id: latent.pack(np.array([i + 1, 40, 900]), np.array([0.7, 0.2, 0.1]))
            for i, r in enumerate(recs)
        }
        mem.store.put_latent_terms(
            terms_id, [(r.rowid, r.content_hash, codes[r.id]) for r in recs[:2]]
        )
        out = tmp_path / "dump.jsonl"
        with out.open("w") as fh:
            export_records(mem, fh, with_vectors=True)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [bool(x.get("latent_terms")) for x in lines] == [True, True, False]
    lines[1]["latent_terms"][0]["terms"] = base64.b64encode(b"\x01\x02\x03").decode()  # broken
    with Memory(tmp_path / "dst.db", cfg(), embedder=emb) as mem:
        report = import_records(mem, [json.dumps(x) for x in lines])
        assert report.latent_terms == 1 and report.to_dict()["latent_terms"] == 1
        stored = {r.id: r for r in mem.store.list_records(RecordPage(limit=None))}
        got = mem.store.latent_terms_of(terms_id, [r.rowid for r in stored.values()])
        assert got == {stored["m0"].rowid: codes["m0"]}


def test_facts_come_along_with_an_import_and_a_copy(tmp_path):
    """Records that bring their vectors never pass the indexer, which derives facts: the
    import derives its scopes' facts at its end, and a copy carries them as they are."""
    from remem.store.sqlite import SQLiteStore
    from remem.text.tokenize import Tokenizer
    from remem.transfer.copy import copy_store

    emb = HashEmbedder()
    said = {"speaker": "Tom", "session": "g", "timestamp": "2025-11-02T09:00:00+00:00"}
    with Memory(tmp_path / "src.db", cfg(), embedder=emb) as mem:
        mem.ingest({"text": "I live in Shenzhen now", **said})
        assert [f.value for f in mem.facts("Tom")] == ["Shenzhen"]
        out = tmp_path / "dump.jsonl"
        with out.open("w") as fh:
            export_records(mem, fh, with_vectors=True)
    with Memory(tmp_path / "dst.db", cfg(), embedder=emb) as mem:
        report = import_records(mem, out.read_text().splitlines())
        assert report.vectors == 1 and report.facts == 1
        assert [f.value for f in mem.facts("Tom")] == ["Shenzhen"]
    src, dst = SQLiteStore(tmp_path / "src.db"), SQLiteStore(tmp_path / "copy.db")
    try:
        report = copy_store(src, dst, tokenizer=Tokenizer(), context_turns=2, source_name="src")
        assert report.facts == 1 and report.to_dict()["facts"] == 1
        assert [(f.value, f.source_ids) for f in dst.facts()] == [
            (f.value, f.source_ids) for f in src.facts()
        ]
    finally:
        src.close()
        dst.close()
