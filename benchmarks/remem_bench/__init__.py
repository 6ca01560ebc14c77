"""remem-bench: the benchmark suite beside remem, not in it.

The suite runner behind `remem bench` (``benchmark``: one dataset; ``suite``: every dataset of
the development suite; ``cli``: their tables and progress), the datasets written for it
(``data/``), the research scripts behind remem's defaults (``scripts/``) and their results
(``results/``), and ``report``, which writes docs/benchmarks.md from those results. It uses
remem's public names only.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the benchmarks/ folder of a checkout
DATA_DIR = ROOT / "data"
RESULTS_DIR = ROOT / "results"
