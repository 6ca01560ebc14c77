"""The read pipeline end to end: explain traces, abstention, neighbour lift, time intent,
access reinforcement, and rerank against a local server speaking the real rerank protocols."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from helpers import LocalJSONServer
from remem import Config, Memory
from remem.errors import ValidationError

DAY = 86400.0
NOW = 1_800_000_000.0


def conversation(mem):
    turns = [
        ("t1", "s1", "Dana", "What did you end up doing on Saturday?", NOW - 10 * DAY),
        (
            "t2",
            "s1",
            "Eli",
            "We drove to the coast and watched the seals at Point Reyes.",
            NOW - 10 * DAY + 60,
        ),
        ("t3", "s1", "Dana", "hi Eli!", NOW - 10 * DAY + 120),
        ("t4", "s2", "Eli", "My sister got a job at the aquarium in Monterey.", NOW - 2 * DAY),
        ("t5", "s2", "Dana", "Congrats to her! Is she moving there?", NOW - 2 * DAY + 60),
        ("t6", "s3", "Dana", "I booked flights to Lisbon for the conference.", NOW - 40 * DAY),
    ]
    mem.ingest_many(
        [
            {
                "id": i,
                "session": s,
                "speaker": sp,
                "speaker_id": sp.lower(),
                "text": t,
                "timestamp": ts,
                "role": "user",
            }
            for i, s, sp, t, ts in turns
        ]
    )


@pytest.fixture
def convo(memory):
    conversation(memory)
    return memory


def test_explain_trace_lists_every_stage_that_moved_a_score(convo):
    result = convo.search("What did Eli do on Saturday?", k=3, now=NOW)
    assert result.hits[0].record.id in {"t1", "t2"}
    names = [s for s, _ in result.hits[0].explain.stages]
    assert names[0] == "fusion (weighted)"
    assert all(isinstance(v, float) for _, v in result.hits[0].explain.stages)
    data = result.to_dict(explain=True)
    json.dumps(data)
    assert "dropped" in data


def test_neighbour_lift_brings_the_answer_after_the_question(convo):
    # The question turn (t1) matches the words; the answer (t2) sits right after it.
    on = [h.record.id for h in convo.search("What did you end up doing on Saturday?", k=3, now=NOW)]
    assert "t2" in on
    t2 = next(
        h
        for h in convo.search("What did you end up doing on Saturday?", k=5, now=NOW)
        if h.record.id == "t2"
    )
    assert any(name == "neighbour_lift" for name, _ in t2.explain.stages)


def test_a_question_naming_a_speaker_weighs_the_others_down(convo):
    # names come from the store's speaker labels, through the search's own name index
    result = convo.search("What did Eli see at the coast?", k=6, now=NOW)
    stages = {h.record.id: [name for name, _ in h.explain.stages] for h in result}
    by_eli = [i for i in stages if i in {"t2", "t4"}]
    assert by_eli and all("named_speaker" not in stages[i] for i in by_eli)
    assert any("named_speaker" in names for i, names in stages.items() if i not in by_eli)


def test_a_question_about_the_asker_weighs_the_assistant_down(memory):
    memory.ingest_many(
        [
            {"id": "u", "text": "I started a BodyPump class on Mondays.", "role": "user"},
            {"id": "a", "text": "Here are playlists for your BodyPump class.", "role": "assistant"},
        ]
    )
    mine = {h.record.id: h for h in memory.search("Which classes do I take?", k=2, now=NOW)}
    theirs = {h.record.id: h for h in memory.search("Which classes did you list?", k=2, now=NOW)}
    assert "self_reference" in [name for name, _ in mine["a"].explain.stages]
    assert "self_reference" not in [name for name, _ in mine["u"].explain.stages]
    assert all("self_reference" not in [n for n, _ in h.explain.stages] for h in theirs.values())


def test_noise_is_dropped_and_reported(convo):
    result = convo.search("hi Eli, what did you do on Saturday?", k=5, now=NOW)
    assert "t3" not in [h.record.id for h in result]
    assert any(d["id"] == "t3" and d["stage"] == "noise" for d in result.dropped)


def test_a_query_that_is_itself_noise_finds_nothing_and_says_why(convo):
    result = convo.search("hi Eli", k=5, now=NOW)
    assert result.hits == [] and result.dropped == []
    assert result.notes[0].startswith("noise gate:")


def test_abstention_says_which_gate_stopped_each_candidate(db_path, e5):
    config = Config.load(
        env={},
        overrides={"indexing.mode": "sync", "search.min_score": 0.99, "search.min_semantic": 0.95},
    )
    with Memory(db_path, config, embedder=e5) as mem:
        conversation(mem)
        result = mem.search("quantum chromodynamics lecture notes", k=3, now=NOW)
        assert result.hits == []
        stages = {d["stage"] for d in result.dropped}
        assert stages <= {"min_semantic", "min_score", "noise", "relevance"} and stages
        assert {d["id"] for d in result.dropped} >= {"t1", "t2", "t4", "t5", "t6"}


def test_time_intent_prefers_the_named_window(convo):
    result = convo.search("what happened two days ago", k=6, now=NOW)
    assert any("time intent" in n for n in result.notes)
    # the plain ranking to compare with: no time intent (and no relevance floor)
    plain = convo.search(
        "what happened two days ago", k=6, now=NOW, disable=("time_intent", "relevance")
    )

    def rank(res, rid):
        return [h.record.id for h in res].index(rid)

    for rid in ("t4", "t5"):  # both records from two days ago move up
        assert rank(result, rid) < rank(plain, rid)
        hit = result.hits[rank(result, rid)]
        assert [name for name, _ in hit.explain.stages][-2:] == ["time_intent", "relevance"]
    assert {h.record.id for h in result.hits[:3]} >= {"t4", "t5"}
    # (a 40-day-old booking is no answer to "last week" by the latent floor: not what is tested)
    filtered = convo.search("flights last week", k=5, now=NOW, disable=("time_intent", "relevance"))
    assert "t6" in [h.record.id for h in filtered]


def test_time_intent_filter_mode(db_path, e5):
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "time_intent.mode": "filter"})
    with Memory(db_path, config, embedder=e5) as mem:
        conversation(mem)
        ids = [
            h.record.id
            for h in mem.search("what did Eli say yesterday or 2 days ago", k=5, now=NOW)
        ]
        assert ids and set(ids) <= {"t4", "t5"}  # only the window, and not nothing


def test_every_stage_can_be_switched_off(convo):
    from remem.search.stages import STAGE_NAMES

    result = convo.search("seals", k=3, now=NOW, disable=tuple(STAGE_NAMES))
    assert [s for s, _ in result.hits[0].explain.stages] == ["fusion (weighted)"]
    with pytest.raises(ValidationError, match="names from"):
        convo.search("seals", disable=("magic",))


def test_explicit_recalls_reinforce_automatic_ones_do_not(db_path, e5):
    config = Config.load(
        env={}, overrides={"indexing.mode": "sync", "scoring.access_debounce_s": 3600}
    )
    with Memory(db_path, config, embedder=e5) as mem:
        conversation(mem)
        mem.search("seals at Point Reyes", k=1, now=NOW)  # automatic
        mem.search("seals at Point Reyes", k=1, now=NOW, explicit=True)
        mem.search("seals at Point Reyes", k=1, now=NOW, explicit=True)
        assert mem.get("t2").access_count == 0  # debounced: nothing written yet
        assert mem.access_counts.pending() == 1
    with Memory(db_path, config, embedder=e5) as mem:  # close() flushed
        rec = mem.get("t2")
        assert rec.access_count == 1 and rec.last_access == NOW  # one window: counted once


def test_same_user_boost(convo):
    # relevance rescales every score by the best one, and a question moved below its reply
    # takes that reply's score: off, to compare raw scores
    off = {"disable": ("neighbour_lift", "reply_after_question", "diversity", "relevance")}
    plain = {h.record.id: h for h in convo.search("family news", k=6, now=NOW, **off)}
    boosted = {
        h.record.id: h
        for h in convo.search("family news", k=6, now=NOW, asker="eli", same_user_boost=True, **off)
    }
    for rid in ("t2", "t4"):  # Eli's own lines: doubled, and the trace says so
        assert boosted[rid].score == pytest.approx(2 * plain[rid].score)
        assert boosted[rid].explain.stages[-1][0] == "same_user"
    for rid in ("t1", "t5", "t6"):  # everyone else's: untouched
        assert boosted[rid].score == pytest.approx(plain[rid].score)
    # asker given but the boost not switched on (not the `user` mode): nothing changes
    quiet = {
        h.record.id: h.score for h in convo.search("family news", k=6, now=NOW, asker="eli", **off)
    }
    assert quiet == {rid: h.score for rid, h in plain.items()}


# ----------------------------------------------------------------- rerank over HTTP
class FakeRerank(LocalJSONServer):
    """Speaks Jina/SiliconFlow/Cohere (`results`) and Voyage (`data`) rerank protocols and
    scores by how many query words a document contains."""

    def __init__(self) -> None:
        self.fail = False
        super().__init__()

    def respond(self, path, body, headers):
        if self.fail:
            return 503, b'{"detail": "overloaded"}', {}
        words = set(body["query"].lower().split())
        scored = [
            {"index": i, "relevance_score": len(words & set(d.lower().split())) / 10}
            for i, d in enumerate(body["documents"])
        ]
        scored.sort(key=lambda r: -r["relevance_score"])
        key = "data" if "top_k" in body else "results"
        return 200, json.dumps({key: scored, "model": body["model"]}).encode(), {}


@pytest.fixture
def rerank_server():
    s = FakeRerank()
    yield s
    s.close()


@pytest.mark.parametrize("provider", ["jina", "cohere", "siliconflow", "voyage"])
def test_http_rerank_protocols(rerank_server, db_path, e5, provider):
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "rerank.provider": provider,
            "rerank.base_url": rerank_server.url,
            "rerank.api_key": "secret",
            "rerank.model": "rr-1",
        },
    )
    with Memory(db_path, config, embedder=e5) as mem:
        conversation(mem)
        result = mem.search("sister job aquarium Monterey", k=3, now=NOW)
        assert result.hits[0].record.id == "t4"
        req = rerank_server.requests[-1]
        assert req["path"] == "/v1/rerank" and req["auth"] == "Bearer secret"
        assert req["body"]["model"] == "rr-1"
        assert ("top_k" if provider == "voyage" else "top_n") in req["body"]
        stage = [s for s, _ in result.hits[0].explain.stages if s.startswith("rerank")]
        assert stage == [f"rerank ({provider}:rr-1)"]
        assert not result.warnings


def test_rerank_failure_falls_back_to_cosine_and_says_so(rerank_server, db_path, e5):
    rerank_server.fail = True
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "rerank.provider": "jina",
            "rerank.base_url": rerank_server.url,
        },
    )
    with Memory(db_path, config, embedder=e5) as mem:
        conversation(mem)
        result = mem.search("sister job aquarium", k=3, now=NOW)
        assert result.hits  # the search itself never fails
        assert any("cosine" in w and "503" in w for w in result.warnings)
        names = [s for s, _ in result.hits[0].explain.stages]
        assert "rerank (cosine fallback)" in names
        assert any("failed" in n for n in result.hits[0].explain.notes)


def test_local_reranker_needs_its_path_and_library(tmp_path, db_path):
    from remem.errors import ConfigError
    from remem.search.rerank import make_reranker

    with pytest.raises(ConfigError, match="local_path"):
        make_reranker(
            Config.load(
                env={}, overrides={"indexing.mode": "sync", "rerank.provider": "local"}
            ).rerank
        )
    with pytest.raises(ConfigError, match="not a directory"):
        make_reranker(
            Config.load(
                env={},
                overrides={
                    "indexing.mode": "sync",
                    "rerank.provider": "local",
                    "rerank.local_path": str(tmp_path / "none"),
                },
            ).rerank
        )


def test_a_question_in_the_base_form_finds_the_line_that_says_the_past(convo):
    # "did anyone buy" and "I bought": Snowball leaves them apart, the word forms join them
    convo.ingest(
        {"id": "t7", "session": "s4", "speaker": "Eli", "text": "I bought a smoker last week."}
    )
    lexical = ("lexical",)
    found = convo.search("Did anyone buy anything?", k=3, channels=lexical)
    assert [h.record.id for h in found.hits] == ["t7"]
    both = convo.search("What did Eli buy?", k=3)  # and with vectors and relevance
    assert [h.record.id for h in both.hits][:1] == ["t7"]
    convo.config.text.word_forms = False
    assert convo.search("Did anyone buy anything?", k=3, channels=lexical).hits == []


def test_a_named_day_brings_its_own_lines_into_the_candidates(db_path, e5):
    """The whole store's top-N holds the lines that say "plant"; the answer, said that day,
    says none of it: the day's own best candidates bring it in."""
    day = datetime(2026, 11, 3, 10, 0, tzinfo=UTC).timestamp()
    others = [
        "I want to plant more herbs this spring.",
        "We should plant a cherry tree by the fence.",
        "The plant shop on Main Street has a sale on.",
        "Did you plant the basil yet?",
        "My office plant is dying, any tips?",
        "Which plant grows well in the shade?",
        "I'll plant the tulip bulbs before the frost.",
        "Plant the peas early, they like the cold.",
        "The new plant nursery opens on Saturday.",
        "Should I plant lettuce or spinach next?",
    ]
    turns = [(f"o{i}", text, day - (i + 5) * DAY) for i, text in enumerate(others)]
    turns.append(("answer", "Put the tomato seedlings in the ground this morning.", day))
    overrides = {"indexing.mode": "sync", "search.candidate_pool": 2, "search.candidate_factor": 1}
    for setting, found in ((0, False), (10, True)):
        config = Config.load(env={}, overrides={**overrides, "time_intent.candidates": setting})
        with Memory(db_path, config, embedder=e5) as mem:
            if setting == 0:
                mem.ingest_many(
                    [
                        {
                            "id": i,
                            "session": "garden",
                            "speaker": "Dana",
                            "text": t,
                            "timestamp": ts,
                        }
                        for i, t, ts in turns
                    ]
                )
            result = mem.search("What did Dana plant on November 3, 2026?", k=2, now=NOW)
            ids = [h.record.id for h in result.hits]
            assert ("answer" in ids) is found, (setting, ids)
            assert "time intent: 'november 3, 2026'" in result.notes
    hit = result.hits[ids.index("answer")]
    assert hit.explain.vector_score is not None  # found by its cosine, among the day's lines
    assert "time_intent" in [name for name, _ in hit.explain.stages]


def test_a_question_put_to_the_other_person_goes_below_its_reply(db_path, e5):
    turns = [
        ("q", "Jon", "Love the tattoo, did you just get it?"),
        ("a", "Gina", "Thanks! Got it a few years ago, it stands for freedom and dancing."),
        ("x", "Jon", "That's a great reason. My brother runs a small bakery downtown."),
        ("y", "Gina", "Nice! I should visit it some weekend with my sister."),
    ]
    for on, first in ((False, "q"), (True, "a")):
        config = Config.load(
            env={}, overrides={"indexing.mode": "sync", "scoring.reply_after_question": on}
        )
        with Memory(db_path, config, embedder=e5) as mem:
            if not on:
                mem.ingest_many(
                    [
                        {"id": i, "session": "s", "speaker": sp, "text": t, "timestamp": NOW + n}
                        for n, (i, sp, t) in enumerate(turns)
                    ]
                )
            hits = mem.search("What does the tattoo mean?", k=3, now=NOW + 10).hits
            assert [h.record.id for h in hits][:2] == [first, "a" if first == "q" else "q"]
    stages = [name for name, _ in hits[1].explain.stages]
    assert "reply_after_question" in stages
