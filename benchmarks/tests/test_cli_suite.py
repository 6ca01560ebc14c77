"""`remem bench --suite` in a real subprocess, words only (no model), over a small suite made
from the Chinese test fixture and three off-topic probes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ZH = REPO / "tests" / "data" / "zh_chat"


def run(args):
    env = {**os.environ, "REMEM_EMBED__PROVIDER": "none"}
    return subprocess.run(
        [sys.executable, "-m", "remem.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def suite_dirs(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(ZH, data / "zh_groupchat")
    probes = [
        {"qid": "na-1", "query": "Who wrote the Iliad?", "lang": "en", "target": "both"},
        {"qid": "na-2", "query": "量子色动力学的讲义", "lang": "zh", "target": "zh_groupchat"},
        {"qid": "na-3", "query": "Who wrote the Odyssey?", "lang": "en", "target": "locomo"},
    ]
    (data / "no_answer").mkdir()
    (data / "no_answer" / "queries.jsonl").write_text(
        "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in probes), "utf-8"
    )
    return ["--shared-dir", str(tmp_path / "none"), "--data-dir", str(data)]


def test_suite_json_and_table(tmp_path):
    args = ["bench", "--suite", "--quick", "--channels", "lexical", *suite_dirs(tmp_path)]
    args += ["--cache-dir", str(tmp_path / "cache"), "--allow-missing"]
    proc = run([*args, "--json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    zh = result["variants"]["lexical"]["datasets"]["zh_groupchat"]
    assert zh["n_answerable"] == 24
    assert zh["overall"]["recall@10"] >= 0.95
    corpus = (ZH / "corpus.jsonl").read_text("utf-8").splitlines()
    conversations = len({json.loads(line)["conversation"] for line in corpus if line.strip()})
    # two probes aim at zh_groupchat, each asked in every conversation store; none is answered
    assert zh["no_answer"] == {"n": 2 * conversations, "false_hit_rate": 0.0}
    assert zh["unanswerable"] == {"n": 0, "false_hit_rate": None}
    assert result["variants"]["lexical"]["macro"]["recall@10"] == zh["overall"]["recall@10"]
    text = run(args).stdout  # the cached stores are reused
    assert "zh_groupchat" in text and "macro" in text and "per category" in text


def test_a_missing_dataset_is_named_and_refused_unless_allowed(tmp_path):
    # --quick wants locomo and zh_validation too; only zh_groupchat and no_answer are here
    args = ["bench", "--suite", "--quick", "--channels", "lexical", *suite_dirs(tmp_path)]
    args += ["--cache-dir", str(tmp_path / "cache")]
    refused = run(args)
    assert refused.returncode == 1, refused.stderr
    assert "locomo" in refused.stderr and "zh_validation" in refused.stderr
    assert "--allow-missing" in refused.stderr and refused.stdout == ""
    allowed = run([*args, "--allow-missing", "--json"])
    assert allowed.returncode == 0, allowed.stderr
    assert "left out of this run" in allowed.stderr and "locomo" in allowed.stderr
    assert list(json.loads(allowed.stdout)["variants"]["lexical"]["datasets"]) == ["zh_groupchat"]


def test_off_a_terminal_the_suite_prints_a_line_per_dataset_and_a_summary(tmp_path):
    args = ["bench", "--suite", "--quick", "--channels", "lexical,hybrid", *suite_dirs(tmp_path)]
    args += ["--cache-dir", str(tmp_path / "cache"), "--allow-missing"]
    for extra in ([], ["--json"]):
        proc = run([*args, *extra])  # stderr is a pipe here, as in a CI log
        assert proc.returncode == 0, proc.stderr
        lines = proc.stderr.splitlines()
        assert "suite: 1 datasets (zh_groupchat)" in lines
        done = [line for line in lines if line.startswith("zh_groupchat: done in ")]
        assert len(done) == 1 and "lexical r@10 " in done[0] and "hybrid r@10 " in done[0]
        assert lines[-1].startswith("suite: 1 datasets in ")
    json.loads(proc.stdout)  # with --json, stdout holds the JSON only


def test_suite_without_datasets_says_where_it_looked(tmp_path):
    proc = run(["bench", "--suite", "--data-dir", str(tmp_path), "--shared-dir", str(tmp_path)])
    assert proc.returncode == 2
    assert "no suite dataset found" in proc.stderr and "--data-dir" in proc.stderr


def test_bench_without_a_dataset_or_suite_is_refused():
    proc = run(["bench"])
    assert proc.returncode == 2 and "--suite" in proc.stderr
