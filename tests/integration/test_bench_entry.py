"""`remem bench` is a thin entry to the benchmark package (benchmarks/, not shipped with
remem): without the package it says how to install it, and remem's own source neither cites
the package's files nor imports it anywhere but there."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "remem"

# runs `remem bench ARGS` as if the benchmark package were not installed
WITHOUT_PACKAGE = """
import sys
sys.modules["remem_bench"] = None  # an import of it raises ImportError, as when not installed
from remem.cli import run
sys.argv = ["remem", "bench", *sys.argv[1:]]
run()
"""


def test_without_the_benchmark_package_bench_says_how_to_install_it(tmp_path):
    for args in (["--suite", "--quick"], [str(tmp_path)]):
        proc = subprocess.run(
            [sys.executable, "-c", WITHOUT_PACKAGE, *args], capture_output=True, text=True
        )
        assert proc.returncode == 1, proc.stderr
        assert "pip install -e benchmarks" in proc.stderr and "Traceback" not in proc.stderr


def test_remem_cites_no_benchmark_file_and_imports_the_package_in_one_place():
    cited, importers = [], []
    for path in SRC.rglob("*.py"):
        text = path.read_text("utf-8")
        cited += [f"{path.name}: {m}" for m in re.findall(r"\S*bench/\S*", text)]
        if re.search(r"^\s*(from|import) remem_bench\b", text, re.M):
            importers.append(path.relative_to(SRC).as_posix())
    assert cited == []
    assert importers == ["cli/bench.py"]
