"""A long history imported with ``fast_first`` (`remem import --fast`), with the real bundled
models: every turn is searchable by meaning through the fast model by the import's end, the
default model's vectors follow newest first (`remem embed`), and `remem stats` reports the
backlog's progress and the time left, also after an interrupted run."""

from __future__ import annotations

import json
import subprocess

import pytest

from cli_inproc import remem as run_remem
from remem import Config, Memory
from remem.cli.ops import backlog_line
from remem.embed.fast_model import FAST_MODEL_ID
from remem.errors import ValidationError
from remem.store.queries import Backlog
from remem.transfer import import_records

E5_ID = "local:multilingual-e5-small"
QUESTION = "Where are we sleeping in the Alps this weekend?"
TOPICS = [  # long turns (~400 characters), each about one thing
    "We booked the mountain hut for Saturday night, up above the glacier. The hut keeper "
    "said the bunk room sleeps twelve and blankets are provided, so we only carry sleeping "
    "bag liners. Dinner is served at seven, breakfast at six, and the path from the cable "
    "car takes about three hours. If the weather turns we can still sleep there and walk "
    "down on Sunday morning instead of crossing the pass.",
    "My daughter started violin lessons this autumn with a teacher from the conservatory. "
    "She practises twenty minutes every evening, mostly scales and a short minuet, and the "
    "teacher wants her to play in the winter recital. We rented a three-quarter size "
    "instrument for now, and the shop will take the rent off the price if we buy one later.",
    "The dentist appointment moved to Thursday morning because the clinic was closed on "
    "Tuesday for repairs. It is the check-up and the cleaning, and they will look at the "
    "molar that hurt with cold drinks last month. I have to take the morning off work and "
    "bring the insurance card, since the clinic changed its billing system this year.",
    "Our team won the basketball final yesterday after two overtimes. Marco hit the last "
    "three-pointer with four seconds left, and the coach said the defence in the second half "
    "was the best we played all season. We celebrate at the pizzeria on Friday, and the "
    "trophy stays at the gym until the club finds a shelf for it.",
]


def history(n: int) -> list[str]:
    """``n`` long turns, one topic each, in time order; only the oldest is about the
    mountain hut."""
    return [
        json.dumps(
            {
                "id": f"t{i}",
                "session": f"s{i // 2}",
                "speaker": "Ann",
                "timestamp": 1_700_000_000 + 3600 * i,
                "text": f"{TOPICS[0 if i == 0 else 1 + i % 3]} (turn {i})",
            }
        )
        for i in range(n)
    ]


def vectors(mem: Memory, model_id: str) -> set[str]:
    """The ids of the records holding a vector of ``model_id``."""
    everyone = {r.id for r in mem.store.iter_records()}
    return everyone - {r.id for r in mem.store.records_missing_vectors(Backlog(model_id, limit=-1))}


class Interrupted(Exception):
    """A `remem embed` stopped midway (Ctrl-C, a closed terminal)."""


# The lane reads USE's cosine on e5's scale through a fitted line that pulls it toward the
# mean (tests/integration/test_fast_lane.py): the floor is off to look at the ranking alone.
NO_FLOOR = {"search.relevance_floor": 0.0}


def test_a_fast_import_is_searchable_by_meaning_and_fills_newest_first(tmp_path):
    n = 8
    with Memory(tmp_path / "m.db", Config.load(env={}, overrides=NO_FLOOR)) as mem:
        report = import_records(mem, history(n), fast_first=True)
        assert report.added == n and report.fast_vectors == n
        assert vectors(mem, FAST_MODEL_ID) == {f"t{i}" for i in range(n)}
        assert not vectors(mem, E5_ID)
        assert mem.stats()["index_status"] == {"pending": n}
        assert mem.stats()["backlog"]["fast_vectors"] == n

        # The default model's pass, stopped in its second batch: the newest turns first.
        batches: list[int] = []

        def stop_in_the_second(done: int) -> None:
            batches.append(done)
            if len(batches) == 2:
                raise Interrupted

        with pytest.raises(Interrupted):
            mem.embed_pending(batch_size=2, progress=stop_in_the_second)
        assert vectors(mem, E5_ID) == {f"t{i}" for i in range(n - 4, n)}

        # Progress and the time left, from the rate the interrupted run wrote (read at once:
        # a rate older than RATE_STALE_S means nobody is embedding now).
        backlog = mem.stats()["backlog"]
        assert backlog["pending"] == n - 4 and backlog["fast_vectors"] == n - 4
        assert backlog["per_second"] > 0 and backlog["eta_s"] > 0
        line = backlog_line(backlog)
        assert line.startswith(f"{n - 4} pending ({n - 4} searchable through the fast model")
        assert "left)" in line

        # The oldest turn, not yet reached by e5, is found by meaning through the fast model.
        result = mem.search(QUESTION, k=4, channels=("vector",))
        assert result.hits and "mountain hut" in result.hits[0].record.text
        assert result.hits[0].record.id == "t0"
        assert any(note.startswith("fast lane: ") for note in result.notes)

        done = mem.embed_pending(batch_size=2)  # a rerun picks up the rest
        assert done["embedded"] == n - 4 and done["remaining"] == 0
        assert vectors(mem, E5_ID) == {f"t{i}" for i in range(n)}
        assert not vectors(mem, FAST_MODEL_ID)  # the stand-ins are gone with the backlog
        assert mem.stats()["index_status"] == {"indexed": n}
        after = mem.search(QUESTION, k=4, channels=("vector",))
        assert "mountain hut" in after.hits[0].record.text
        assert not any(note.startswith("fast lane") for note in after.notes)
        assert mem.wait_indexed(timeout=120)  # as without the fast import


def test_a_fast_import_without_the_lane_writes_nothing_and_says_why(tmp_path):
    off = Config.load(env={}, overrides={"indexing.fast_lane": False})
    with Memory(tmp_path / "m.db", off) as mem:
        with pytest.raises(ValidationError, match="fast_first") as caught:
            import_records(mem, history(2), fast_first=True)
        assert "indexing.fast_lane" in str(caught.value)
        assert mem.store.count() == 0


def remem(*args: str, db: str) -> subprocess.CompletedProcess[str]:
    return run_remem(args, env={"REMEM_DB": db})  # the console script, in this process


def test_the_cli_imports_fast_and_says_what_follows(tmp_path):
    source = tmp_path / "history.jsonl"
    source.write_text("\n".join(history(3)) + "\n")
    db = str(tmp_path / "m.db")
    imported = remem("import", "--fast", "--json", str(source), db=db)
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["fast_vectors"] == 3
    stats = remem("stats", "--json", db=db)
    assert stats.returncode == 0, stats.stderr
    backlog = json.loads(stats.stdout)["backlog"]
    assert backlog["pending"] == 3 and backlog["fast_vectors"] == 3


def test_a_fast_import_ends_with_the_fast_models_index_built(tmp_path):
    # As `remem import` builds the default model's snapshot at its end: else every later
    # process's first search reads all the fast vectors from the database into memory.
    from remem.index.snapshot import model_dir, read_info
    from remem.index.vector import DELTA_MAX

    n = DELTA_MAX  # the fewest vectors a snapshot is built for
    lines = [json.dumps({"text": f"short note {i} about item {i * 7}"}) for i in range(n)]
    config = Config.load(env={}, overrides={"facts.enabled": False})
    with Memory(tmp_path / "m.db", config) as mem:
        report = import_records(mem, lines, fast_first=True)
        assert report.fast_vectors == n
        assert mem.store.index_root is not None
        info = read_info(model_dir(mem.store.index_root, FAST_MODEL_ID))
        assert info is not None and info.count == n and not info.has_graph


def test_the_overview_shows_how_much_of_the_backlog_the_fast_model_covers(tmp_path):
    from fastapi.testclient import TestClient

    from remem.server.rest import create_app

    with Memory(tmp_path / "m.db", Config.load(env={})) as mem:
        import_records(mem, history(3), fast_first=True)
        client = TestClient(
            create_app(mem), client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8765"
        )
        for lang, label in (("en", "searchable through the fast model"), ("zh", "快速模型")):
            page = client.get(f"/ui?lang={lang}")
            assert page.status_code == 200
            card = page.text.split('data-testid="backlog"', 1)[1].split("</section>", 1)[0]
            assert 'data-testid="backlog-vectors">3<' in card
            assert 'data-testid="backlog-fast">3<' in card and label in card
