"""docs/benchmarks.md's real-path latency (issue 47): pre-turn recall at 100k against its
floor, read from the result files ``pre-turn-recall-100k.json`` (now) and
``pre-turn-recall-100k-before.json`` (before the whole-store tail was profiled), written by
``benchmarks/scripts/pre_turn_recall.py``."""

from __future__ import annotations

from typing import Any

SOURCES = {
    "pre_turn": "pre-turn-recall-100k.json",
    "pre_turn_before": "pre-turn-recall-100k-before.json",
}
STATES = (("terms", "latent terms stored (ingest, copy)"), ("no-terms", "none stored (import)"))
MODES = ("whole-store", "own-session")


def _row(label: str, run: dict[str, Any], state: str, note: str) -> str:
    cells = []
    for mode in MODES:
        m = run[state][mode]
        cells.append(
            f"{m['p95_over_floor_p95']:.2f}x ({m['search_p95_ms']:,.0f} / "
            f"{m['floor_p95_ms']:,.0f} ms; median {m['ratio_p50']:.2f}x)"
        )
    return f"| {label} | {note} | " + " | ".join(cells) + " |"


def section(runs: dict[str, Any]) -> list[str]:
    """The section's lines: one row per store state, before and now."""
    now, before = runs["pre_turn"], runs["pre_turn_before"]
    rows = [
        "## Pre-turn recall against its floor (issue 47)",
        "",
        f"`benchmarks/scripts/pre_turn_recall.py`: {now['n']:,} records of the bundled model, "
        f"{now['queries']} new questions; search p95 over the floor's p95 (question embedding, "
        "exact dense search, keyword query; measured question by question in the same run), the "
        "two p95s, and the median of the per-question ratios. Target: within 3x. A loaded "
        "machine inflates the floor's p95 too, so compare within a row's run.",
        "",
        "| run | store | whole store | own session |",
        "|---|---|---|---|",
    ]
    for label, run in (("before", before), ("now", now)):
        for state, note in STATES:
            rows.append(_row(label, run, state, note))
    rows += ["", f"Before: {before['note']}. Now: {now['note']}."]
    return rows
