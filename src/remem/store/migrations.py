"""Versioned schema migrations for the SQLite store.

``PRAGMA user_version`` holds the schema version. Each migration is applied inside the same
``BEGIN IMMEDIATE`` transaction that reads the version, so two processes opening a new file at
once cannot both apply it, and a failure leaves the file at the previous version.
Add new migrations at the end; never edit a published one.
"""

from __future__ import annotations

from remem.store.schema_ddl import (
    CHAT_COLUMNS,
    META_TABLE,
    RECORD_INDEXES,
    SQLITE_TYPES,
    facts_backlog_table,
    facts_tables,
    record_columns,
    sessions_table,
)

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "records, full-text index, vectors, metadata",
        META_TABLE
        + """

        -- Both kinds of record (message, memory) share this table.
        CREATE TABLE records (
            rowid         INTEGER PRIMARY KEY,"""
        + record_columns(SQLITE_TYPES, "'pending', 'indexed', 'failed'")
        + """
        );"""
        + RECORD_INDEXES
        + """;

        -- Lexical index: rowid = records.rowid; 'tokens' is remem's own segmentation
        -- (stemmed English, CJK bigrams/words), so unicode61 only splits on spaces here.
        CREATE VIRTUAL TABLE records_fts USING fts5(
            tokens, tokenize = 'unicode61 remove_diacritics 0'
        );

        -- One row per (record, model): several models may coexist during a re-embed.
        CREATE TABLE vectors (
            seq          INTEGER PRIMARY KEY AUTOINCREMENT,
            record_rowid INTEGER NOT NULL REFERENCES records (rowid) ON DELETE CASCADE,
            model_id     TEXT NOT NULL,
            provider     TEXT NOT NULL,
            model        TEXT NOT NULL,
            dim          INTEGER NOT NULL,
            vec          BLOB NOT NULL,
            created_at   REAL NOT NULL,
            UNIQUE (record_rowid, model_id)
        );
        CREATE INDEX vectors_model_seq ON vectors (model_id, seq);

        -- A global write counter: every write bumps it and stamps records.rev, so a reader can
        -- ask "what changed since rev N" cheaply.
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO counters (name, value) VALUES ('rev', 0), ('deletes', 0);
        """,
    ),
    (
        2,
        "lexical index gets a context column (the turns before a message)",
        """
        CREATE VIRTUAL TABLE records_fts_v2 USING fts5(
            tokens, context, tokenize = 'unicode61 remove_diacritics 0'
        );
        INSERT INTO records_fts_v2 (rowid, tokens, context)
            SELECT rowid, tokens, '' FROM records_fts;
        DROP TABLE records_fts;
        ALTER TABLE records_fts_v2 RENAME TO records_fts
        """,
    ),
    (
        3,
        "document frequencies of lexical tokens (to skip very common query words at scale)",
        """
        CREATE VIRTUAL TABLE records_vocab USING fts5vocab(records_fts, 'row')
        """,
    ),
    (
        4,
        "chat message fields (visible text, session type and label, message kind) and the "
        "'skipped' index status for messages that are stored but never indexed",
        (
            """
        CREATE TABLE records_v4 (
            rowid         INTEGER PRIMARY KEY,"""
            + record_columns(SQLITE_TYPES, "'pending', 'indexed', 'failed', 'skipped'")
            + CHAT_COLUMNS
            + """
        );
        INSERT INTO records_v4 (COLS) SELECT COLS FROM records;
        DROP TABLE records;
        ALTER TABLE records_v4 RENAME TO records;"""
            + RECORD_INDEXES
            + """
        """
        ).replace(
            "COLS",
            "rowid, id, kind, text, role, scope, session, platform, group_id, group_name, speaker_id, speaker_label, mentions, category, importance, created_at, event_time, valid_from, valid_to, access_count, last_access, source_ids, content_hash, metadata, source, index_status, index_error, rev, updated_at",
        ),
    ),
    (
        5,
        "sessions: a session's origin platform and parent (a sub-session counts as its root's "
        "platform); 'platform' is the effective one, kept up to date on every change",
        sessions_table(SQLITE_TYPES)
        + """
        """,
    ),
    (
        6,
        "newest-first listings of one kind (the web UI's memories page, `remem list --kind`) "
        "walk an index instead of sorting every record of the store",
        """
        CREATE INDEX records_kind_time ON records (kind, created_at)
        """,
    ),
    (
        7,
        "vector counts per model and dimension, and the record count, kept by triggers, so "
        "statistics, the model checks on open and BM25 pruning read a few rows instead of "
        "counting every vector or record; the vector index's filter columns read from a "
        "covering index",
        """
        CREATE TABLE vector_counts (
            model_id TEXT NOT NULL,
            dim      INTEGER NOT NULL,
            n        INTEGER NOT NULL,
            PRIMARY KEY (model_id, dim)
        );
        INSERT INTO vector_counts (model_id, dim, n)
            SELECT model_id, dim, count(*) FROM vectors GROUP BY model_id, dim;
        -- Triggers fire for the cascade deletes of records' vectors too.
        CREATE TRIGGER vector_counts_insert AFTER INSERT ON vectors BEGIN
            INSERT INTO vector_counts (model_id, dim, n) VALUES (new.model_id, new.dim, 1)
                ON CONFLICT (model_id, dim) DO UPDATE SET n = n + 1;
        END;
        CREATE TRIGGER vector_counts_delete AFTER DELETE ON vectors BEGIN
            UPDATE vector_counts SET n = n - 1 WHERE model_id = old.model_id AND dim = old.dim;
            DELETE FROM vector_counts WHERE model_id = old.model_id AND dim = old.dim AND n <= 0;
        END;
        CREATE TRIGGER vector_counts_update AFTER UPDATE OF model_id, dim ON vectors BEGIN
            UPDATE vector_counts SET n = n - 1 WHERE model_id = old.model_id AND dim = old.dim;
            DELETE FROM vector_counts WHERE model_id = old.model_id AND dim = old.dim AND n <= 0;
            INSERT INTO vector_counts (model_id, dim, n) VALUES (new.model_id, new.dim, 1)
                ON CONFLICT (model_id, dim) DO UPDATE SET n = n + 1;
        END;
        -- The vector index's filter columns by write counter, covering: its first read (every
        -- record) walks this narrow index instead of the whole table with its texts (a 100k
        -- store: 10 s of page reads on a busy machine).
        DROP INDEX records_rev;
        CREATE INDEX records_rev_filters ON records
            (rev, kind, scope, session, role, created_at, platform, category, valid_to);
        -- The record count too: BM25 pruning asks for it on the first search after any write.
        INSERT INTO counters (name, value) SELECT 'records', count(*) FROM records;
        CREATE TRIGGER records_count_insert AFTER INSERT ON records BEGIN
            UPDATE counters SET value = value + 1 WHERE name = 'records';
        END;
        CREATE TRIGGER records_count_delete AFTER DELETE ON records BEGIN
            UPDATE counters SET value = value - 1 WHERE name = 'records';
        END
        """,
    ),
    (
        8,
        "latent terms: each record's sparse latent terms by model, with the content hash of "
        "the text they were read from (a search reads them instead of running the model)",
        """
        CREATE TABLE latent_terms (
            record_rowid INTEGER NOT NULL REFERENCES records (rowid) ON DELETE CASCADE,
            model_id     TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            terms        BLOB NOT NULL,
            PRIMARY KEY (record_rowid, model_id)
        ) WITHOUT ROWID
        """,
    ),
    (
        9,
        "facts (issue 48): what is known about a subject and while it held, derived from "
        "records, with the records each cites indexed both ways (source, closer)",
        facts_tables(SQLITE_TYPES),
    ),
    (
        10,
        "the facts backlog (issue 47): records whose facts are not extracted yet, marked in "
        "the write that stores them, so fact extraction runs after the acknowledgement and a "
        "crash before it loses nothing",
        facts_backlog_table(SQLITE_TYPES),
    ),
    (
        11,
        "nothing to change: PostgreSQL's version 11 spreads its write counters and term "
        "statistics over per-writer shards; one SQLite writer at a time needs none",
        "SELECT 1",
    ),
    (
        12,
        "nothing to change: PostgreSQL's version 12 has its writers mark themselves before "
        "their transaction id, so readers' revisions ignore other applications' "
        "transactions; SQLite's revision counter never saw them",
        "SELECT 1",
    ),
    (
        13,
        "one index fewer to write per record (issue 47): no query looks records up by "
        "index_status (statistics count it in a scan, as they count role and category), and "
        "every insert paid for the index: one page more in each commit",
        "DROP INDEX IF EXISTS records_status",
    ),
]
# The runner applies migrations with foreign keys off (SQLite's procedure for rebuilding a
# table that others reference, as 4 does) and checks foreign_key_check before committing.

LATEST_VERSION = MIGRATIONS[-1][0]
