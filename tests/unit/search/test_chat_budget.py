"""A chat's embedding budget: the chat's (search.chat_embed_tokens) for people the store
knows or a chat of roles, a question's (search.query_embed_tokens) for strangers' chats."""

from __future__ import annotations

import pytest

from helpers import HashEmbedder
from remem import Config, Memory

CAROLINE_SAID = [
    "I went to the LGBTQ support group yesterday and it was so powerful.",
    "Researching adoption agencies has been my big project this month.",
]
MEL_NOTE = "Melanie painted a sunrise over the lake last summer."


def chat(*speakers: str) -> str:
    lines = ["so what did I do yesterday?", "it was a good week, remind me", "and after that?"]
    return "\n".join(f"{s}: {line}" for s, line in zip(speakers, lines, strict=False))


@pytest.fixture
def memory(tmp_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    config.search.chat_embed_tokens = 128
    with Memory(tmp_path / "remem.db", config, embedder=HashEmbedder()) as mem:
        for i, text in enumerate(CAROLINE_SAID):
            mem.ingest({"text": text, "speaker": "Caroline", "timestamp": 1_700_000_000 + i})
        mem.ingest({"text": MEL_NOTE, "speaker": "memory", "timestamp": 1_700_000_100})
        yield mem


@pytest.mark.parametrize(
    "query",
    [
        chat("Caroline", "Assistant", "Caroline"),  # a speaker of the store, not in any text
        chat("Melanie", "Assistant", "Melanie"),  # a person its records name
        chat("Marcus", "Caroline", "Marcus"),  # one of the chat's people is known
        chat("User", "Assistant", "User"),  # roles only: the store owner's own chat
        chat("用户", "助手", "用户"),
    ],
)
def test_a_chat_with_someone_the_store_knows_gets_the_chat_budget(memory, query):
    assert memory.searcher.chat_budget(query) == 128


@pytest.mark.parametrize(
    "query",
    [chat("Marcus", "Assistant", "Marcus"), chat("Priya", "Marcus", "Priya"), chat("阿杰", "助手")],
)
def test_a_chat_of_strangers_is_embedded_as_a_question(memory, query):
    assert memory.searcher.chat_budget(query) == memory.config.search.query_embed_tokens == 32


def test_a_question_is_no_chat(memory):
    # not a chat: the budget is unused (text/budget.embedded_query), no store read decides it
    assert memory.searcher.chat_budget("Marcus: what did I do yesterday?") == 128
