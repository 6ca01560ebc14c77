"""Auto-capture and auto-recall rules with a real SQLite file, and LLM extraction against a
local server that speaks the OpenAI chat-completions protocol."""

from __future__ import annotations

import json

import pytest

from helpers import HashEmbedder, LocalJSONServer, chat_completion
from remem import Config, Memory, Turn
from remem.access import ScopeError
from remem.errors import RememError

T = 1_800_000_000.0


def make(db_path, **overrides):
    config = Config.load(env={}, overrides={"indexing.mode": "sync", **overrides})
    return Memory(db_path, config, embedder=HashEmbedder())


def cap(mem, *texts, role="user", agent="bot", user="u1", session="s1", now=T):
    msgs = [
        {"id": f"m{i}", "role": role, "text": t, "speaker_id": user if role == "user" else None}
        for i, t in enumerate(texts)
    ]
    return mem.capture_after_turn(
        Turn(agent=agent, inputs=msgs, session=session, user_id=user, now=now)
    )


def test_at_most_three_per_turn_most_important_first(db_path):
    with make(db_path) as mem:
        out = cap(
            mem,
            "I like jazz. I live in Oslo. We decided to use Rust. Remember that my "
            "locker is 42. My dog is called Rex.",
        )
        assert len(out.stored) == 3
        assert out.stored[0].text == "my locker is 42." and out.stored[0].importance == 0.9
        assert any("max_per_turn" in r.reason for r in out.rejected)
        assert all(r.metadata["captured_by"] == "rules" for r in out.stored)


def test_injected_blocks_are_never_captured_again(db_path):
    with make(db_path) as mem:
        cap(mem, "I live in Oslo.")
        recall = mem.recall_memories(
            "where do I live, remember?", agent="bot", session="s1", user="u1"
        )  # u1's "I": told to u1 (issue 48)
        assert "Oslo" in recall.block
        again = cap(mem, recall.block + "\nThanks! What's the weather there?")
        assert again.stored == [] and again.duplicates == []


def test_assistant_words_are_stored_as_its_own(db_path):
    with make(db_path, **{"capture.include_assistant": True}) as mem:
        out = cap(mem, "I prefer to keep answers short.", role="assistant")
        (rec,) = out.stored
        assert rec.role == "assistant" and rec.metadata["said_by"] == "assistant"
        assert rec.speaker_id == "bot"  # never the user's id
        recall = mem.recall_memories(
            "How long should answers be, remember?", agent="bot", session="s1"
        )
        assert "said by the assistant" in recall.block


def test_dedup_exact_normalised_and_fail_open(db_path, monkeypatch, caplog):
    with make(db_path) as mem:
        first = cap(mem, "I live in Oslo.").stored[0]
        assert cap(mem, "I live in Oslo.").duplicates[0]["how"] == "exact"
        assert cap(mem, "i LIVE in oslo!!").duplicates[0]["existing_id"] == first.id
        assert cap(mem, "I live in Oslo!", user="u2").duplicates  # same scope: one memory

        lookup = mem.store.current_memories

        def broken(match):  # the duplicate lookup fails, supersession still works
            if match.content_hash is not None:
                raise RememError("store busy")
            return lookup(match)

        monkeypatch.setattr(mem.store, "current_memories", broken)
        out = cap(mem, "I like brown cheese.")
        assert len(out.stored) == 1 and any("duplicate check failed" in w for w in out.warnings)


def test_vector_dedup_threshold(db_path):
    with make(db_path, **{"capture.dedup_similarity": 0.9}) as mem:
        cap(mem, "I really like strong black coffee every morning")
        out = cap(mem, "I really like strong black coffee every single morning")
        assert out.stored == [] and out.duplicates[0]["how"].startswith("similar")


def test_supersession_is_per_scope_and_speaker_and_undo_restores(db_path):
    with make(db_path) as mem:
        paris = cap(mem, "I live in Paris.").stored[0]
        other = cap(mem, "I live in Rome.", user="u2").stored[0]  # another speaker
        berlin = cap(mem, "I moved to Berlin.").stored[0]
        assert mem.get(paris.id).valid_to == T and mem.get(other.id).valid_to is None
        assert berlin.metadata["supersedes"] == [paris.id]
        assert [r.id for r in mem.history(paris.id)] == [paris.id, berlin.id]
        mem.undo(paris.id)  # given the old version: restore it, close the newer
        assert mem.get(paris.id).valid_to is None
        assert mem.get(berlin.id).metadata["undone"] is True
        with pytest.raises(RememError):
            mem.undo(other.id)  # no update to undo


def test_a_question_never_replaces_a_fact(db_path):
    with make(db_path) as mem:
        lisbon = cap(mem, "I moved to Lisbon last month.").stored[0]
        for question in [
            "Any tips for where I live now?",
            "Where do I live now?",
            "我住在哪里？",
            "If I lived in Rome, I'd learn Italian.",
        ]:
            out = cap(mem, question, now=T + 60)
            assert out.stored == [] and out.superseded == [], question
        # the agent storing a question on purpose keeps it, but it replaces nothing
        tools = mem.tools("bot", session="s1", user="u1")
        stored = tools.call("memory_store", {"text": "Any tips for where I live now?"})
        assert stored["stored"] and stored["replaced"] == []
        assert mem.get(lisbon.id).valid_to is None
        # a statement about the same subject from the same speaker still does
        porto = cap(mem, "I moved to Porto.", now=T + 120)
        assert porto.superseded == [lisbon.id]


def test_an_assistant_refusal_is_neither_captured_nor_found(db_path):
    refusal = "I don't have any information about where you live. Could you tell me?"
    with make(db_path, **{"capture.include_assistant": True}) as mem:
        out = cap(mem, refusal, role="assistant")
        assert out.stored == [] and "refusal" in out.rejected[0].reason
        mem.ingest({"id": "r1", "session": "s1", "role": "assistant", "text": refusal})
        mem.ingest({"id": "r2", "session": "s1", "role": "user", "text": "I live in Lisbon"})
        result = mem.search("where do you think I live", k=5)
        assert [h.record.id for h in result.hits] == ["r2"]
        assert any(d["id"] == "r1" and d["stage"] == "noise" for d in result.dropped)


def test_supersession_is_all_or_nothing(db_path, monkeypatch):
    with make(db_path) as mem:
        paris = cap(mem, "I live in Paris.").stored[0]
        before = mem.stats()["records"]

        def broken(*_a, **_k):
            raise RuntimeError("disk full")

        monkeypatch.setattr(mem.store, "set_validity", broken)
        with pytest.raises(RuntimeError):
            cap(mem, "I moved to Berlin.")
        monkeypatch.undo()
        assert mem.stats()["records"] == before and mem.get(paris.id).valid_to is None


def test_cross_turn_dedup_by_turns_and_seconds(db_path):
    with make(db_path, **{"autorecall.dedup_turns": 2}) as mem:
        cap(mem, "I live in Oslo.")
        ask = lambda s="s1", now=T: mem.recall_memories(  # noqa: E731
            "where do I live, remember?", agent="bot", session=s, now=now, user="u1"
        )
        assert "Oslo" in ask().block
        assert ask().block == "" and ask().skipped_reason == "injected recently"
        assert "Oslo" in ask("s2").block  # another session is another conversation
        assert "Oslo" in ask().block  # three turns later
    with make(db_path.with_name("b.db"), **{"autorecall.dedup_seconds": 60}) as mem:
        cap(mem, "I live in Oslo.")
        assert (
            "Oslo"
            in mem.recall_memories(
                "where do I live, remember?", agent="bot", now=T, user="u1"
            ).block
        )
        assert (
            mem.recall_memories(
                "where do I live, remember?", agent="bot", now=T + 30, user="u1"
            ).block
            == ""
        )
        assert (
            "Oslo"
            in mem.recall_memories(
                "where do I live, remember?", agent="bot", now=T + 61, user="u1"
            ).block
        )


def test_only_explicit_recalls_count_as_accesses(db_path):
    with make(db_path, **{"scoring.access_debounce_s": 0}) as mem:
        rec = cap(mem, "I live in Oslo.").stored[0]
        mem.recall_memories("where do I live, remember?", agent="bot", session="s1", user="u1")
        mem.access_counts.flush()
        assert mem.get(rec.id).access_count == 0
        mem.tools("bot", session="s1", user="u1").call(
            "memory_recall", {"query": "where do I live"}
        )
        mem.access_counts.flush()
        assert mem.get(rec.id).access_count == 1


def test_capture_off_and_missing_agent(db_path):
    with make(db_path, **{"capture.enabled": False}) as mem:
        assert cap(mem, "I live in Oslo.").skipped_reason == "capture.enabled is off"
        with pytest.raises(ScopeError, match="no agent id"):
            cap(mem, "I live in Oslo.", agent="")


def test_session_summary_extractive(db_path):
    with make(db_path, **{"capture.session_summary": True}) as mem:
        lines = [
            "hi",
            "We decided to ship on Friday.",
            "ok",
            "My token is sk-abcdefghijklmnop1234",
            "I prefer release notes in Chinese.",
            "thanks",
        ]
        for i, t in enumerate(lines):
            mem.ingest(
                {"id": f"x{i}", "session": "s9", "role": "user", "text": t, "timestamp": T + i}
            )
        out = mem.session_reset("s9", agent="bot")
        text = out.record.text
        assert text.startswith("Summary of session s9")
        assert "ship on Friday" in text and "release notes" in text and "sk-" not in text
        assert out.record.metadata["kind"] == "session-summary"
        assert out.record.source_ids == [f"x{i}" for i in range(6)]
    with make(db_path.with_name("off.db")) as mem:
        assert mem.session_reset("s9", agent="bot") is None  # off by default


class FakeChat(LocalJSONServer):
    def __init__(self, content: str | None = None, status: int = 200) -> None:
        self.content, self.status = content, status
        super().__init__()

    def respond(self, path, body, headers):
        if self.status != 200:
            return self.status, b'{"error": {"message": "overloaded"}}', {}
        return 200, chat_completion(body["model"], self.content), {}


def test_llm_extraction_against_a_local_chat_server(db_path):
    server = FakeChat(
        json.dumps(
            {
                "memories": [
                    {
                        "text": "The user lives in Oslo",
                        "category": "fact",
                        "importance": 0.8,
                        "subject": "location",
                        "speaker": "user",
                    },
                    {"text": "The user's password is hunter2", "category": "fact", "importance": 1},
                    {"text": "用户喜欢喝茶", "category": "preference", "importance": 5},
                    {
                        "text": "Where does the user live now?",
                        "category": "fact",
                        "subject": "location",
                    },
                ]
            }
        )
    )
    try:
        with make(
            db_path,
            **{
                "capture.llm": True,
                "llm.base_url": server.url,
                "llm.model": "tiny",
                "llm.api_key": "k1",
            },
        ) as mem:
            out = cap(mem, "I've lived in Oslo since May, and I love tea. 我喜欢喝茶")
            assert out.extractor == "llm"
            assert sorted(r.text for r in out.stored) == ["The user lives in Oslo", "用户喜欢喝茶"]
            tea = next(r for r in out.stored if "茶" in r.text)
            assert tea.importance == 1.0 and tea.category == "preference"  # clamped
            assert any("secret" in r.reason for r in out.rejected)
            assert {"text": "Where does the user live now?", "reason": "a question (LLM)"} in [
                {"text": r.text, "reason": r.reason} for r in out.rejected
            ]
            request = server.requests[0]
            assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k1"
            assert request["body"]["response_format"] == {"type": "json_object"}
            assert "Oslo" in request["body"]["messages"][1]["content"]
    finally:
        server.close()


@pytest.mark.parametrize(("content", "status"), [("not json at all", 200), ("", 503)])
def test_llm_failure_falls_back_to_rules(db_path, content, status):
    server = FakeChat(content, status)
    try:
        with make(
            db_path, **{"capture.llm": True, "llm.base_url": server.url, "llm.model": "tiny"}
        ) as mem:
            out = cap(mem, "I live in Oslo.")
            assert out.extractor == "rules" and [r.text for r in out.stored] == ["I live in Oslo."]
            assert any("LLM extraction failed" in w for w in out.warnings)
    finally:
        server.close()


def test_abstractive_summary_with_an_llm(db_path):
    server = FakeChat("The team will ship on Friday.")
    try:
        with make(
            db_path,
            **{"capture.session_summary": True, "llm.base_url": server.url, "llm.model": "tiny"},
        ) as mem:
            mem.ingest({"id": "a", "session": "s", "role": "user", "text": "ship Friday?"})
            out = mem.session_reset("s", agent="bot")
            assert out.record.text.endswith("The team will ship on Friday.")
            assert out.record.metadata["summarised_by"] == "llm"
    finally:
        server.close()


def test_chinese_turns(db_path):
    with make(
        db_path,
        **{
            "autorecall.dedup_turns": 1,
            "capture.include_assistant": True,
            "capture.session_summary": True,
            "autorecall.min_margin": 0.05,
        },
    ) as mem:
        out = cap(
            mem, "我喜欢爵士乐。我住在奥斯陆。我们决定用Rust。记住，我的柜子号是42。我的狗叫旺财。"
        )
        assert len(out.stored) == 3 and out.stored[0].text == "我的柜子号是42。"
        assert out.stored[0].importance == 0.9
        said = cap(mem, "我建议你以后都用中文回复。", role="assistant").stored[0]
        assert said.role == "assistant" and said.metadata["said_by"] == "assistant"
        first = mem.recall_memories("我的柜子号是多少来着？", agent="bot", session="s1", user="u1")
        assert "42" in first.block and "不可信" not in first.block  # English wrapper by default
        again = mem.recall_memories("我的柜子号是多少来着？", agent="bot", session="s1", user="u1")
        assert again.block == ""
        for i, t in enumerate(["你好", "我们决定周五发布。", "好的", "我更喜欢中文的发布说明。"]):
            mem.ingest(
                {"id": f"z{i}", "session": "s9", "role": "user", "text": t, "timestamp": T + i}
            )
        summary = mem.session_reset("s9", agent="bot").record.text
        assert "周五发布" in summary and "中文的发布说明" in summary and "你好" not in summary
