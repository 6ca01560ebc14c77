"""Store conformance: latent terms by model, current only while the record holds the text
they were read from, gone with their record."""

from __future__ import annotations

from conformance import fields, insert

from remem.store.queries import TextUpdate


def test_latent_terms_are_kept_by_model(store):
    a, b = insert(store, fields(1), fields(2))
    assert store.put_latent_terms("m1", [(a, "h1", b"\x01\x00\x00\x3c"), (b, "h2", b"bb")]) == 2
    store.put_latent_terms("m2", [(a, "h1", b"other")])
    assert store.latent_terms_of("m1", [a, b, 999_999]) == {a: b"\x01\x00\x00\x3c", b: b"bb"}
    assert store.latent_terms_of("m2", [a, b]) == {a: b"other"}
    assert store.latent_terms_of("m3", [a]) == {} and store.latent_terms_of("m1", []) == {}


def test_put_latent_terms_replaces_and_skips_gone_or_changed_records(store):
    a, b, c = insert(store, fields(1), fields(2), fields(3))
    store.put_latent_terms("m", [(a, "h1", b"old")])
    store.delete(["r2"])
    written = store.put_latent_terms(
        "m", [(a, "h1", b"new"), (b, "h2", b"gone"), (c, "not-h3", b"stale")]
    )
    assert written == 1
    assert store.latent_terms_of("m", [a, b, c]) == {a: b"new"}
    assert store.put_latent_terms("m", []) == 0


def test_a_new_text_makes_stored_terms_stale(store):
    a, b = insert(store, fields(1), fields(2))
    store.put_latent_terms("m", [(a, "h1", b"aa"), (b, "h2", b"bb")])
    store.update_text(TextUpdate(a, "a new text", "h1-new", "new"))
    assert store.latent_terms_of("m", [a, b]) == {b: b"bb"}
    assert [r.id for r in store.records_missing_latent_terms("m")] == ["r1"]
    store.put_latent_terms("m", [(a, "h1-new", b"fresh")])
    assert store.latent_terms_of("m", [a]) == {a: b"fresh"}
    assert store.count_missing_latent_terms("m") == 0


def test_records_missing_latent_terms_page_by_rowid_and_skip_unindexed(store):
    rowids = insert(store, *(fields(i) for i in range(5)))
    store.mark_index_status([rowids[4]], "skipped")
    store.put_latent_terms("m", [(rowids[1], "h1", b"xx")])
    assert store.count_missing_latent_terms("m") == 3
    assert store.count_missing_latent_terms("other") == 4
    first = store.records_missing_latent_terms("m", limit=2)
    assert [r.id for r in first] == ["r0", "r2"]
    rest = store.records_missing_latent_terms("m", after_rowid=first[-1].rowid)
    assert [r.id for r in rest] == ["r3"]


def test_deleting_a_record_deletes_its_latent_terms(store):
    a, b = insert(store, fields(1), fields(2))
    store.put_latent_terms("m", [(a, "h1", b"aa"), (b, "h2", b"bb")])
    store.delete(["r2"])
    # the same id and text again: a new record without terms, even where the backend hands
    # out the freed rowid again (SQLite reuses the highest): an orphan row would show here
    (c,) = insert(store, fields(2))
    assert store.latent_terms_of("m", [a, b, c]) == {a: b"aa"}
    assert [r.id for r in store.records_missing_latent_terms("m")] == ["r2"]
