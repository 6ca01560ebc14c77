"""Access reinforcement end to end: what the agent keeps recalling ranks higher, once per window."""

from __future__ import annotations

from helpers import HashEmbedder
from remem import Config, Memory

T = 1_800_000_000.0


def ranked(mem: Memory) -> list[str]:
    return [
        h.record.id for h in mem.search("harbour ferry", k=2, now=T + 10, disable=("diversity",))
    ]


def build(db_path, **overrides) -> Memory:
    config = Config.load(
        env={}, overrides={"indexing.mode": "sync", "scoring.access_debounce_s": 0, **overrides}
    )
    mem = Memory(db_path, config, embedder=HashEmbedder())
    for rid in ("m1", "m2"):  # the same words: equally relevant, m2 a little newer
        mem.add(
            "the harbour ferry leaves at nine",
            id=rid,
            kind="memory",
            scope="agent:bot",
            category="fact",
            timestamp=T + (rid == "m2"),
            dedup=False,  # two equal memories on purpose: only access may separate them
        )
    return mem


def test_recalled_memories_rank_higher_with_access_boost_and_count_once_per_window(db_path):
    with build(db_path, **{"scoring.access_boost": 0.5}) as mem:
        before = ranked(mem)
        underdog = before[1]
        for minute in range(3):  # one conversation: three recalls, one use
            mem.search(
                "harbour ferry",
                k=1,
                now=T + 60 * minute,
                explicit=True,
                filters={"ids": [underdog]},
            )
        assert mem.get(underdog).access_count == 1
        after = ranked(mem)
        assert after[0] == underdog and after != before
        hit = mem.search("harbour ferry", k=1, now=T + 10).hits[0]
        assert "access" in [stage for stage, _ in hit.explain.stages]
        mem.search("harbour ferry", k=1, now=T + 3600, explicit=True, filters={"ids": [underdog]})
        assert mem.get(underdog).access_count == 2  # a new window


def test_without_access_boost_recalls_do_not_change_the_ranking(db_path):
    with build(db_path) as mem:
        before = ranked(mem)
        mem.search("harbour ferry", k=1, now=T, explicit=True, filters={"ids": [before[1]]})
        assert mem.get(before[1]).access_count == 1 and ranked(mem) == before
