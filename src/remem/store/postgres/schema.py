"""Versioned schema migrations for the PostgreSQL store.

``schema_version`` holds the version. The runner applies every migration newer than it in one
transaction that first takes ``pg_advisory_xact_lock``, so processes starting at once apply
each migration exactly once and a failure leaves the previous version in place. Version
numbers follow the SQLite store's (``remem.store.migrations``): one number, one schema the
engine can rely on. Add new migrations at the end; never edit a published one.

The tables mirror the SQLite ones. Differences that are choices:
- JSON columns stay text (the one row mapping in ``store/rows.py`` reads them), cast to jsonb
  where a query looks inside.
- The lexical index keeps each record's terms as arrays (exact BM25 term frequencies, phrase
  positions) and a ``tsvector`` with the GIN index that finds matching rows: a record's own
  terms carry weight A, its context's weight B, so a tokens-only search asks for ``:A``.
  ``lexical_terms`` keeps document frequencies in step (FTS5's vocabulary), and ``counters``
  the row and term totals BM25 needs.
- Vectors of every model live in one table with an untyped ``vector`` column; each (model,
  dim) that grows past the exact-search threshold gets its own partial HNSW index on
  ``vec::vector(dim)`` (see ``vectors.py``), which is the per-model index without a table
  per model to create, copy and drop.
"""

from __future__ import annotations

from remem.store.schema_ddl import (
    CHAT_COLUMNS,
    META_TABLE,
    POSTGRES_TYPES,
    RECORD_INDEXES,
    facts_backlog_table,
    facts_tables,
    record_columns,
    sessions_table,
)

# Version 11. Every write used to update the same rows (the revision counter first, held to
# its commit; the write counter; the BM25 totals; the document frequency of every common
# term): concurrent writers queued on those row locks, one commit and one disk flush at a
# time. Now each transaction adds to the rows of a shard no other running transaction holds
# (``write_shard()``: the first shard whose advisory lock it gets, kept until its end), and
# readers add the shards up: ``write_counts`` (the write counter and the BM25 totals, one
# row per shard, spread thin over its pages so that updates stay in place) and
# ``lexical_terms`` (a row per term and shard). The revision stamped on records is the
# writer's transaction id plus ``rev_base`` (so it continues past the old counter's values);
# a reader's current revision is one below the oldest transaction its snapshot still sees
# running, so every record stamped later than that commits after the reader looked (see
# ``connection.py``).
# The shards' advisory locks, as ``write_shard()`` below takes them (first key
# SHARD_LOCK_BASE + shard, second the schema's hash): a reader finds this store's running
# writers by them (``connection.CURRENT_REV``). The function's text is a published migration
# and never changes; tests/unit/store/test_schema_ddl.py checks the two agree.
SHARD_LOCK_BASE = 7563264
SHARDS = 64
WRITE_SHARDS = """
CREATE TABLE write_counts (
    shard     INTEGER PRIMARY KEY,
    writes    BIGINT NOT NULL DEFAULT 0,
    lex_rows  BIGINT NOT NULL DEFAULT 0,
    lex_terms BIGINT NOT NULL DEFAULT 0
) WITH (fillfactor = 10);
INSERT INTO write_counts (shard) SELECT generate_series(0, 63);
UPDATE write_counts SET
    writes = (SELECT value FROM counters WHERE name = 'writes'),
    lex_rows = (SELECT value FROM counters WHERE name = 'lex_rows'),
    lex_terms = (SELECT value FROM counters WHERE name = 'lex_terms')
WHERE shard = 0;
DELETE FROM counters WHERE name IN ('writes', 'lex_rows', 'lex_terms');
ALTER TABLE lexical_terms ADD COLUMN shard INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lexical_terms DROP CONSTRAINT lexical_terms_pkey;
ALTER TABLE lexical_terms ADD PRIMARY KEY (term, shard);
ALTER TABLE lexical_terms SET (fillfactor = 70);
INSERT INTO counters (name, value)
    SELECT 'rev_base', value + 1 - pg_current_xact_id()::text::bigint
    FROM counters WHERE name = 'rev';
DELETE FROM counters WHERE name = 'rev';
-- This transaction's shard: the first of 64 whose advisory lock (second key: the schema)
-- is free, counting from 0, so a term's rows number no more than the writers that ever ran
-- at once; with all 64 held, one by the backend's id without the lock (its writers then take
-- turns at the row locks, as every writer did before).
CREATE FUNCTION write_shard() RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    s INTEGER := nullif(current_setting('remem.write_shard', true), '')::INTEGER;
BEGIN
    IF s IS NOT NULL THEN
        RETURN s;
    END IF;
    FOR i IN 0 .. 63 LOOP
        s := i;
        IF pg_try_advisory_xact_lock(7563264 + s, hashtext(current_schema())) THEN
            PERFORM set_config('remem.write_shard', s::TEXT, true);
            RETURN s;
        END IF;
    END LOOP;
    RETURN pg_backend_pid() % 64;
END
$$
"""

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        6,
        "records, sessions, lexical index and term statistics, vectors, meta, counters, claims",
        META_TABLE
        + """
        CREATE TABLE records (
            rowid         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"""
        + record_columns(POSTGRES_TYPES, "'pending', 'indexed', 'failed', 'skipped'")
        + CHAT_COLUMNS
        + """
        );"""
        + RECORD_INDEXES
        + """;
        CREATE INDEX records_kind_time ON records (kind, created_at);
        CREATE INDEX records_id_prefix ON records (id text_pattern_ops);
"""
        + sessions_table(POSTGRES_TYPES)
        + """;

        CREATE TABLE lexical (
            rowid  BIGINT PRIMARY KEY REFERENCES records (rowid) ON DELETE CASCADE,
            tok    TEXT[] NOT NULL,
            ctx    TEXT[] NOT NULL,
            doc    TSVECTOR NOT NULL,
            len    INTEGER NOT NULL
        );
        CREATE INDEX lexical_doc ON lexical USING gin (doc);
        -- How often a phrase (terms in a row) occurs in a term array: BM25's term frequency
        -- for a query token that splits into several terms (PL/pgSQL: a SQL function is
        -- re-planned on every call, 50x slower here).
        CREATE FUNCTION phrase_hits(terms TEXT[], phrase TEXT[]) RETURNS INTEGER
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        DECLARE
            n INTEGER := 0;
            p INTEGER;
            j INTEGER;
            whole BOOLEAN;
        BEGIN
            FOREACH p IN ARRAY coalesce(array_positions(terms, phrase[1]), '{}') LOOP
                whole := true;
                FOR j IN 2 .. cardinality(phrase) LOOP
                    IF terms[p + j - 1] IS DISTINCT FROM phrase[j] THEN
                        whole := false;
                        EXIT;
                    END IF;
                END LOOP;
                IF whole THEN
                    n := n + 1;
                END IF;
            END LOOP;
            RETURN n;
        END
        $$;
        CREATE TABLE lexical_terms (
            term   TEXT PRIMARY KEY,
            df_tok BIGINT NOT NULL,
            df_any BIGINT NOT NULL
        );

        CREATE TABLE vectors (
            seq          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            record_rowid BIGINT NOT NULL REFERENCES records (rowid) ON DELETE CASCADE,
            model_id     TEXT NOT NULL,
            provider     TEXT NOT NULL,
            model        TEXT NOT NULL,
            dim          INTEGER NOT NULL,
            vec          vector NOT NULL,
            created_at   DOUBLE PRECISION NOT NULL,
            UNIQUE (record_rowid, model_id)
        );
        CREATE INDEX vectors_model_seq ON vectors (model_id, dim, seq);
        CREATE TABLE vector_indexes (
            model_id TEXT NOT NULL,
            dim      INTEGER NOT NULL,
            name     TEXT NOT NULL UNIQUE,
            PRIMARY KEY (model_id, dim)
        );

        -- Embedding work claimed by a worker until 'until' (epoch seconds); an expired claim
        -- is free again, so a crashed worker's records return to the queue.
        CREATE TABLE claims (
            rowid  BIGINT NOT NULL REFERENCES records (rowid) ON DELETE CASCADE,
            model_id TEXT NOT NULL,
            worker TEXT NOT NULL,
            until  DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (rowid, model_id)
        );

        -- rev: bumped (and stamped on records) by every record or vector write, in commit
        -- order (the row lock is held to commit); deletes: bumped by deletes; writes: by every
        -- write (the change token); lex_rows / lex_terms: BM25's N and total length.
        CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
        INSERT INTO counters (name, value) VALUES
            ('rev', 0), ('deletes', 0), ('writes', 0), ('lex_rows', 0), ('lex_terms', 0)
        """,
    ),
    (
        7,
        "nothing to change: SQLite's version 7 keeps vector and record counts by triggers; "
        "this store counts with its own indexes and counters, and the numbers stay aligned",
        "SELECT 1",
    ),
    (
        8,
        "latent terms: each record's sparse latent terms by model, with the content hash of "
        "the text they were read from (a search reads them instead of running the model)",
        """
        CREATE TABLE latent_terms (
            record_rowid BIGINT NOT NULL REFERENCES records (rowid) ON DELETE CASCADE,
            model_id     TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            terms        BYTEA NOT NULL,
            PRIMARY KEY (record_rowid, model_id)
        )
        """,
    ),
    (
        9,
        "facts (issue 48): what is known about a subject and while it held, derived from "
        "records, with the records each cites indexed both ways (source, closer)",
        facts_tables(POSTGRES_TYPES),
    ),
    (
        10,
        "the facts backlog (issue 47): records whose facts are not extracted yet, marked in "
        "the write that stores them, so fact extraction runs after the acknowledgement and a "
        "crash before it loses nothing",
        facts_backlog_table(POSTGRES_TYPES),
    ),
    (
        11,
        "concurrent writers never wait for each other's row locks (issue 47): the write "
        "counters and the term statistics are kept per shard (a writer adds to its own shard's "
        "rows, readers sum the shards), and a record's rev is its transaction id offset past "
        "the old counter (readers take as current rev the oldest transaction still running, "
        "so none commits below it)",
        WRITE_SHARDS,
    ),
    (
        12,
        "a transaction left open elsewhere on the server holds back no reader (issue 47): "
        "a reader's current revision is one below the oldest running transaction of this "
        "store's writers, not of the whole server; every writer now takes its shard before "
        "its transaction id, which marks it as one (nothing in the tables changes: the "
        "version keeps remem versions whose writers do not mark themselves off the store)",
        "SELECT 1",
    ),
    (
        13,
        "two indexes fewer to write per record (issue 47): records_status goes (no query "
        "looks records up by index_status; statistics count it in a scan), and the id's "
        "unique index and its prefix index become one unique index in text_pattern_ops, "
        "which serves equality, ON CONFLICT (id) and LIKE prefixes alike",
        """
        DROP INDEX IF EXISTS records_status;
        CREATE UNIQUE INDEX records_id ON records (id text_pattern_ops);
        ALTER TABLE records DROP CONSTRAINT records_id_key;
        DROP INDEX IF EXISTS records_id_prefix
        """,
    ),
]

LATEST_VERSION = MIGRATIONS[-1][0]
