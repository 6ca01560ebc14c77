"""Streaming import and export: bounded batches, all-or-nothing on a bad line, one-shot
inputs spooled and cleaned up, duplicates across batches, the CLI's JSON summaries."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

from test_cli import run

from helpers import HashEmbedder
from remem import Config, Memory
from remem.transfer import ImportSource, export_records, import_records


def cfg() -> Config:
    return Config.load(env={}, overrides={"indexing.mode": "sync"})


def lines_of(n: int, start: int = 0) -> list[str]:
    return [
        json.dumps({"id": f"r{i}", "text": f"remark {i} about otters", "session": "s"})
        for i in range(start, start + n)
    ]


def test_a_bad_line_after_many_batches_writes_nothing(tmp_path):
    good = lines_of(45)
    file = tmp_path / "in.jsonl"
    file.write_text("\n".join([*good[:40], '{"text": 3}', *good[40:]]) + "\n")
    with Memory(tmp_path / "d.db", cfg(), embedder=HashEmbedder()) as mem:
        report = import_records(mem, file, batch_size=7)
        assert report.invalid == [(41, report.invalid[0][1])] and "text" in report.invalid[0][1]
        assert (report.records, report.added, report.written) == (45, 0, False)
        assert mem.stats()["records"] == 0
        fixed = import_records(mem, file, batch_size=7, skip_invalid=True)
        assert (fixed.added, fixed.written) == (45, True)
        assert mem.stats()["index_status"] == {"indexed": 45}


def test_duplicates_across_batches_are_skipped_and_dry_run_counts_them(tmp_path):
    texts = ["alpha", "beta", "alpha", "gamma", "beta", "delta", "alpha"]
    lines = [json.dumps({"text": t}) for t in texts]
    with Memory(tmp_path / "d.db", cfg(), embedder=HashEmbedder()) as mem:
        dry = import_records(mem, lines, dry_run=True, batch_size=2)
        assert (dry.added, dry.skipped, dry.written) == (4, 3, False)
        assert mem.stats()["records"] == 0
        report = import_records(mem, lines, batch_size=2)
        assert (report.added, report.skipped) == (4, 3)
        assert sorted(r.text for r in mem.list(limit=None)) == ["alpha", "beta", "delta", "gamma"]


def test_one_shot_input_is_spooled_read_twice_and_removed(tmp_path):
    before = set(Path(tempfile.gettempdir()).glob("remem-import-*"))
    data = ("\n".join(lines_of(10)) + "\n").encode()
    with ImportSource(io.BytesIO(data)) as source:
        assert len(list(source.lines())) == 10 == len(list(source.lines()))  # two passes
    generated = (line for line in lines_of(5))  # a generator can be read only once
    with Memory(tmp_path / "d.db", cfg(), embedder=HashEmbedder()) as mem:
        assert import_records(mem, generated).added == 5
    assert set(Path(tempfile.gettempdir()).glob("remem-import-*")) == before


def test_line_separators_inside_strings_stay_in_their_line(tmp_path):
    file = tmp_path / "in.jsonl"
    text = "one\u2028two\u2029three\rfour"
    file.write_text(json.dumps({"text": text}, ensure_ascii=False) + "\r\n", encoding="utf-8")
    with Memory(tmp_path / "d.db", cfg(), embedder=HashEmbedder()) as mem:
        assert import_records(mem, file).added == 1
        assert mem.list()[0].text == text


def test_stored_only_records_get_no_vector_from_an_import(tmp_path):
    emb = HashEmbedder()
    with Memory(tmp_path / "a.db", cfg(), embedder=emb) as mem:
        mem.ingest_many(
            [{"id": "n", "text": "sent a photo", "role": "notice"}, {"id": "t", "text": "hi"}]
        )
        dump = io.StringIO()
        export_records(mem, dump, with_vectors=True)
    lines = dump.getvalue().splitlines()
    with Memory(tmp_path / "b.db", cfg(), embedder=emb) as mem:
        import_records(mem, lines)
        assert mem.get("n").index_status == "skipped"
        assert mem.store.vector_count(emb.model_id) == 1
        lines = [json.dumps({**json.loads(x), "vectors": []}) for x in lines]
    with Memory(tmp_path / "c.db", cfg(), embedder=emb) as mem:
        import_records(mem, lines)  # without vectors in the file: embedded, but not "n"
        assert mem.get("n").index_status == "skipped"
        assert mem.store.vector_count(emb.model_id) == 1


def test_cli_streams_stdin_and_prints_json_summaries(tmp_path):
    db, copy = tmp_path / "a.db", tmp_path / "b.db"
    stdin = "\n".join(lines_of(30)) + "\n"
    report = json.loads(run(["import", "-", "--json"], db, stdin=stdin, lexical=True).stdout)
    assert (report["added"], report["records"], report["written"]) == (30, 30, True)
    dump = tmp_path / "dump.jsonl"
    proc = run(["export", "-o", str(dump), "--json"], db, lexical=True)
    summary = json.loads(proc.stdout)
    assert summary["exported"] == 30 and summary["output"] == str(dump)
    proc = run(["export", "--json"], db, lexical=True)  # records on stdout, summary on stderr
    assert len(proc.stdout.splitlines()) == 30 and json.loads(proc.stderr)["exported"] == 30
    bad = stdin + "{oops\n"
    proc = run(["import", "-"], copy, stdin=bad, lexical=True)
    assert proc.returncode == 2 and "nothing imported" in proc.stdout  # bad input
    assert "-:31: not valid JSON" in proc.stderr
    proc = run(["import", "-", "--skip-invalid", "--json"], copy, stdin=bad, lexical=True)
    assert proc.returncode == 2 and json.loads(proc.stdout)["added"] == 30
