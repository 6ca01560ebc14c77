"""The relevance stage's latent-term reader: cosines of the question against the best
candidates, each text read once per process, and off (not failing the search) when the model
has no sparse head or it fails; a record's terms are read from the store, never computed in
the search's path (a record the fill has not reached has no latent evidence yet)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import memory_store_with
from remem.embed import latent
from remem.errors import EmbeddingError, StoreError
from remem.schemas import content_hash
from remem.search.latent_reader import LatentReader
from remem.store.memory import InMemoryStore
from remem.store.queries import TextUpdate
from remem.types import Record


class Model:
    """Latent terms from the words of a text: word i of a fixed vocabulary is term i."""

    VOCAB = ("hut", "booked", "weather", "capital", "australia")
    latent_model_id = "test:latent"

    def __init__(self, fail: bool = False) -> None:
        self.read: list[str] = []
        self.fail = fail

    def latent_terms(self, texts, *, query=False):
        if self.fail:
            raise EmbeddingError("the sparse head failed")
        self.read += list(texts)
        out = []
        for t in texts:
            ids = [i for i, w in enumerate(self.VOCAB) if w in t.lower()]
            out.append(latent.pack(np.array(ids, int), np.ones(len(ids))))
        return out


def _rec(i: int, text: str) -> Record:
    return Record(
        id=f"r{i}", kind="message", text=text, created_at=0.0, rowid=i, content_hash=f"h{i}"
    )


def _stored(texts: list[str]) -> tuple[InMemoryStore, list[Record]]:
    store, rowids = memory_store_with(*texts)
    return store, list(store.get_by_rowids(rowids).values())


def _keep_terms(store: InMemoryStore, records: list[Record]) -> None:
    """Store each record's terms as the fill would."""
    codes = Model().latent_terms([r.text for r in records])
    store.put_latent_terms(
        "test:latent", [(r.rowid, r.content_hash, c) for r, c in zip(records, codes, strict=True)]
    )


def test_cosines_of_the_question_against_each_stored_record_read_once():
    model = Model()
    store, records = _stored(["The hut is booked", "Nice weather"])
    _keep_terms(store, records)
    reader = LatentReader(store, lambda: model)
    got = reader.cosines("which hut is booked?", records)
    assert got == pytest.approx([1.0, 0.0], abs=1e-3)
    assert reader.cosines("which hut is booked?", records) == got
    assert model.read == ["which hut is booked?"]  # the question, once; the records stored


def test_a_record_without_stored_terms_is_never_computed_in_the_search():
    # a store made by import (no terms yet): each unseen candidate cost a model pass per
    # search, 10x the floor of a chat's recall at 100k (issue 47); the fill computes them
    model = Model()
    store, (hut, weather) = _stored(["The hut is booked", "Nice weather"])
    _keep_terms(store, [hut])
    reader = LatentReader(store, lambda: model)
    assert reader.cosines("which hut?", [hut, weather]) == pytest.approx([2**-0.5, None], abs=1e-3)
    assert reader.cosines("weather", [weather]) == [None]  # and no pass for the question
    assert model.read == ["which hut?"]


def test_a_model_without_a_sparse_head_gives_no_evidence():
    assert LatentReader(InMemoryStore(), lambda: object()).cosines("q", [_rec(1, "x")]) is None
    assert LatentReader(InMemoryStore(), lambda: None).cosines("q", [_rec(1, "x")]) is None
    assert LatentReader(InMemoryStore(), lambda: Model()).cosines("q", []) is None


def test_a_failing_head_switches_the_reader_off_and_the_search_goes_on(caplog):
    model = Model(fail=True)
    store, (hut,) = _stored(["The hut"])
    _keep_terms(store, [hut])
    reader = LatentReader(store, lambda: model)
    assert reader.cosines("q", [hut]) is None
    model.fail = False
    assert reader.cosines("hut", [hut]) is None  # off for the process: logged once
    assert "relevance without latent terms" in caplog.text


def test_terms_the_store_keeps_are_read_not_computed():
    store, (hut, weather) = _stored(["The hut is booked", "Nice weather"])
    model = Model()
    (kept,) = Model().latent_terms(["hut"])  # what the store says (computed: hut, booked)
    store.put_latent_terms("test:latent", [(hut.rowid, hut.content_hash, kept)])
    got = LatentReader(store, lambda: model).cosines("capital hut", [hut, weather])
    assert got == pytest.approx([2**-0.5, None], abs=1e-3)  # computed, it would be 0.5
    assert model.read == ["capital hut"]  # the hut's terms came from the store


def test_stale_or_unreadable_stored_terms_are_no_evidence():
    store, (hut,) = _stored(["The hut is booked"])
    model = Model()
    store.put_latent_terms("test:latent", [(hut.rowid, hut.content_hash, b"")])
    store.update_text(TextUpdate(hut.rowid, "Nice weather", content_hash("Nice weather"), ""))
    (fresh,) = store.get_by_rowids([hut.rowid]).values()
    assert LatentReader(store, lambda: model).cosines("weather", [fresh]) == [None]

    class Broken(InMemoryStore):
        def latent_terms_of(self, model_id, rowids):
            raise StoreError("database is locked")

    reader = LatentReader(Broken(), lambda: model)
    assert reader.cosines("hut", [_rec(1, "hut")]) == [None]  # still on
    assert reader.is_on()
    assert model.read == []


def test_a_malformed_stored_entry_is_no_evidence_and_does_not_fail_the_search():
    store, (hut,) = _stored(["The hut is booked"])
    store.put_latent_terms("test:latent", [(hut.rowid, hut.content_hash, b"abc")])  # 3 bytes
    model = Model()
    assert LatentReader(store, lambda: model).cosines("hut", [hut]) == [None]
    assert model.read == []


def test_is_on_only_with_a_sparse_head_that_has_not_failed():
    assert LatentReader(InMemoryStore(), lambda: Model()).is_on()
    assert not LatentReader(InMemoryStore(), lambda: object()).is_on()
    store, (hut,) = _stored(["The hut"])
    _keep_terms(store, [hut])
    failing = LatentReader(store, lambda: Model(fail=True))
    failing.cosines("q", [hut])
    assert not failing.is_on()
