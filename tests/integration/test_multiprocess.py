"""Several real processes read and write one database file at the same time."""

import subprocess
import sys
import textwrap

WRITER = textwrap.dedent(
    """
    import sys
    from remem import Config, Memory
    path, worker, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "embed.provider": "none"})
    with Memory(path, config) as mem:
        for i in range(n):
            mem.ingest({"id": f"w{worker}-{i}", "text": f"worker {worker} note {i} zebra",
                        "session": f"s{worker}"})
            if i % 10 == 0:
                mem.search("zebra note", k=5)
    """
)

READER = textwrap.dedent(
    """
    import sys
    from remem import Config, Memory
    path, rounds = sys.argv[1], int(sys.argv[2])
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "embed.provider": "none"})
    seen = 0
    with Memory(path, config) as mem:
        for _ in range(rounds):
            hits = mem.search("zebra", k=50)
            seen = max(seen, len(hits))
            assert all("zebra" in h.record.text for h in hits)
    print(seen)
    """
)


def test_concurrent_processes_lose_nothing(tmp_path):
    db = tmp_path / "shared.db"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(w), "60"], stderr=subprocess.PIPE, text=True
        )
        for w in range(3)
    ]
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(db), "200"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for p in writers:
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    _out, err = reader.communicate(timeout=180)
    assert reader.returncode == 0, err

    from remem import Config, Memory

    with Memory(
        db, Config.load(env={}, overrides={"indexing.mode": "sync", "embed.provider": "none"})
    ) as mem:
        assert mem.store.count() == 180
        ids = {r.id for r in mem.list(limit=None)}
        assert ids == {f"w{w}-{i}" for w in range(3) for i in range(60)}
        assert len(mem.search("zebra", k=200)) == 180
        assert mem.store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
