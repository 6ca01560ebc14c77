"""Authority: a decision the user chose to keep outranks chat lines that match the question
about as well; turned off, similarity alone decides."""

from __future__ import annotations

from remem import Config, Memory

NOW = 1_790_000_000.0


def _search(tmp_path, authority: float) -> list[str]:
    config = Config.load(
        env={}, overrides={"embed.provider": "none", "scoring.authority": authority}
    )
    with Memory(tmp_path / f"a{authority}.db", config) as mem:
        mem.ingest_many(
            [
                {
                    "id": "chat",
                    "session": "team",
                    "speaker": "Bob",
                    "text": "which database should the new project use? I'd say MongoDB",
                    "timestamp": NOW,
                }
            ]
        )
        mem.add("Decision: the new project uses PostgreSQL", category="decision", created_at=NOW)
        hits = mem.search("which database does the new project use?", k=2, now=NOW + 60).hits
        return [h.record.kind for h in hits]


def test_a_kept_decision_outranks_chat_that_matches_about_as_well(tmp_path):
    assert _search(tmp_path, 0.0) == ["message", "memory"]  # similarity alone: the chat line
    assert _search(tmp_path, 0.25) == ["memory", "message"]
