"""The default relevance floor and the neighbour cap with the real bundled model, on the
bundled sample conversation (the one `remem demo` shows): nothing relevant means nothing
returned and nothing injected, scores stay in [0, 1], and the demo's questions find their
answer first."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from remem import Config, Memory, Turn

SAMPLE = [
    json.loads(line)
    for line in (files("remem") / "data" / "sample_conversation.jsonl")
    .read_text("utf-8")
    .splitlines()
    if line.strip()
]
NOW = 1_790_000_000.0


@pytest.fixture(scope="module")
def demo(tmp_path_factory, e5):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path_factory.mktemp("demo") / "d.db", config, embedder=e5) as mem:
        mem.ingest_many(SAMPLE, wait=True)
        yield mem


@pytest.mark.parametrize(
    "query",
    ["😀", "What is the capital of Australia?", "我昨天晚上看了一场足球比赛，太精彩了"],
)
def test_nothing_relevant_returns_nothing_and_names_the_gate(demo, query):
    result = demo.search(query, k=5)
    assert result.hits == []
    assert any(n.startswith("relevance gate: nothing relevant") for n in result.notes)
    assert {d["stage"] for d in result.dropped} >= {"relevance"}


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("哪个山间小屋已经订好了？", "I booked Rifugio Firenze"),
        ("小屋一晚多少钱？", "The hut costs 65 euros"),
        ("Who has a food allergy?", "allergic to peanuts"),
        ("Where does Alice work now?", "new job at a robotics startup"),
    ],
)
def test_demo_questions_find_their_answer_first_with_scores_in_0_1(demo, query, answer):
    hits = demo.search(query, k=5).hits
    assert answer in hits[0].record.text, [h.record.text for h in hits]
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_neighbour_without_its_own_match_stays_below_the_hit_that_lifted_it(demo):
    hits = demo.search("哪个山间小屋已经订好了？", k=10).hits
    lifted = [h for h in hits if any(name == "neighbour_lift" for name, _ in h.explain.stages)]
    assert lifted
    rank = {h.record.id: i for i, h in enumerate(hits)}
    # the headlamp line follows a turn about microspikes: it says nothing about a hut
    headlamp = next(h for h in hits if "头灯" in h.record.text)
    assert rank[headlamp.record.id] > 0


@pytest.mark.parametrize("text", ["😀", "我昨天晚上看了一场足球比赛，太精彩了"])
def test_an_off_topic_turn_injects_nothing(demo, text):
    demo.ingest(
        {
            "id": f"turn-{len(text)}",
            "session": "group:hiking-club",
            "speaker": "小明",
            "text": text,
            "timestamp": NOW,
        }
    )
    out = demo.recall_for_turn(
        Turn(session="group:hiking-club", inputs=[f"turn-{len(text)}"], now=NOW + 1)
    )
    assert out.hits == []
    assert out.block == ""
