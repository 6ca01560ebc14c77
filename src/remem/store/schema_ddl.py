"""The tables both SQL backends declare alike, written once: the same names, constraints,
defaults and indexes, with each backend's type names (``DDLTypes``). SQLite's migrations
(``migrations.py``) and PostgreSQL's (``postgres/schema.py``) build their statements from
these pieces; the text each yields is exactly what the published migrations held (a test
keeps it so). What truly differs stays in each: the rowid, full text, vectors, counters and
triggers."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DDLTypes:
    """A backend's names for the column types and table options the shared tables use."""

    real: str  # a float column
    integer: str  # an integer column (counts, revisions)
    keyed: str  # appended to a table keyed by its primary key alone (SQLite: WITHOUT ROWID)


SQLITE_TYPES = DDLTypes(real="REAL", integer="INTEGER", keyed=" WITHOUT ROWID")
POSTGRES_TYPES = DDLTypes(real="DOUBLE PRECISION", integer="BIGINT", keyed="")

META_TABLE = """
        CREATE TABLE meta (
            namespace TEXT NOT NULL,
            key       TEXT NOT NULL,
            value     TEXT,
            PRIMARY KEY (namespace, key)
        );"""


def record_columns(types: DDLTypes, statuses: str) -> str:
    """The records table's columns from ``id`` through ``updated_at`` (the rowid before them
    is each backend's own); ``statuses``: the index statuses the CHECK allows."""
    return f"""
            id            TEXT NOT NULL UNIQUE,
            kind          TEXT NOT NULL CHECK (kind IN ('message', 'memory')),
            text          TEXT NOT NULL,
            role          TEXT,
            scope         TEXT NOT NULL DEFAULT 'global',
            session       TEXT,
            platform      TEXT,
            group_id      TEXT,
            group_name    TEXT,
            speaker_id    TEXT,
            speaker_label TEXT,
            mentions      TEXT NOT NULL DEFAULT '[]',
            category      TEXT,
            importance    {types.real} NOT NULL DEFAULT 0.5,
            created_at    {types.real} NOT NULL,
            event_time    {types.real},
            valid_from    {types.real},
            valid_to      {types.real},
            access_count  {types.integer} NOT NULL DEFAULT 0,
            last_access   {types.real},
            source_ids    TEXT NOT NULL DEFAULT '[]',
            content_hash  TEXT NOT NULL,
            metadata      TEXT NOT NULL DEFAULT '{{}}',
            source        TEXT,
            index_status  TEXT NOT NULL DEFAULT 'pending'
                          CHECK (index_status IN ({statuses})),
            index_error   TEXT,
            rev           {types.integer} NOT NULL DEFAULT 0,
            updated_at    {types.real} NOT NULL"""


# The chat message fields (SQLite's version 4): visible text, session type and label, kind.
CHAT_COLUMNS = """,
            visible_text  TEXT,
            session_type  TEXT,
            session_label TEXT,
            message_kind  TEXT NOT NULL DEFAULT 'chat'
                          CHECK (message_kind IN ('chat', 'media', 'control', 'directive'))"""

# without the last statement's semicolon: SQLite's version 4 ends its script with it
RECORD_INDEXES = """
        CREATE INDEX records_scope_kind ON records (scope, kind);
        CREATE INDEX records_session_time ON records (session, created_at);
        CREATE INDEX records_hash ON records (content_hash);
        CREATE INDEX records_status ON records (index_status);
        CREATE INDEX records_rev ON records (rev)"""


def sessions_table(types: DDLTypes) -> str:
    """A session's origin platform, parent and effective platform, with their indexes."""
    return f"""
        CREATE TABLE sessions (
            id              TEXT PRIMARY KEY,
            origin_platform TEXT,
            parent          TEXT,
            platform        TEXT,
            updated_at      {types.real} NOT NULL
        );
        CREATE INDEX sessions_platform ON sessions (platform);
        CREATE INDEX sessions_parent ON sessions (parent)"""


def facts_tables(types: DDLTypes) -> str:
    """The facts and the records each cites (version 9 of both backends), as one script."""
    return f"""
        CREATE TABLE facts (
            id           TEXT PRIMARY KEY,
            scope        TEXT NOT NULL,
            subject      TEXT NOT NULL,
            subject_name TEXT NOT NULL,
            attribute    TEXT NOT NULL,
            value        TEXT NOT NULL,
            said_at      {types.real} NOT NULL,
            valid_from   {types.real} NOT NULL,
            valid_to     {types.real},
            source_ids   TEXT NOT NULL DEFAULT '[]',
            closed_by    TEXT,
            confidence   {types.real} NOT NULL,
            origin       TEXT NOT NULL
        ){types.keyed};
        -- a subject's facts (of an attribute), in the order they are listed; and by scope:
        -- the subjects a caller may read, a rebuild of some scopes
        CREATE INDEX facts_subject ON facts (subject, attribute, valid_from);
        CREATE INDEX facts_scope ON facts (scope, subject);
        -- the facts a record closed: reopened when it is deleted, found by recall
        CREATE INDEX facts_closed_by ON facts (closed_by);
        -- source_ids by record: the facts citing a record (deleted with it, found by recall).
        -- No reference to records: facts are derived data (a rebuild rewrites them), and a
        -- fact written while its record is being deleted must not fail the writer.
        CREATE TABLE fact_sources (
            fact_id   TEXT NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
            record_id TEXT NOT NULL,
            PRIMARY KEY (fact_id, record_id)
        ){types.keyed};
        CREATE INDEX fact_sources_record ON fact_sources (record_id)
        """


def facts_backlog_table(types: DDLTypes) -> str:
    """The records whose facts are not extracted yet (version 10 of both backends): marked in
    the write that stores them, unmarked once the indexing path has read them; a record's
    delete takes its mark with it."""
    return f"""
        CREATE TABLE facts_backlog (
            record_rowid {types.integer} PRIMARY KEY REFERENCES records (rowid) ON DELETE CASCADE
        )
        """
