"""The shared table declarations (``store/schema_ddl.py``) build both backends' migrations:
a published migration must never change, so each one's text is pinned by its digest."""

from __future__ import annotations

import hashlib

from remem.store.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from remem.store.postgres.schema import MIGRATIONS as POSTGRES_MIGRATIONS
from remem.store.postgres.schema import SHARD_LOCK_BASE, SHARDS, WRITE_SHARDS
from remem.store.schema_ddl import POSTGRES_TYPES, SQLITE_TYPES, facts_tables, record_columns

# sha256 (first 16 hex digits) of each published migration's SQL, as released
PUBLISHED = {
    "sqlite": {
        1: "88a5bd12679f6e19",
        2: "de560acf51ed52a6",
        3: "45a9f160a8a2bfad",
        4: "6583fd0c7963f7dd",
        5: "27b603c99ad7ebf2",
        6: "1c92a5b01bbc526a",
        7: "14015cd2f624f30d",
        8: "23d53fbe824130a2",
        9: "6fad853842f37934",
    },
    "postgres": {
        6: "92cf3468ff68a236",
        7: "e004ebd5b5532a4b",
        8: "d521bdfad5342cfa",
        9: "d3d39d1d74a3fcff",
    },
}


def _digests(migrations: list[tuple[int, str, str]]) -> dict[int, str]:
    return {v: hashlib.sha256(sql.encode()).hexdigest()[:16] for v, _, sql in migrations}


def test_no_published_migration_changes():
    sqlite = _digests(SQLITE_MIGRATIONS)
    postgres = _digests(POSTGRES_MIGRATIONS)
    # a new migration is added at the end: pin it here once it is released
    assert {v: sqlite[v] for v in PUBLISHED["sqlite"]} == PUBLISHED["sqlite"]
    assert {v: postgres[v] for v in PUBLISHED["postgres"]} == PUBLISHED["postgres"]


def test_the_backends_differ_only_in_type_names():
    statuses = "'pending'"
    sqlite, postgres = (
        record_columns(SQLITE_TYPES, statuses),
        record_columns(POSTGRES_TYPES, statuses),
    )
    assert sqlite.replace("REAL", "DOUBLE PRECISION").replace("INTEGER", "BIGINT") == postgres
    assert facts_tables(SQLITE_TYPES).replace(" WITHOUT ROWID", "").replace(
        "REAL", "DOUBLE PRECISION"
    ) == facts_tables(POSTGRES_TYPES)


def test_readers_look_for_the_shard_locks_writers_take():
    # CURRENT_REV finds this store's writers by the advisory locks write_shard() takes
    assert f"FOR i IN 0 .. {SHARDS - 1} LOOP" in WRITE_SHARDS
    assert f"pg_try_advisory_xact_lock({SHARD_LOCK_BASE} + s, hashtext(current_schema()))" in (
        WRITE_SHARDS
    )
