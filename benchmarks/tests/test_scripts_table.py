"""The research stays beside the product and stays traceable (issue 43, item 4): every script in
benchmarks/scripts/ has its line in benchmarks/README.md's table, every result file that table
or a decision record cites exists, and every script a decision record names is still there.
A script that only produced a past figure is deleted, not left unlisted."""

from __future__ import annotations

import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
REPO = BENCH.parent
SCRIPTS = BENCH / "scripts"
RESULTS = BENCH / "results"
DECISIONS = REPO / "docs" / "decisions"

# A table row starts with the script's name in backticks: | `name.py` | kind | ...
ROW = re.compile(r"^\|\s*`(?P<script>[\w.-]+\.py)`\s*\|(?P<rest>.*)$")
KINDS = {"tool", "evidence", "library"}
# A cited result file: a backticked name ending in .json (a glob such as model-fusion-*.json
# stands for the files it names), optionally under benchmarks/results/.
JSON_CITE = re.compile(r"`(?:benchmarks/results/)?(?P<name>[\w.*-]+\.json)`")
SCRIPT_CITE = re.compile(r"benchmarks/scripts/(?P<name>[\w-]+\.py)")


def table_rows() -> dict[str, str]:
    """The README table's rows by script name (the rest of the row as written)."""
    text = (BENCH / "README.md").read_text(encoding="utf-8")
    rows: dict[str, str] = {}
    for line in text.splitlines():
        match = ROW.match(line)
        if match:
            assert match["script"] not in rows, f"{match['script']} has two rows in the table"
            rows[match["script"]] = match["rest"]
    return rows


def missing_results(text: str) -> list[str]:
    """The cited result files (or globs) that name no file in benchmarks/results/."""
    return sorted(
        {m["name"] for m in JSON_CITE.finditer(text) if not list(RESULTS.glob(m["name"]))}
    )


def test_every_script_has_a_line_in_the_table_and_every_line_a_script():
    scripts = {p.name for p in SCRIPTS.glob("*.py")}
    rows = table_rows()
    unlisted = sorted(scripts - set(rows))
    gone = sorted(set(rows) - scripts)
    assert not unlisted, (
        f"benchmarks/scripts/ holds {unlisted} but benchmarks/README.md's table does not list "
        "them: add a line (what it measures, its result files, the records citing it), or "
        "delete a script that only produced a past figure"
    )
    assert not gone, f"benchmarks/README.md's table lists {gone}, which are not in scripts/"


def test_every_row_says_the_kind_of_script():
    wrong = {
        script: rest.split("|")[0].strip()
        for script, rest in table_rows().items()
        if rest.split("|")[0].strip() not in KINDS
    }
    assert not wrong, f"rows whose kind is not one of {sorted(KINDS)}: {wrong}"


def test_every_result_file_the_table_names_exists():
    missing = {
        script: names for script, rest in table_rows().items() if (names := missing_results(rest))
    }
    assert not missing, (
        f"the scripts table names result files not in benchmarks/results/: {missing}"
    )


def test_every_result_file_and_script_a_decision_record_cites_exists():
    records = sorted(DECISIONS.glob("[0-9]*.md"))
    assert records, f"no decision records under {DECISIONS}"
    missing: dict[str, list[str]] = {}
    for record in records:
        text = record.read_text(encoding="utf-8")
        absent = missing_results(text) + sorted(
            {m["name"] for m in SCRIPT_CITE.finditer(text) if not (SCRIPTS / m["name"]).exists()}
        )
        if absent:
            missing[record.name] = absent
    assert not missing, (
        f"decision records cite files that are gone: {missing}; restore the file or cite the "
        "commit that had it"
    )
