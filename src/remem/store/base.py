"""The Store protocol: everything the engine, the features and the indexes ask of a backend.

A backend keeps records (messages and memories), sessions, the lexical index, vectors by
model and a small key/value meta table, and makes every write one transaction;
``transaction()`` makes several writes one unit of work. The SQLite
store is the embedded default; ``InMemoryStore`` is the reference a second backend is checked
against (``tests/store`` runs one conformance suite over every backend). Retrieval and capture
heuristics live in their features, not here: a store answers plain questions.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from remem.store.dashboard import DashboardStore
from remem.store.queries import (
    ALL_FACTS,
    FIRST_PAGE,
    Backlog,
    FactBacklog,
    FactQuery,
    LexicalQuery,
    NearestQuery,
    RecordPage,
    SessionWindow,
    TextUpdate,
    VectorRead,
    VectorWrite,
)
from remem.store.stats import StoreStats
from remem.types import Fact, Filters, Record, SessionInfo

# (record fields, lexical tokens) or (record fields, lexical tokens, context tokens)
RecordRow = tuple[dict[str, Any], str] | tuple[dict[str, Any], str, str]
OnConflict = Literal["error", "skip"]


@dataclass(frozen=True, slots=True)
class PreviousTurn:
    """The turn a message's context was taken from without reading it: the writer wrote it
    last in the session (``ContextCheckingStore``)."""

    rowid: int
    content_hash: str


class ContextMoved(Exception):
    """The turn a message's context was taken from is no longer the turn before it (another
    process wrote into the session, or it was deleted or rewritten): nothing was written;
    read the context and write again."""


# (rowid, kind, scope, session, role, created_at, platform, category, valid_to)
IndexMetaRow = tuple[Any, ...]
# (model_id, provider, model, float32 bytes)
StoredVector = tuple[str, str, str, bytes]


class _Any:
    """The "match any value" marker for optional equality filters (None is a real value)."""

    def __repr__(self) -> str:
        return "ANY"


ANY: Any = _Any()


@dataclass(slots=True)
class VectorRows:
    """Vectors of one model read from the store: ``rowids[i]`` is the record of
    ``matrix[i]``."""

    rowids: np.ndarray  # int64, record rowids
    matrix: np.ndarray  # float32 (n, dim), C-contiguous
    max_seq: int  # the highest sequence number read (the ``after_seq`` asked when none)

    def __len__(self) -> int:
        return len(self.rowids)


@dataclass(frozen=True, slots=True)
class VectorState:
    """Where one model's vectors stand: the newest sequence number (every insert takes a new
    one, a replaced vector too) and the delete counter (bumped by every delete of records or
    vectors)."""

    max_seq: int
    deletes: int


@dataclass(frozen=True, slots=True)
class MemoryMatch:
    """Which current memories ``current_memories`` returns: those of ``scope`` still valid at
    ``now`` and, each only when given, with this content hash, this metadata value (a JSON
    string, never a number) and this speaker (None is a value: no speaker); ``limit`` at most
    (None: all). What deduplication and supersession (``remem.memories``) look up."""

    scope: str
    now: float
    content_hash: str | None = None
    metadata_equals: tuple[str, str] | None = None  # (key, string value)
    speaker_id: str | None = ANY
    limit: int | None = None


@runtime_checkable
class RecordStore(Protocol):
    """Records: insert, read by id / rowid / filters, update, delete."""

    def insert_records(
        self,
        rows: Sequence[RecordRow],
        *,
        on_conflict: OnConflict = "error",
        awaiting_facts: bool = False,
    ) -> list[int | None]:
        """Insert (record fields, lexical tokens[, context tokens]) in one transaction; the
        new rowids, None where ``on_conflict="skip"`` skipped a taken id. With
        ``awaiting_facts`` each record written that is not 'skipped' is also marked as waiting
        for its facts (``FactStore.records_awaiting_facts``), in the same transaction: a
        crash after the write cannot lose the extraction it owes."""
        ...

    def get(self, record_id: str) -> Record | None: ...
    def get_by_rowids(
        self, rowids: Iterable[int], filters: Filters | None = None, now: float | None = None
    ) -> dict[int, Record]: ...
    def rowids_for_ids(self, ids: Sequence[str]) -> list[int]: ...
    def ids_with_prefix(self, prefix: str, limit: int = 20) -> list[str]: ...
    def ids_where(self, filters: Filters | None) -> list[str]: ...
    def existing_hashes(self, hashes: Sequence[str]) -> set[str]: ...
    def list_records(self, page: RecordPage = FIRST_PAGE) -> list[Record]:
        """The page of records ``page`` names (by default the newest 50)."""
        ...

    def iter_records(
        self, filters: Filters | None = None, batch: int = 1000, after: int = 0
    ) -> Iterator[Record]: ...
    def count(self, filters: Filters | None = None, *, up_to: int | None = None) -> int:
        """Records passing ``filters``; with ``up_to``, counted no further than that (a
        cheap answer to "at least N?")."""
        ...

    def current_memories(self, match: MemoryMatch) -> list[Record]:
        """The curated memories ``match`` describes, oldest first (then by rowid)."""
        ...

    def find_message(self, session: str, created_at: float) -> Record | None: ...
    def previous_texts(self, session: str, before: float, limit: int) -> list[Record]: ...
    def neighbours(
        self, records: Sequence[Record], window: SessionWindow
    ) -> dict[int, list[Record]]: ...
    def update_text(self, change: TextUpdate) -> None:
        """Replace a record's text, visible text and own lexical tokens (``change``), in one
        write; its context and its vector stay."""
        ...

    def set_validity(
        self, rowid: int, valid_to: float | None, metadata: dict[str, Any]
    ) -> None: ...
    def record_access(self, items: Sequence[tuple[int, int, float]]) -> None: ...
    def mark_index_status(
        self, rowids: Sequence[int], status: str, error: str | None = None
    ) -> None: ...
    def delete(self, record_ids: Sequence[str]) -> int: ...
    def delete_session_after(self, session: str, after: float) -> list[str]: ...


@runtime_checkable
class SessionStore(Protocol):
    """Session facts: origin platform, parent, and the effective (root's) platform."""

    def set_session(
        self, session: str, origin_platform: str | None = None, parent: str | None = None
    ) -> None: ...
    def session_info(self, session: str) -> SessionInfo | None: ...
    def sessions_on_platform(self, platform: str) -> list[str]: ...
    def sessions_with_speaker(self, speaker_id: str) -> list[str]:
        """Sessions holding a message spoken by ``speaker_id``: the conversations that user
        took part in (``conversation_recall``'s ``scope: "user"``)."""
        ...


@runtime_checkable
class LexicalStore(Protocol):
    """BM25 over each record's tokens (and, weighted, the turns before a message)."""

    def lexical_search(self, query: LexicalQuery, limit: int) -> list[tuple[int, float]]:
        """(rowid, BM25 score) of the best ``limit`` records for ``query``, best first;
        scores are positive, higher is better."""
        ...

    def lexical_rescore(
        self,
        rowids: Sequence[int],
        tokens: Sequence[str],
        context_weight: float = 0.0,
        stats: tuple[int, dict[str, int]] | None = None,
    ) -> dict[int, float]:
        """The score ``lexical_search`` would give each of these records for ``tokens`` (same
        statistics, same formula), computed for these rows alone; rows matching no token are
        left out. The second pass of a keyword search in a big store
        (``remem.search.lexical``). With ``stats`` (``phrase_counts``' records and each
        token's rows), BM25's record count and document frequencies are those instead of the
        store's (the mean record length stays the store's). Written once for every backend
        (``store/lexical_rescore.py``)."""
        ...

    def phrase_counts(self, query: LexicalQuery) -> tuple[int, dict[str, int]]:
        """(records passing ``query.filters``, {token: those of them it occurs in}), counted
        as BM25 counts them: a token's terms as a phrase, in the record's own tokens, or also
        in its context when the context counts; tokens no such record holds are left out.
        Costs a walk of each token's postings: the caller keeps it to the tokens worth it."""
        ...

    def lexical_newest(self, query: LexicalQuery, limit: int) -> list[int]:
        """Rowids of the newest ``limit`` records holding any token (in their own tokens, or
        also in their context when the context counts) and passing the filters: the rows
        of a word too common to rank all of its records, found without scoring them."""
        ...

    def term_stats(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]: ...
    def lexical_tokens(self, rowids: Sequence[int]) -> dict[int, list[str]]:
        """Each record's own lexical tokens as indexed (not its context), for scoring a few
        candidates without tokenizing their text again; records without any are left out."""
        ...


@runtime_checkable
class SnapshotReads(Protocol):
    """What a snapshot vector index (``remem.index.vector``) reads of one model and dimension
    to build and catch up: each answer read in one snapshot of the store."""

    def vector_count(self, model_id: str) -> int: ...
    def vector_state(self, model_id: str, dim: int) -> VectorState: ...
    def read_vectors(self, request: VectorRead) -> VectorRows:
        """The vectors ``request`` names (one model and dimension, after a sequence number,
        in seq or rowid order, into the arrays it allocates), read in one snapshot."""
        ...

    def live_rowids(self, model_id: str, dim: int, upto_seq: int) -> np.ndarray:
        """Sorted rowids of the model's vectors with seq <= upto_seq that still exist."""
        ...

    def vectors_at(
        self, model_id: str, dim: int, rowids: Sequence[int], upto_seq: int
    ) -> dict[int, np.ndarray]:
        """The vectors of these (few) records with seq <= upto_seq."""
        ...


@runtime_checkable
class VectorStore(SnapshotReads, Protocol):
    """Vectors by model id. An in-memory index catches up through ``index_delta``; a snapshot
    index (``remem.index.vector``) through the ``SnapshotReads`` (``vector_state``,
    ``read_vectors``, ``live_rowids``, ``vectors_at``) and ``filter_rows``."""

    def put_vectors(self, batch: VectorWrite) -> int:
        """Write one vector per record rowid of ``batch`` for its model (replacing an older
        one; a rowid given twice keeps its last vector). Records deleted meanwhile are
        skipped. Returns how many vectors were written."""
        ...

    def vectors_of(self, rowids: Sequence[int]) -> dict[int, list[StoredVector]]: ...
    def clear_vectors(self, filters: Filters | None = None, model_id: str | None = None) -> int: ...
    def drop_vectors_of_indexed(self, model_id: str) -> int:
        """Delete this model's vectors of the records that are indexed, leaving their status:
        the fast lane's stand-in vectors once the main model has embedded those records.
        Returns how many were deleted."""
        ...

    def mark_indexed_with(self, model_id: str) -> None: ...
    def records_missing_vectors(self, backlog: Backlog) -> list[Record]:
        """The page of records without a vector that ``backlog`` names (`remem embed` fills
        a long import's backlog from its newest end, ``before_rowid``)."""
        ...

    def count_missing_vectors(self, model_id: str) -> int: ...
    def vector_stats(self) -> list[tuple[str, int, int]]: ...
    def has_legacy_vectors(self) -> bool: ...
    def legacy_vector_dims(self) -> set[int]: ...
    def adopt_legacy_vectors(
        self, model_id: str, provider: str, model: str, dim: int | None = None
    ) -> int: ...
    def load_vectors(self, model_id: str, dim: int, after_seq: int = 0) -> VectorRows: ...
    def index_delta(
        self, model_id: str, dim: int, after_seq: int, after_rev: int
    ) -> tuple[VectorRows, list[IndexMetaRow], int, int]: ...
    def filter_rows(self, after_rev: int) -> tuple[list[IndexMetaRow], int]:
        """(rows of ``INDEX_META_FIELDS`` of the records changed after ``after_rev``, the
        current rev), read in one snapshot."""
        ...


@runtime_checkable
class LatentStore(Protocol):
    """Each record's sparse latent terms (``remem.embed.latent``) by the model that read
    them: derived data like vectors, computed from the record's text, kept beside it so a
    search reads them instead of running the model. A stored entry counts only while the
    record still holds the text it was computed from (its content hash); a deleted record's
    terms go with it. Writing them bumps no ``rev`` (no index depends on them); the change
    token moves as for any write."""

    def put_latent_terms(self, model_id: str, items: Sequence[tuple[int, str, bytes]]) -> int:
        """Store (rowid, content hash, packed terms), replacing older ones. Records deleted
        meanwhile, or whose text no longer has that hash, are skipped. Returns how many
        were written."""
        ...

    def latent_terms_of(self, model_id: str, rowids: Sequence[int]) -> dict[int, bytes]:
        """The stored, current terms of these records (missing and stale ones left out)."""
        ...

    def records_missing_latent_terms(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]:
        """Records (not 'skipped') without current terms of this model, in rowid order."""
        ...

    def count_missing_latent_terms(self, model_id: str) -> int: ...


@runtime_checkable
class FactStore(Protocol):
    """Facts (``remem.types.Fact``): what is known about a subject and while it held, derived
    from records by ``remem.facts`` and kept beside them. Like vectors they are derived data:
    ``remem facts rebuild`` clears and writes them again. A fact cites its records by id;
    deleting a record (``delete``, ``delete_session_after``) deletes, in the same
    transaction, every fact that cites it as a source, and reopens (``valid_to`` and
    ``closed_by`` back to None) every fact it closed, as if it had never been said."""

    def put_facts(self, facts: Sequence[Fact]) -> int:
        """Insert facts, replacing any stored fact of the same id (all or none). Returns how
        many were written."""
        ...

    def delete_facts(self, ids: Sequence[str]) -> int:
        """Delete these facts; returns how many existed."""
        ...

    def clear_facts(self, scopes: Sequence[str] | None = None, origin: str | None = None) -> int:
        """Delete every fact (of these scopes; of this origin), for a rebuild. Returns how
        many were deleted."""
        ...

    def facts(self, query: FactQuery = ALL_FACTS) -> list[Fact]:
        """The facts ``query`` asks for (scopes, subject key, attribute, held at a time,
        still open, at most a number), oldest ``valid_from`` first (then ``said_at``, then
        id)."""
        ...

    def facts_citing(self, record_ids: Sequence[str]) -> list[Fact]:
        """Facts that cite any of these records, as a source or as what closed them, in the
        order of ``facts``: what recall asks about its candidates."""
        ...

    def fact_subjects(self, scopes: Sequence[str] | None = None) -> list[tuple[str, str, int]]:
        """(subject key, the newest fact's subject name, fact count) of these scopes, most
        facts first (then subject key)."""
        ...

    # The facts backlog: records written with ``insert_records(awaiting_facts=True)`` whose
    # facts are not extracted yet (the indexing path extracts them after the acknowledgement;
    # a process that died first leaves them here for the next one). Deleting a record drops
    # its mark with it.
    def records_awaiting_facts(self, backlog: FactBacklog) -> list[Record]:
        """The records still marked as waiting for their facts that ``backlog`` asks for, in
        rowid order."""
        ...

    def facts_extracted(self, rowids: Sequence[int]) -> int:
        """Unmark these records (their facts are extracted); how many were marked."""
        ...

    def count_awaiting_facts(self) -> int:
        """How many records wait for their facts."""
        ...


@runtime_checkable
class NearestStore(Protocol):
    """Optional: a backend that answers vector searches itself (PostgreSQL's HNSW index).
    Search asks it instead of loading the vectors into an in-memory index; a backend
    without it (SQLite, in memory) is searched through ``remem.index``."""

    def nearest(self, query: NearestQuery) -> list[tuple[int, float]]:
        """(rowid, cosine similarity) of the vectors ``query`` asks for, best first."""
        ...


@runtime_checkable
class ClaimStore(Protocol):
    """Optional: a backend shared by several processes hands out the embedding backlog by
    claims, so no record is embedded twice and a crashed worker's claims expire. A backend
    without it (one process at a time) is read with ``records_missing_vectors``."""

    def claim_missing_vectors(
        self, backlog: Backlog, worker: str, lease_s: float = 300.0
    ) -> list[Record]:
        """The page ``backlog`` names (rowid order: ``before_rowid`` must be None) less the
        records another worker holds a live claim on, now claimed by ``worker`` for
        ``lease_s`` seconds."""
        ...

    def release_claims(self, model_id: str, worker: str) -> int: ...


@runtime_checkable
class MetaStore(Protocol):
    """A small namespaced key/value table (markers, counters) kept with the data."""

    def meta_get(self, namespace: str, key: str) -> str | None: ...
    def meta_set(self, namespace: str, key: str, value: str | None) -> None: ...
    def meta_add(self, namespace: str, key: str, amount: int) -> int: ...


@runtime_checkable
class MaintainedStore(Protocol):
    """What `remem doctor` checks and repairs."""

    def integrity_problems(self) -> list[str]: ...
    def lexical_row_problems(self) -> tuple[list[int], list[int]]: ...
    def repair_lexical_rows(self, orphans: Sequence[int], tokens: Mapping[int, str]) -> None: ...
    def malformed_vectors(self) -> list[int]: ...
    def delete_vectors(self, seqs: Sequence[int]) -> None: ...
    def stale_vectors(self, model_id: str) -> list[int]: ...


@runtime_checkable
class Store(
    RecordStore,
    SessionStore,
    LexicalStore,
    VectorStore,
    LatentStore,
    FactStore,
    MetaStore,
    MaintainedStore,
    DashboardStore,
    Protocol,
):
    """A whole backend. ``path`` is the database file (None for a server or in memory)."""

    @property
    def path(self) -> Path | None: ...
    @property
    def index_root(self) -> Path | None:
        """Where this store's derived vector index files live (the snapshot index, beside a
        database file), or None: a server backend searches its own index, an in-memory one
        scans. What the indexing side asks instead of reading ``path`` as "this is SQLite"."""
        ...

    def transaction(self) -> AbstractContextManager[Store]:
        """A unit of work: ``with store.transaction() as tx:`` (``tx`` is this store). The
        writes this thread makes inside the block commit together when it ends, or, if it
        raises (or the process dies first), none of them does. Reads inside see the block's
        own writes; other threads and processes see none of them until the end. Each write
        inside is still all or nothing on its own, so a caller may catch a write's error and
        go on. Keep the block short and free of slow work (embedding, network): it holds the
        store's write lock (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: one pooled connection
        and a lock every transaction takes; in memory: the store's lock). A block may nest
        another, which becomes part of it."""
        ...

    def change_token(self) -> tuple[int, int]: ...
    def schema_version(self) -> int: ...
    def stats(self) -> StoreStats: ...
    def close(self) -> None: ...


@runtime_checkable
class ContextCheckingStore(Protocol):
    """A store that can write a message whose context the writer took from the turn it wrote
    last in the session, checking in the same statement that that turn is still the one
    before it. For a store whose reads are round trips to a server (PostgreSQL): the read of
    the turn before each message was a fifth of a write's cost there."""

    def insert_assuming(
        self, row: RecordRow, previous: PreviousTurn, *, awaiting_facts: bool = False
    ) -> int | None:
        """Insert one (fields, tokens, context) row as ``insert_records`` does with
        ``on_conflict="skip"`` (None: the id was taken), if the session's latest turn before
        it (by created_at, then rowid; not a 'skipped' record) is ``previous`` with that
        content; else write nothing and raise ``ContextMoved``."""
        ...
