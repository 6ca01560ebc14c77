"""Store conformance: facts (``FactStore``). Put, replace, delete and clear; every filter of
``facts``; ``facts_citing`` and ``fact_subjects``; what deleting a record does to the facts
citing it (deleted as a source, reopened as a closer) on every delete path; transactions;
validation naming the field. The in-memory store is the reference: the last test replays one
seeded history on it and on each SQL backend and compares every answer."""

from __future__ import annotations

import dataclasses
import random

import pytest
from conformance import T, fields, insert

from remem.errors import ValidationError
from remem.store.base import Store
from remem.store.memory import InMemoryStore
from remem.store.queries import FactQuery
from remem.types import Fact


def fact(n: int, **changes) -> Fact:
    base = Fact(
        id=f"f{n}",
        scope="user:ann",
        subject="speaker:ann",
        subject_name="Ann",
        attribute="lives_in",
        value=f"city {n}",
        said_at=T + n,
        valid_from=T + n,
        source_ids=(f"r{n}",),
    )
    return dataclasses.replace(base, **changes)


def ids(facts: list[Fact]) -> list[str]:
    return [f.id for f in facts]


# ---------------------------------------------------------------- put, replace, delete, clear
def test_a_fact_reads_back_with_every_field(store):
    full = fact(
        1,
        subject_name="Zoë 张伟",
        value="上海 🏙️ Straße",
        valid_to=T + 50,
        source_ids=("r9", "r1", "r5"),  # the order is kept, not sorted
        closed_by="r7",
        confidence=0.25,
        origin="llm",
    )
    assert store.put_facts([full]) == 1
    assert store.facts() == [full]
    got = store.facts()[0]
    assert isinstance(got.source_ids, tuple)
    assert (got.said_at, got.valid_from, got.valid_to) == (T + 1, T + 1, T + 50)
    assert store.stats()["facts"] == 1
    assert store.put_facts([]) == 0


def test_putting_a_fact_again_replaces_it_and_its_sources(store):
    store.put_facts([fact(1, source_ids=("r1", "r2"))])
    store.put_facts([fact(1, value="Shanghai", source_ids=("r3",), closed_by=None)])
    assert [(f.value, f.source_ids) for f in store.facts()] == [("Shanghai", ("r3",))]
    assert store.facts_citing(["r1", "r2"]) == []
    assert ids(store.facts_citing(["r3"])) == ["f1"]
    # given twice in one batch: the last one stands (and both count as written)
    assert store.put_facts([fact(2, value="first"), fact(2, value="last")]) == 2
    assert [f.value for f in store.facts(FactQuery(subject="speaker:ann"))] == ["Shanghai", "last"]
    assert store.stats()["facts"] == 2


def test_a_source_cited_twice_is_kept_as_given(store):
    store.put_facts([fact(1, source_ids=("r1", "r1", "r2"))])
    assert store.facts()[0].source_ids == ("r1", "r1", "r2")
    assert ids(store.facts_citing(["r1"])) == ["f1"]
    store.delete_facts(["f1"])
    assert store.facts_citing(["r1"]) == []


def test_delete_facts_counts_those_that_existed(store):
    store.put_facts([fact(1), fact(2), fact(3)])
    assert store.delete_facts(["f1", "f1", "nope", "f3"]) == 2
    assert ids(store.facts()) == ["f2"]
    assert store.delete_facts([]) == 0
    assert store.facts_citing(["r1", "r3"]) == []


def test_clear_facts_by_scope_and_origin(store):
    store.put_facts(
        [
            fact(1),
            fact(2, scope="user:bob", origin="manual"),
            fact(3, scope="group:g", origin="llm"),
            fact(4, origin="manual"),
        ]
    )
    assert store.clear_facts(scopes=[]) == 0
    assert store.clear_facts(scopes=["user:ann"], origin="manual") == 1
    assert ids(store.facts()) == ["f1", "f2", "f3"]
    assert store.clear_facts(origin="llm") == 1
    assert store.clear_facts(scopes=["user:ann", "user:nobody"]) == 1
    assert ids(store.facts()) == ["f2"]
    assert store.clear_facts() == 1
    assert store.facts() == [] and store.stats()["facts"] == 0
    assert store.facts_citing(["r1", "r2", "r3", "r4"]) == []


# ---------------------------------------------------------------- reads
def test_facts_filter_by_scope_subject_and_attribute(store):
    store.put_facts(
        [
            fact(1),
            fact(2, attribute="works_at", value="Globex"),
            fact(3, scope="user:bob", subject="speaker:bob", subject_name="Bob"),
            fact(4, scope="group:g", subject="name:tom", subject_name="Tom"),
        ]
    )
    assert ids(store.facts()) == ["f1", "f2", "f3", "f4"]
    assert ids(store.facts(FactQuery(scopes=["user:ann", "group:g"]))) == ["f1", "f2", "f4"]
    assert store.facts(FactQuery(scopes=[])) == []
    assert ids(store.facts(FactQuery(subject="speaker:ann"))) == ["f1", "f2"]
    assert ids(store.facts(FactQuery(subject="speaker:ann", attribute="works_at"))) == ["f2"]
    assert ids(store.facts(FactQuery(attribute="lives_in", scopes=["user:bob"]))) == ["f3"]
    assert store.facts(FactQuery(subject="name:nobody")) == []


def test_at_holds_from_valid_from_until_valid_to(store):
    store.put_facts([fact(1, valid_from=T + 10, valid_to=T + 20), fact(2, valid_from=T + 20)])
    assert store.facts(FactQuery(at=T + 9.999)) == []
    assert ids(store.facts(FactQuery(at=T + 10))) == ["f1"]  # from valid_from, inclusive
    assert ids(store.facts(FactQuery(at=T + 19.999))) == ["f1"]
    assert ids(store.facts(FactQuery(at=T + 20))) == ["f2"]  # until valid_to, exclusive
    assert ids(store.facts(FactQuery(at=T + 10**6))) == ["f2"]
    assert ids(store.facts(FactQuery(current=True))) == ["f2"]
    assert store.facts(FactQuery(at=T + 15, current=True)) == []


def test_facts_are_ordered_by_valid_from_said_at_then_id_by_code_point(store):
    # ids that sort differently by a locale's rules than by code point ("B" < "a" < "é")
    same = {"valid_from": T, "said_at": T}
    store.put_facts(
        [
            fact(1, id="é", **same),
            fact(2, id="a", **same),
            fact(3, id="B", **same),
            fact(4, id="early-said", valid_from=T, said_at=T - 5),
            fact(5, id="older", valid_from=T - 1, said_at=T + 9),
        ]
    )
    assert ids(store.facts()) == ["older", "early-said", "B", "a", "é"]


def test_limit(store):
    store.put_facts([fact(i) for i in range(5)])
    assert ids(store.facts(FactQuery(limit=2))) == ["f0", "f1"]
    assert store.facts(FactQuery(limit=0)) == []
    assert len(store.facts(FactQuery(limit=None))) == len(store.facts(FactQuery(limit=-1))) == 5
    assert ids(store.facts(FactQuery(current=True, subject="speaker:ann", limit=1))) == ["f0"]


def test_facts_citing_finds_sources_and_closers(store):
    store.put_facts(
        [
            fact(1, source_ids=("m1", "m2"), valid_to=T + 5, closed_by="m5"),
            fact(2, source_ids=("m3",), valid_from=T + 5),
            fact(3, source_ids=("m2",), valid_from=T + 9),
        ]
    )
    assert ids(store.facts_citing(["m2"])) == ["f1", "f3"]
    assert ids(store.facts_citing(["m5"])) == ["f1"]  # what closed it
    assert ids(store.facts_citing(["m5", "m1", "m3"])) == ["f1", "f2"]  # each once, in order
    assert store.facts_citing(["unknown"]) == [] and store.facts_citing([]) == []


def test_fact_subjects_count_and_name_by_the_newest_fact(store):
    store.put_facts(
        [
            fact(1, subject="name:tom", subject_name="tom", said_at=T + 1),
            fact(2, subject="name:tom", subject_name="Tom", said_at=T + 3),
            fact(3, subject="name:tom", subject_name="TOM", said_at=T + 2),
            fact(4, subject="speaker:ann", scope="user:ann"),
            fact(5, subject="speaker:ann", scope="user:ann"),
            fact(6, subject="name:bo", subject_name="Bo", scope="group:g"),
            # the same said_at: the greater id names the subject, on every backend
            fact(7, id="z", subject="name:cy", subject_name="Cy (z)", said_at=T, scope="group:g"),
            fact(8, id="y", subject="name:cy", subject_name="Cy (y)", said_at=T, scope="group:g"),
        ]
    )
    assert store.fact_subjects() == [
        ("name:tom", "Tom", 3),
        ("name:cy", "Cy (z)", 2),  # ties on count: by subject key
        ("speaker:ann", "Ann", 2),
        ("name:bo", "Bo", 1),
    ]
    assert store.fact_subjects(scopes=["group:g"]) == [
        ("name:cy", "Cy (z)", 2),
        ("name:bo", "Bo", 1),
    ]
    assert store.fact_subjects(scopes=[]) == []


# ---------------------------------------------------------------- record deletes
def _history(store: Store) -> None:
    """Tom lived in Shenzhen (said in r1, again in r2), r3 moved him to Shanghai; r4 says
    where Ann works; records r1..r4 exist in session s."""
    insert(store, *(fields(i, session="s") for i in range(1, 5)))
    store.put_facts(
        [
            fact(
                1,
                subject="name:tom",
                value="Shenzhen",
                source_ids=("r1", "r2"),
                valid_to=T + 3,
                closed_by="r3",
            ),
            fact(3, subject="name:tom", value="Shanghai", source_ids=("r3",)),
            fact(4, attribute="works_at", value="Globex", source_ids=("r4",)),
        ]
    )


def test_deleting_a_closer_reopens_what_it_closed_and_deletes_what_it_said(store):
    _history(store)
    assert store.delete(["r3"]) == 1
    (shenzhen, globex) = store.facts()
    assert (shenzhen.value, shenzhen.valid_to, shenzhen.closed_by) == ("Shenzhen", None, None)
    assert globex.value == "Globex"
    assert ids(store.facts(FactQuery(current=True, subject="name:tom"))) == ["f1"]


def test_deleting_any_source_deletes_the_fact(store):
    _history(store)
    store.delete(["r2"])  # the second of its sources, not the first
    assert ids(store.facts()) == ["f3", "f4"]
    assert store.facts_citing(["r1", "r2"]) == []


def test_a_fact_cited_and_closed_by_deleted_records_goes(store):
    _history(store)
    store.delete(["r3", "r1", "r404"])
    assert ids(store.facts()) == ["f4"]


def test_deleting_a_record_that_is_not_stored_still_forgets_facts_citing_it(store):
    store.put_facts([fact(1, source_ids=("gone",)), fact(2, valid_to=T + 5, closed_by="gone2")])
    assert store.delete(["gone", "gone2"]) == 0
    assert [(f.id, f.closed_by) for f in store.facts()] == [("f2", None)]


def test_delete_session_after_forgets_the_facts_of_the_deleted_turns(store):
    _history(store)
    assert store.delete_session_after("s", T + 2) == ["r3", "r4"]
    assert [(f.id, f.valid_to) for f in store.facts()] == [("f1", None)]


def test_deleting_every_record_deletes_every_derived_fact(store):
    _history(store)
    store.put_facts([fact(9, origin="manual", source_ids=())])  # a hand correction: no sources
    store.delete(store.ids_where(None))
    assert ids(store.facts()) == ["f9"]


# ---------------------------------------------------------------- transactions
class Boom(Exception):
    """The error a test raises in the middle of a transaction."""


def test_fact_writes_roll_back_with_their_transaction(store):
    _history(store)
    before, token = store.facts(), store.change_token()
    with pytest.raises(Boom), store.transaction():
        store.put_facts([fact(5, value="Lisbon"), fact(4, value="Initech")])
        store.delete(["r3"])
        store.delete_facts(["f1"])
        assert ids(store.facts()) == ["f4", "f5"]  # reads inside see the block's writes
        raise Boom("after the writes")
    assert store.facts() == before
    assert store.change_token() == token
    with store.transaction():
        store.put_facts([fact(5)])
        store.clear_facts(origin="rules", scopes=["group:none"])
    assert ids(store.facts()) == ["f1", "f3", "f4", "f5"]


def test_a_refused_batch_inside_a_transaction_leaves_the_rest(store):
    with store.transaction():
        store.put_facts([fact(1)])
        with pytest.raises(ValidationError):
            store.put_facts([fact(2), fact(3, value="")])
    assert ids(store.facts()) == ["f1"]


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"id": ""}, "fact.id"),
        ({"scope": None}, "fact.scope"),
        ({"subject": ""}, "fact.subject"),
        ({"subject_name": None}, "fact.subject_name"),
        ({"attribute": 3}, "fact.attribute"),
        ({"value": ""}, "fact.value"),
        ({"value": "nul \x00 inside"}, "fact.value"),
        ({"subject_name": "lone \ud800"}, "fact.subject_name"),
        ({"said_at": float("nan")}, "fact.said_at"),
        ({"valid_from": "yesterday"}, "fact.valid_from"),
        ({"valid_to": float("inf")}, "fact.valid_to"),
        ({"valid_to": T}, "fact.valid_to"),  # before valid_from (T + 2)
        ({"source_ids": "r1"}, "fact.source_ids"),
        ({"source_ids": ("r1", "")}, "fact.source_ids"),
        ({"closed_by": ""}, "fact.closed_by"),
        ({"confidence": 1.5}, "fact.confidence"),
        ({"confidence": float("nan")}, "fact.confidence"),
        ({"origin": "guess"}, "fact.origin"),
    ],
)
def test_a_bad_fact_is_refused_naming_the_field_and_nothing_is_written(store, changes, field):
    token = store.change_token()
    with pytest.raises(ValidationError) as caught:
        store.put_facts([fact(1), fact(2, **changes)])
    assert caught.value.field == field
    assert store.facts() == [] and store.change_token() == token


# ---------------------------------------------------------------- size
def test_a_large_batch(store):
    n = 2_400  # beyond SQLite's bound-list chunk and a single statement's variables
    batch = [
        fact(i, subject=f"name:p{i % 7}", source_ids=(f"m{i}", f"m{i + 1}"), valid_to=None)
        for i in range(n)
    ]
    assert store.put_facts(batch) == n
    assert store.stats()["facts"] == n
    assert len(store.facts_citing([f"m{i}" for i in range(0, n + 1, 2)])) == n
    assert sum(count for _, _, count in store.fact_subjects()) == n
    assert store.delete_facts([f"f{i}" for i in range(0, n, 2)]) == n // 2
    store.delete([f"m{i}" for i in range(n // 2)])  # no such records: the facts still go
    assert len(store.facts()) == n // 4


# ---------------------------------------------------------------- the reference
def test_every_answer_agrees_with_the_in_memory_store(store):
    """One seeded history of puts, replaces, record deletes and fact deletes, replayed on
    this backend and on the reference; every read compared after each step."""
    reference = InMemoryStore()
    rng = random.Random(48)
    records = [fields(i, session="s") for i in range(40)]
    for target in (store, reference):
        insert(target, *records)
    subjects = ["speaker:ann", "name:tom", "name:汤姆", "name:zoë"]
    scopes = ["user:ann", "group:g", "global"]

    def random_fact(n: int) -> Fact:
        start = T + rng.randrange(40)
        closed = rng.random() < 0.4
        return fact(
            n,
            scope=rng.choice(scopes),
            subject=rng.choice(subjects),
            subject_name=rng.choice(["Ann", "Tom", "汤姆", "Zoë"]),
            attribute=rng.choice(["lives_in", "works_at"]),
            value=rng.choice(["上海", "Shenzhen", "Globex"]),
            said_at=start - rng.randrange(3),
            valid_from=start,
            valid_to=start + rng.randrange(1, 10) if closed else None,
            closed_by=f"r{rng.randrange(40)}" if closed else None,
            source_ids=tuple(f"r{rng.randrange(40)}" for _ in range(rng.randrange(1, 4))),
        )

    def reads(target: Store) -> list:
        return [
            target.facts(),
            target.facts(FactQuery(scopes=["group:g", "global"], current=True)),
            target.facts(FactQuery(subject="name:tom", attribute="lives_in")),
            *(target.facts(FactQuery(at=T + t)) for t in range(0, 50, 7)),
            target.facts(FactQuery(limit=5)),
            target.facts_citing([f"r{i}" for i in range(0, 40, 5)]),
            target.fact_subjects(),
            target.fact_subjects(scopes=["user:ann"]),
            target.stats()["facts"],
        ]

    for step in range(12):
        batch = [random_fact(rng.randrange(60)) for _ in range(15)]
        doomed_records = [f"r{rng.randrange(40)}" for _ in range(2)]
        doomed_facts = [f"f{rng.randrange(60)}" for _ in range(3)]
        for target in (store, reference):
            target.put_facts(batch)
            target.delete(doomed_records)
            target.delete_facts(doomed_facts)
        assert reads(store) == reads(reference), f"step {step}"
