"""`remem demo`: the first minute with remem, on the bundled sample conversation."""

from __future__ import annotations

import json
import tempfile
import time
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from remem.cli.common import JsonOption, emit_json, load_config, out, short, state

if TYPE_CHECKING:
    from remem import Memory

app = typer.Typer()

DEMO_QUERIES = [
    "Who has a food allergy?",
    "Where does Alice work now?",
    "小明什么时候有空？",
    "哪个山间小屋已经订好了？",
    "小屋一晚多少钱？",  # asked in Chinese, answered in English
]
DEMO_BLOCK_QUERY = "Where does Alice work now?"


@app.command()
def demo(
    db: Annotated[
        str | None,
        typer.Option("--db", help="file or postgresql:// URL (default: a fresh temporary file)"),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest the bundled sample conversation, recall in English and Chinese, show the block
    that would be injected into the prompt."""
    from remem import Memory
    from remem.config import is_postgres_url
    from remem.recall import render_block

    sample = files("remem") / "data" / "sample_conversation.jsonl"
    turns = [json.loads(line) for line in sample.read_text("utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="remem-demo-") as tmp:
        path = db or state.db or str(Path(tmp) / "demo.db")
        where = (
            {"store.url": path}
            if is_postgres_url(path)
            else {"store.path": path, "store.url": None}  # a file given wins over a server
        )
        with Memory(config=load_config(**where)) as mem:
            started = time.perf_counter()
            stored = mem.ingest_many(turns, on_conflict="skip", wait=True)
            took = time.perf_counter() - started
            report: dict[str, Any] = {"db": str(path), "ingested": len(stored), "recalls": []}
            if not as_json:
                sessions = len({t["session"] for t in turns})
                out.print(
                    f"Ingested {len(stored)} messages ({len(turns)} in the sample, {sessions} "
                    f"sessions, 3 speakers, English and Chinese) into {path} in {took:.1f}s\n",
                    markup=False,
                )
            report["recalls"] = [_recall(mem, query, as_json) for query in DEMO_QUERIES]
            hits = mem.search(DEMO_BLOCK_QUERY, k=3).hits
            block = render_block(hits, zone=mem.config.calendar.zone())
            report["injected_block"] = block
    if as_json:
        emit_json(report)
        return
    out.print(f"[bold]Injected into the prompt for:[/bold] {DEMO_BLOCK_QUERY}")
    out.print(block, markup=False, highlight=False)


def _recall(mem: Memory, query: str, as_json: bool) -> dict[str, Any]:
    """One recall, printed with each hit's explanation unless the output is JSON."""
    result = mem.search(query, k=3)
    if not as_json:
        out.print(f"[bold]recall:[/bold] {query}  ({result.timings_ms['total']:.0f} ms)")
        for hit in result.hits:
            r = hit.record
            out.print(f"  {hit.score:.4f}  [{r.speaker_label}] {short(r.text, 100)}", markup=False)
            out.print(f"          {hit.explain.one_line()}", markup=False, style="dim")
        out.print()
    return result.to_dict(explain=True)
