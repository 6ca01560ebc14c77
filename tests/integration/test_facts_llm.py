"""facts.llm: a chat model adds the facts the rules do not read, against a real local server
that speaks the OpenAI chat-completions protocol, with a real SQLite file. What it proposes is
checked: values the record does not contain, subjects it does not name and unknown attributes
are dropped; records that assert nothing are never sent; the rules keep their chains; a failed
endpoint leaves the rules' facts and pauses the asking."""

from __future__ import annotations

import json

import pytest

from helpers import HashEmbedder, LocalJSONServer, chat_completion
from remem import Config, Memory
from remem.config import ConfigError
from remem.facts import llm_reader
from remem.facts.extract import ExtractionContext
from remem.types import Record

T = 1_750_000_000.0  # 2025-06: facts are asked about now, after it


class ScriptedChat(LocalJSONServer):
    """Answers each message with the facts listed for a phrase it contains (else none)."""

    def __init__(self, script: dict[str, list[dict]], status: int = 200) -> None:
        self.script, self.status = script, status
        super().__init__()

    def respond(self, path, body, headers):
        if self.status != 200:
            return self.status, b'{"error": {"message": "overloaded"}}', {}
        asked = body["messages"][1]["content"]
        facts = next((f for phrase, f in self.script.items() if phrase in asked), [])
        return 200, chat_completion(body["model"], json.dumps({"facts": facts})), {}

    def asked(self) -> list[str]:
        return [r["body"]["messages"][1]["content"] for r in self.requests]


def open_memory(db_path, server: ScriptedChat | None) -> Memory:
    overrides: dict[str, object] = {"indexing.mode": "sync"}
    if server is not None:
        overrides |= {"facts.llm": True, "llm.base_url": server.url, "llm.model": "tiny"}
    return Memory(db_path, Config.load(env={}, overrides=overrides), embedder=HashEmbedder())


def say(mem: Memory, text: str, speaker: str = "Tom", at: float = T) -> str:
    return mem.ingest({"text": text, "speaker": speaker, "session": "g", "timestamp": at}).id


GLOBEX = "Tom finally got the job at Globex, he starts Monday."
WORKS_AT_GLOBEX = {"subject": "Tom", "attribute": "works_at", "value": "Globex"}


@pytest.fixture
def chat():
    server = ScriptedChat(
        {
            "Globex": [
                WORKS_AT_GLOBEX,
                # not written in the message: the model's guess, never the speaker's fact
                {"subject": "Tom", "attribute": "role", "value": "senior engineer"},
                # a family the facts do not have
                {"subject": "Tom", "attribute": "salary", "value": "Monday"},
                # a person the message does not name
                {"subject": "Priya", "attribute": "works_at", "value": "Globex"},
            ],
            "Oslo": [
                # the rules read this chain from the record: theirs, not the model's
                {"subject": "speaker", "attribute": "lives_in", "value": "Oslo"},
                {"subject": "speaker", "attribute": "favourite", "kind": "film", "value": "Heat"},
            ],
            "forgot": [{"subject": "speaker", "attribute": "lives_in", "value": "Lisbon"}],
        }
    )
    yield server
    server.close()


def check(proposal: dict, text: str):
    """What llm_reader.checked makes of a proposal about Tom's message ``text``."""
    record = Record(
        id="r1",
        text=text,
        scope="global",
        kind="message",
        speaker_id="tom",
        speaker_label="Tom",
        created_at=T,
    )
    return llm_reader.checked(proposal, record, ExtractionContext())


def test_the_rules_alone_do_not_read_what_the_model_adds(db_path):
    with open_memory(db_path, None) as mem:
        say(mem, GLOBEX, speaker="Mia")
        assert mem.facts("Tom", attribute="works_at") == []


def test_the_model_adds_only_what_the_record_says(db_path, chat):
    with open_memory(db_path, chat) as mem:
        source = say(mem, GLOBEX, speaker="Mia")
        [fact] = mem.facts("Tom")
        assert (fact.attribute, fact.value, fact.origin) == ("works_at", "Globex", "llm")
        assert fact.source_ids == (source,) or list(fact.source_ids) == [source]
        assert fact.confidence < 0.9  # below the rules'
        assert mem.facts("Priya") == []
        stats = mem.stats()["fact_llm"]
        assert stats["calls"] == 1 and stats["dropped"] == 3 and stats["errors"] == 0


def test_the_rules_keep_their_chains_and_the_model_adds_the_rest(db_path, chat):
    with open_memory(db_path, chat) as mem:
        say(mem, "I live in Oslo now and my favourite film is Heat.")
        by_attribute = {f.attribute: f for f in mem.facts("Tom")}
        assert by_attribute["lives_in"].value == "Oslo"
        assert by_attribute["lives_in"].origin == "rules"
        assert by_attribute["favourite.film"].value == "Heat"


def test_a_record_that_asserts_nothing_is_never_sent(db_path, chat):
    with open_memory(db_path, chat) as mem:
        say(mem, "I moved to Lisbon last month.", at=T - 86400)
        say(mem, "I forgot where I live, lol")
        say(mem, "Where does Tom live now?", speaker="Mia")
        assert not any("forgot" in a or "Where does" in a for a in chat.asked())
        [lives] = mem.facts("Tom", attribute="lives_in")
        assert lives.value == "Lisbon" and lives.origin == "rules"


def test_a_failing_endpoint_leaves_the_rules_facts_and_pauses(db_path):
    server = ScriptedChat({}, status=503)
    try:
        with open_memory(db_path, server) as mem:
            say(mem, "I live in Oslo now.")
            say(mem, "My sister Kate lives in Bergen.", at=T + 60)
            assert {f.value for f in mem.facts("Tom", attribute="lives_in")} == {"Oslo"}
            assert mem.facts("Kate", attribute="lives_in")[0].value == "Bergen"
            assert len(server.requests) == 1  # the second record was not sent: paused
            assert mem.stats()["fact_llm"]["errors"] == 1
    finally:
        server.close()


def test_facts_llm_without_an_endpoint_is_a_clear_error():
    with pytest.raises(ConfigError, match=r"facts\.llm.*llm\.base_url and llm\.model"):
        Config.load(env={}, overrides={"facts.llm": True})


@pytest.mark.parametrize(
    ("proposal", "kept"),
    [
        ({"subject": "speaker", "attribute": "pet", "value": "a cat"}, ("pet", "a cat")),
        ({"subject": "speaker", "attribute": "favourite", "value": "Heat"}, None),  # no kind
        (
            {"subject": "speaker", "attribute": "favourite", "kind": "Film", "value": "Heat"},
            ("favourite.film", "Heat"),
        ),
        ({"subject": "speaker", "attribute": "favourite", "kind": "f m", "value": "Heat"}, None),
        ({"subject": "speaker", "attribute": "lives_in", "value": None}, None),
        ({"subject": "speaker", "attribute": "pet", "value": 3}, None),
        ({"subject": "", "attribute": "pet", "value": "a cat"}, None),
    ],
)
def test_proposals_are_checked(proposal, kept):
    statement = check(proposal, "I have a cat and my favourite film is Heat.")
    if kept is None:
        assert statement is None
    else:
        assert statement is not None and (statement.attribute, statement.value) == kept
        assert statement.subject == "speaker:tom" and statement.origin == "llm"


def test_a_negation_of_a_one_value_fact_may_come_without_a_value():
    proposal = {"subject": "speaker", "attribute": "works_at", "value": None, "ended": True}
    statement = check(proposal, "I don't work at that place any more.")
    assert statement is not None and statement.polarity == "negate" and statement.value is None


def test_since_sets_when_the_fact_began():
    proposal = {
        "subject": "speaker",
        "attribute": "works_at",
        "value": "Globex",
        "since": "2025-01-05",
    }
    statement = check(proposal, "I work at Globex.")
    assert statement is not None and statement.valid_from < T
    proposal["since"] = "not a date"
    assert check(proposal, "I work at Globex.").valid_from == T
