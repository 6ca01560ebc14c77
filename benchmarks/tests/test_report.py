"""docs/benchmarks.md is what `python -m remem_bench.report` writes from the result files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from remem_bench import RESULTS_DIR
from remem_bench.report import SOURCES, load, render

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_page_is_what_the_command_writes():
    written = subprocess.run(
        [sys.executable, "-m", "remem_bench.report"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout
    committed = (REPO / "docs" / "benchmarks.md").read_text("utf-8")
    assert committed == written, (
        "docs/benchmarks.md is stale: python -m remem_bench.report > docs/benchmarks.md"
    )


def test_the_page_follows_the_result_files(tmp_path):
    for name in SOURCES.values():
        shutil.copy(RESULTS_DIR / name, tmp_path / name)
    quick = tmp_path / SOURCES["quick"]
    data = json.loads(quick.read_text("utf-8"))
    overall = data["variants"]["hybrid"]["datasets"]["locomo"]["overall"]
    overall["recall@10"] = 0.1234
    quick.write_text(json.dumps(data), "utf-8")
    page = render(load(tmp_path))
    # the figures beside the changed one are the file's, whatever today's run measured
    assert f"| LoCoMo | 1,982 | {overall['recall@5']:.3f} | 0.123 |" in page
    target = "| LoCoMo recall@10 >= 0.80, MRR >= 0.58 |"
    assert f"{target} not met: 0.123 / {overall['mrr']:.3f} |" in page
