"""benchmarks/scripts/shared_store.py's haystacks and its reuse of the suite's vectors: each conversation
gets N others' sessions (the same draw every run, never a twin sharing its turns), and a shared
store built from per-conversation stores gets their vectors and latent terms, not the model's
work again."""

from __future__ import annotations

import numpy as np
from bench_helpers import load_bench_script

from remem.store import SQLiteStore
from remem.store.queries import VectorWrite

ss = load_bench_script("shared_store")


def _conv(name: str, texts: list[str]) -> tuple[str, list[dict], list[dict]]:
    turns = [
        {"id": f"{name}:{i}", "session": f"{name}:s", "text": text, "timestamp": 100 + i}
        for i, text in enumerate(texts)
    ]
    return name, turns, []


def test_haystacks_draw_the_same_others_and_never_a_twin():
    shared = "a turn long enough to count as the same history in both of them"
    convs = [
        _conv("a", [shared, "only a"]),
        _conv("a2", [shared, "a's twin"]),
        *[
            _conv(f"c{i}", [f"conversation {i}'s own long enough line of chat text"])
            for i in range(6)
        ],
    ]
    hay = ss.haystacks(convs, 3)
    assert hay == ss.haystacks(convs, 3)  # seeded by the conversation: every run draws alike
    assert all(len(sessions) == 3 for sessions in hay.values())
    assert "a2:s" not in hay["a"] and "a:s" not in hay["a2"]
    assert all(f"{conv}:s" not in sessions for conv, sessions in hay.items())
    assert len(ss.haystacks(convs, 50)["c0"]) == 7  # at most every other conversation


def test_vectors_and_latent_terms_come_from_the_conversations_stores(tmp_path):
    source = SQLiteStore(tmp_path / "conv-0.db")
    shared = SQLiteStore(tmp_path / "shared.db")
    try:
        row = {"id": "x:1", "kind": "message", "text": "hello", "scope": "global"}
        row |= {"content_hash": "h1", "created_at": 1.0, "importance": 0.5}
        shared.insert_records([(dict(row, id="other"), "")])  # rowids differ between the two
        (old,) = source.insert_records([(row, "hello")])
        (new,) = shared.insert_records([(row, "hello")])
        assert old is not None and new is not None and old != new
        vector = np.arange(4, dtype=np.float32)
        model = "local:multilingual-e5-small"
        source.put_vectors(VectorWrite(model, "local", "multilingual-e5-small", [(old, vector)]))
        terms = f"{model}/latent-top128"
        source.put_latent_terms(terms, [(old, "h1", b"packed")])
        copied = ss.reuse_vectors(shared, [tmp_path / "conv-0.db", tmp_path / "conv-9.db"])
        assert copied == 1
        (stored,) = shared.vectors_of([new])[new]
        assert stored[0] == model and np.frombuffer(stored[3], np.float32).tolist() == [0, 1, 2, 3]
        assert shared.latent_terms_of(terms, [new]) == {new: b"packed"}
    finally:
        source.close()
        shared.close()
