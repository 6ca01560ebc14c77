"""The `remem` command through its console script's entry point, in the test process
(tests/cli_inproc.py; test_cli_entry.py runs it as a real process): happy paths, --json, and
bad input on every command (one clear line, non-zero exit, nothing changed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_inproc import remem
from remem.store import SQLiteStore

REPO = Path(__file__).resolve().parents[2]
ZH = REPO / "tests" / "data" / "zh_chat"


def run(args, db=None, env_extra=None, stdin=None, lexical=False):
    env = {}
    if db is not None:
        env["REMEM_DB"] = str(db)
    if lexical:
        env["REMEM_EMBED__PROVIDER"] = "none"
    env.update(env_extra or {})
    return remem(args, env=env, stdin=stdin)


def one_error_line(proc, code=2):
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.fixture
def jsonl(tmp_path):
    f = tmp_path / "in.jsonl"
    rows = [
        {
            "id": "c1",
            "text": "I adopted a greyhound called Pixel",
            "speaker": "Dana",
            "session": "s1",
            "timestamp": "2026-03-01T10:00:00Z",
        },
        {
            "id": "c2",
            "text": "我们下周三在公司开会讨论预算",
            "speaker": "老王",
            "session": "s2",
            "timestamp": 1772500000,
        },
    ]
    f.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    return f


def test_ingest_search_get_list_delete_stats(tmp_path, jsonl):
    db = tmp_path / "cli.db"
    proc = run(["ingest", str(jsonl), "--json"], db)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ingested"] == 2

    proc = run(["search", "what dog did Dana adopt", "--json", "--explain", "-k", "2"], db)
    data = json.loads(proc.stdout)
    assert data["hits"][0]["record"]["id"] == "c1"
    assert data["hits"][0]["explain"]["vector_rank"] is not None

    proc = run(["search", "开会", "-k", "1"], db)
    assert proc.returncode == 0 and "预算" in proc.stdout
    # --limit, as `remem list` spells it, is the same option
    limited = json.loads(
        run(["search", "what dog did Dana adopt", "--limit", "1", "--json"], db).stdout
    )
    assert len(limited["hits"]) == 1

    proc = run(["search", "开会", "--explain"], db)
    assert "bm25 #1" in proc.stdout

    assert json.loads(run(["get", "c2", "--json"], db).stdout)["speaker_label"] == "老王"
    assert "greyhound" in run(["get", "c1"], db).stdout
    listed = json.loads(run(["list", "--json"], db).stdout)
    assert [r["id"] for r in listed] == ["c2", "c1"]
    assert "c1" in run(["list"], db).stdout

    stats = json.loads(run(["stats", "--json"], db).stdout)
    assert stats["records"] == 2 and stats["missing_vectors"] == 0
    assert "vectors" in run(["stats"], db).stdout

    added = json.loads(
        run(["add", "Dana walks Pixel at 7am", "--json", "--scope", "user:dana"], db).stdout
    )
    assert added["kind"] == "memory" and added["scope"] == "user:dana"
    prefix = added["id"][:10]
    assert json.loads(run(["delete", prefix, "--json"], db).stdout)["id"] == added["id"]
    assert json.loads(run(["stats", "--json"], db).stdout)["records"] == 2


def test_ingest_without_embedding_then_backfill(tmp_path, jsonl):
    db = tmp_path / "cli.db"
    assert run(["ingest", str(jsonl), "--no-embed"], db).returncode == 0
    stats = json.loads(run(["stats", "--json"], db).stdout)
    assert stats["missing_vectors"] == 2 and stats["index_status"] == {"pending": 2}
    assert stats["facts"] == 0  # every backend counts its facts (none read yet)
    dry = json.loads(run(["embed", "--dry-run", "--json"], db).stdout)
    assert dry["would_embed"] == 2 and dry["would_store_latent_terms"] == 2
    assert "latent terms" in run(["stats"], db).stdout  # 2 records without
    proc = run(["embed", "--json"], db)
    assert json.loads(proc.stdout) == {
        "embedded": 2,
        "failed": 0,
        "remaining": 0,
        "latent_terms": 2,  # the relevance stage's evidence, stored beside the vectors
    }
    # rerunning skips existing ids only when asked
    assert run(["ingest", str(jsonl), "--skip-existing", "--json"], db).returncode == 0
    one_error_line(run(["ingest", str(jsonl)], db))


def test_times_are_shown_on_the_configured_clock(tmp_path, jsonl):
    """calendar.timezone dates listings, records and hits as recalled lines are: c1 was sent
    at 10:00 UTC, 18:00 in Shanghai."""
    db = tmp_path / "zone.db"
    assert run(["ingest", str(jsonl)], db, lexical=True).returncode == 0
    zone = {"REMEM_CALENDAR__TIMEZONE": "Asia/Shanghai"}
    for args in (["list"], ["get", "c1"], ["search", "greyhound"]):
        shown = run(args, db, env_extra=zone, lexical=True).stdout
        assert "2026-03-01 18:00 +0800" in shown and "10:00" not in shown, (args, shown)
        # UTC, the default, and the time says so (issue 44 item 11)
        assert "2026-03-01 10:00 UTC" in run(args, db, lexical=True).stdout, args
    naive = tmp_path / "naive.jsonl"
    naive.write_text(json.dumps({"id": "n1", "text": "naive", "timestamp": "2026-03-01T18:00"}))
    assert run(["ingest", str(naive)], db, env_extra=zone, lexical=True).returncode == 0
    stored = json.loads(run(["get", "n1", "--json"], db, lexical=True).stdout)
    assert stored["created_at"] == json.loads(run(["get", "c1", "--json"], db).stdout)["created_at"]


def test_ingest_from_stdin(tmp_path):
    db = tmp_path / "s.db"
    proc = run(["ingest", "-", "--json"], db, stdin='{"text": "piped in"}\n', lexical=True)
    assert json.loads(proc.stdout)["ingested"] == 1


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        ('{"text": "ok"}\n{"text": ""}\n', ":2: invalid text"),
        ('{"text": "ok"}\nnot json\n', ":2: not valid JSON"),
        ('["a list"]\n', ":1: expected a JSON object"),
        ('{"text": "ok", "role": "boss"}\n', ":1: invalid role"),
        ('{"text": "ok", "timestamp": "soon"}\n', ":1: invalid created_at"),
        ("\n\n", "has no records"),
    ],
)
def test_ingest_bad_lines_change_nothing(tmp_path, content, expect):
    db = tmp_path / "bad.db"
    f = tmp_path / "bad.jsonl"
    f.write_text(content)
    line = one_error_line(run(["ingest", str(f)], db, lexical=True))
    assert expect in line
    if db.exists():
        stats = json.loads(run(["stats", "--json"], db, lexical=True).stdout)
        assert stats["records"] == 0


def test_bad_input_on_every_command(tmp_path):
    db = tmp_path / "x.db"
    SQLiteStore(db).close()  # an empty store: the errors below are about the input
    cases = [
        (["ingest", str(tmp_path / "missing.jsonl")], "does not exist"),
        (["ingest", str(tmp_path)], "is a directory"),
        (["search", ""], "invalid query"),
        (["search", "x", "-k", "0"], "invalid k"),
        (["search", "x", "--kind", "note"], "invalid kind"),
        (["search", "x", "--since", "last tuesday"], "invalid since"),
        (["search", "x", "--scope", "team"], "invalid scope"),
        (["add", "  "], "invalid text"),
        (["add", "x", "--importance", "3"], "invalid importance"),
        (["add", "x", "--scope", "nope"], "invalid scope"),
        (["list", "--limit", "-1"], "invalid --limit"),
        (["list", "--kind", "thing"], "invalid kind"),
        (["embed", "--batch-size", "0"], "invalid --batch-size"),
        (["bench", str(tmp_path / "nope")], "is not a folder"),
        (["bench", str(tmp_path)], "corpus.jsonl"),
        (["bench", str(ZH), "--channels", "magic"], "invalid --channels"),
    ]
    for args, expect in cases:
        line = one_error_line(run(args, db, lexical=True))
        assert expect in line, (args, line)
    for args in (["get", "missing"], ["delete", "missing-id-123"]):
        line = one_error_line(run(args, db, lexical=True), code=1)
        assert "no record with id" in line


def test_bad_database_paths_and_config(tmp_path):
    line = one_error_line(run(["--db", str(tmp_path), "stats"], lexical=True))
    assert "is a directory" in line
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 200)
    line = one_error_line(run(["--db", str(junk), "stats"], lexical=True), code=3)  # store error
    assert "cannot use" in line
    bad_cfg = tmp_path / "c.toml"
    bad_cfg.write_text("[embed]\nprovider = 'magic'\n")
    line = one_error_line(run(["--config", str(bad_cfg), "stats"], tmp_path / "y.db"))
    assert "embed.provider" in line
    line = one_error_line(
        run(["stats"], tmp_path / "y.db", env_extra={"REMEM_EMBED__BATCH_SIZE": "lots"})
    )
    assert "REMEM_EMBED__BATCH_SIZE" in line


def test_ambiguous_prefix_deletes_nothing(tmp_path):
    db = tmp_path / "p.db"
    f = tmp_path / "p.jsonl"
    f.write_text('{"id": "abcdefgh-1", "text": "one"}\n{"id": "abcdefgh-2", "text": "two"}\n')
    run(["ingest", str(f)], db, lexical=True)
    line = one_error_line(run(["delete", "abcdefgh"], db, lexical=True))
    assert "ambiguous" in line and "abcdefgh-1" in line
    assert json.loads(run(["stats", "--json"], db, lexical=True).stdout)["records"] == 2


def test_bench_json_shape():
    proc = run(["bench", str(ZH), "--json"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["dataset"] == "zh_chat" and data["n_queries"] == 24
    assert set(data["overall"]) == {"recall@5", "recall@10", "hit@10", "session_recall@10", "mrr"}
    assert set(data["latency_ms"]) == {
        "search_p50",
        "search_p95",
        "search_embed_p50",
        "search_embed_p95",
    }
    assert data["ingest_per_s"] > 0
    assert set(data["by_category"]) == {"simplified", "traditional"}
    # a quality floor for Chinese: this fixture is easy, so anything lower is a regression
    assert data["overall"]["recall@10"] >= 0.95
    assert data["overall"]["mrr"] >= 0.9
    text = run(["bench", str(ZH), "--channels", "lexical"]).stdout
    assert "recall@10" in text and "overall" in text


def test_demo_recalls_the_right_turns():
    proc = run(["demo", "--json"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["ingested"] == 28
    shown = [" ".join(h["record"]["text"] for h in r["hits"]) for r in data["recalls"]]
    assert "peanuts" in data["recalls"][0]["hits"][0]["record"]["text"]
    assert "Munich" in shown[1]  # Where does Alice work now?
    assert "中旬以后都有空" in shown[2]  # 小明什么时候有空？
    assert "小屋" in shown[3]  # 哪个山间小屋已经订好了？
    # 小屋一晚多少钱？ (a Chinese question, an English answer, first through the translations)
    assert "65 euros" in data["recalls"][4]["hits"][0]["record"]["text"]
    assert "Munich" in data["injected_block"]
    block = data["injected_block"]
    # the current employer's line first: "Small team, eight people ..." says none
    # (the described employer was not read as a fact, and currency had nothing to place)
    excerpts = [line for line in block.splitlines() if line.startswith("[")]
    assert "robotics startup in Munich" in excerpts[0], excerpts
    assert "Small team" not in excerpts[0]
    assert "robotics startup in Munich" in data["recalls"][1]["hits"][0]["record"]["text"]
    assert block.startswith('<remem-memory type="untrusted-data">')
    assert block.rstrip().endswith("</remem-memory>")
    human = run(["demo"]).stdout
    assert "Injected into the prompt" in human and "recall:" in human


def test_version_answers_without_a_store(tmp_path):
    from remem import __version__

    proc = run(["--version"], db=tmp_path / "never-created.db")
    assert proc.returncode == 0 and proc.stdout.strip() == f"remem {__version__}"
    assert not (tmp_path / "never-created.db").exists()


@pytest.mark.parametrize(
    "args",
    [["stats"], ["search", "x"], ["list"], ["get", "abc"], ["export"], ["doctor"]],
)
def test_read_only_commands_never_create_a_database(tmp_path, args):
    db = tmp_path / "missing" / "dir" / "x.db"
    proc = run(args, db=db, lexical=True)
    one_error_line(proc, code=1)
    assert "no remem database" in proc.stderr and "nothing was created" in proc.stderr
    assert not db.parent.exists()  # neither the file nor its folders


def test_global_options_may_follow_the_subcommand(tmp_path):
    from remem.cli import hoist_global_options

    assert hoist_global_options(["search", "x", "--db", "f.db", "-k", "3", "-v"]) == [
        "--db",
        "f.db",
        "-v",
        "search",
        "x",
        "-k",
        "3",
    ]
    assert hoist_global_options(["add", "--db=f.db", "--", "--db"]) == [
        "--db=f.db",
        "add",
        "--",
        "--db",
    ]
    db = tmp_path / "after.db"
    assert run(["add", "Alice likes tea", "--db", str(db)], lexical=True).returncode == 0
    proc = run(["search", "tea", "--db", str(db), "--json"], lexical=True)
    assert proc.returncode == 0 and "Alice likes tea" in proc.stdout


def test_search_reads_the_query_from_stdin(tmp_path):
    db = tmp_path / "stdin.db"
    assert run(["add", "the hut costs 65 euros a night"], db=db, lexical=True).returncode == 0
    proc = run(["search", "-", "--json"], db=db, lexical=True, stdin="how much is the hut?\n")
    assert proc.returncode == 0 and "65 euros" in proc.stdout
    line = one_error_line(run(["search", "-"], db=db, lexical=True, stdin="   "))
    assert "invalid query" in line


def test_jsonl_lines_end_only_at_newlines_and_deep_nesting_is_one_error(tmp_path):
    db = tmp_path / "lines.db"
    f = tmp_path / "in.jsonl"
    # U+2028 / U+2029 are valid inside JSON strings: they do not end a line
    f.write_text(
        '{"id": "a", "text": "one\u2028two\u2029three"}\r\n{"id": "b", "text": "x"}\n',
        encoding="utf-8",
    )
    assert run(["ingest", str(f)], db=db, lexical=True).returncode == 0
    proc = run(["get", "a", "--json"], db=db, lexical=True)
    assert proc.returncode == 0 and "one\\u2028two" in proc.stdout.replace("\u2028", "\\u2028")
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"text": "fine"}\n' + "[" * 100_000 + "\n", encoding="utf-8")
    line = one_error_line(run(["ingest", str(deep)], db=db, lexical=True))
    assert "deep.jsonl:2" in line and "nested too deeply" in line
    proc = run(["stats", "--json"], db=db, lexical=True)
    assert '"records": 2' in proc.stdout  # the bad file wrote nothing
