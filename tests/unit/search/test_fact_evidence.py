"""Whose value a hit states (search/fact_evidence.py): the fact layer's answerability inputs
over a real in-memory store whose facts the extractor derived, and the first-person reading."""

from __future__ import annotations

import dataclasses

from helpers import memory_store_with
from remem.config import Config
from remem.facts.extract import statements_of
from remem.facts.fold import fold
from remem.search.answerability import FEATURES, feature_rows
from remem.search.candidates import Candidate
from remem.search.fact_evidence import (
    ANOTHERS,
    STATED,
    STATED_NEAR,
    UNSAID,
    first_person,
    read_asked,
    speaker_whose,
    whose,
)
from unit.search.contexts import stage_context

# (speaker, line): Tom's and Ann's homes, Ann's pet; nobody's employer
LINES = (
    ("Tom", "I live in Shenzhen now"),  # r0
    ("Ann", "I live in Berlin"),  # r1
    ("Ann", "We got a dog last week, a beagle called Max"),  # r2
    ("Tom", "The weather is lovely today"),  # r3
)


def store_with_facts():
    store, rowids = memory_store_with(*(text for _s, text in LINES))
    records = [
        dataclasses.replace(store.get(f"r{i}"), speaker_id=s.lower(), speaker_label=s)
        for i, (s, _t) in enumerate(LINES)
    ]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    return store, rowids


IDS = [f"r{i}" for i in range(len(LINES))]


def test_the_store_holds_the_facts_the_tests_read():
    store, _ = store_with_facts()
    held = {(f.subject_name, f.attribute) for f in store.facts()}
    assert {("Tom", "lives_in"), ("Ann", "lives_in")} <= held


def test_a_hit_stating_the_asked_subjects_value_is_evidence_for():
    store, _ = store_with_facts()
    asked = read_asked(store, "Where does Tom live?", None, IDS)
    assert asked is not None and asked.attributes[0] == "lives_in"
    assert whose(asked, "r0", []) == STATED
    assert whose(asked, "r3", ["r0"]) == STATED_NEAR  # the line next to Tom's home


def test_another_subjects_value_of_the_asked_attribute_is_evidence_against():
    store, _ = store_with_facts()
    asked = read_asked(store, "Where does Tom live?", None, IDS)
    assert asked is not None
    assert whose(asked, "r1", []) == ANOTHERS  # Ann's home, not Tom's
    assert whose(asked, "r3", []) == UNSAID  # no fact of the attribute at all


def test_another_subjects_pet_is_not_the_asked_subjects():
    store, _ = store_with_facts()
    # Ann keeps a dog, Tom keeps none the store knows of
    pets = read_asked(store, "What pet does Tom have?", None, IDS)
    assert pets is not None and whose(pets, "r2", []) == ANOTHERS  # Ann's beagle
    assert read_asked(store, "What pet does Ann have?", None, IDS).stated["r2"] == {"speaker:ann"}


def test_a_question_asking_no_known_fact_reads_nothing():
    store, _ = store_with_facts()
    assert read_asked(store, "What colour is Tom's umbrella?", None, IDS) is None
    assert read_asked(store, "Where does Priya live?", None, IDS) is None  # no facts of hers
    bare, _ = memory_store_with("I live in Shenzhen now")  # a store without facts
    assert read_asked(bare, "Where does Tom live?", None, ["r0"]) is None


def test_a_first_person_line_states_its_speakers_value():
    assert first_person("My wifi password is hunter2") and first_person("我养了一只猫")
    assert not first_person("我们周六去爬山") and not first_person("Tom lives in Shanghai")
    assert speaker_whose("Lin Wei", "my wifi password is hunter2", {"Lin Wei"}) == 1.0
    assert speaker_whose("Tom", "my wifi password is hunter2", {"Lin Wei"}) == 0.0
    assert speaker_whose("Tom", "the password is hunter2", {"Lin Wei"}) is None
    assert speaker_whose("Tom", "my password is hunter2", set()) is None


def test_the_score_reads_the_fact_inputs_of_each_hit():
    store, rowids = store_with_facts()
    cands = []
    for i in range(len(LINES)):
        record = dataclasses.replace(
            store.get(f"r{i}"), speaker_id=LINES[i][0].lower(), speaker_label=LINES[i][0]
        )
        c = Candidate(rowid=rowids[i], record=record, score=1.0 - i / 10)
        c.set("relevance", 0.9)
        cands.append(c)
    ctx = stage_context(query="Where does Tom live?", now=100.0, k=10, config=Config(), store=store)
    ctx.understood.named = {"Tom": "tom"}
    rows = feature_rows(cands, ctx)
    assert {"fact_whose", "speaker_whose"} <= set(FEATURES)
    assert rows[rowids[0]]["fact_whose"] == STATED and rows[rowids[1]]["fact_whose"] == ANOTHERS
    assert rows[rowids[0]]["speaker_whose"] == 1.0 and rows[rowids[1]]["speaker_whose"] == 0.0


def test_a_things_facts_are_evidence_for_a_question_naming_the_thing():
    # issue 48: the families of things are read here like a person's
    lines = ("The office wifi password is Owl-42", "The staging server's IP is 10.0.3.15")
    store, _ = memory_store_with(*lines)
    records = [dataclasses.replace(store.get(f"r{i}"), speaker_label="Ann") for i in range(2)]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    asked = read_asked(store, "What's the office wifi password now?", None, ["r0", "r1"])
    assert asked is not None and asked.attributes[0] == "password"
    assert whose(asked, "r0", []) == STATED
    ip = read_asked(store, "What is the staging IP?", None, ["r0", "r1"])
    assert ip is not None and whose(ip, "r1", []) == STATED and whose(ip, "r0", []) == UNSAID
