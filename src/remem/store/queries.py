"""The Store protocol's parameter objects: what one question to a backend asks, written once.

Several protocol methods take the same long list of arguments (the lexical methods, the
vector reads and writes, the fact listing). Each list is one frozen object here, built by
the caller and read by ``store/base.py``'s protocol and by the three backends, so a new
argument is added in one place and a backend cannot read them in another order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from remem.types import Filters

# Given a row count, the arrays to read vectors into: (rowids int64 (n,), matrix float32
# (n, dim)), e.g. memory-mapped files, so an index build never holds the matrix in anonymous
# memory.
Allocate = Callable[[int], tuple[np.ndarray, np.ndarray]]


def _token_tuple(owner: str, tokens: Sequence[str]) -> tuple[str, ...]:
    """The tokens as a tuple; a lone string is refused (iterating it would ask for each of its
    characters)."""
    if isinstance(tokens, str):
        raise TypeError(
            f"{owner}.tokens must be a sequence of tokens, not the string {tokens!r}: "
            f"pass [{tokens!r}]"
        )
    return tuple(tokens)


@dataclass(frozen=True, slots=True)
class LexicalQuery:
    """A keyword question: records holding any of ``tokens`` (remem's tokenizer's output, one
    FTS5 phrase each) and passing ``filters`` at ``now``. ``context_weight`` > 0 also matches
    a message's context (the turns before it) with that BM25 column weight; 0 (or less)
    searches the records' own tokens only. Read by ``lexical_search``, ``lexical_newest`` and
    ``phrase_counts``."""

    tokens: Sequence[str]
    filters: Filters | None = None
    now: float | None = None
    context_weight: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", _token_tuple("LexicalQuery", self.tokens))
        object.__setattr__(self, "context_weight", float(self.context_weight))

    @property
    def words(self) -> list[str]:
        """The tokens asked, empty ones left out."""
        return [t for t in self.tokens if t]

    @property
    def with_context(self) -> bool:
        """Whether a message's context column counts."""
        return self.context_weight > 0


@dataclass(frozen=True, slots=True)
class SessionWindow:
    """The records around an anchor in its session that ``neighbours`` returns: up to
    ``before`` earlier and ``after`` later ones passing ``filters`` at ``now``, skipping the
    records a search never shows or, with ``context``, those a conversation's context leaves
    out (control and directive messages)."""

    before: int
    after: int
    filters: Filters | None = None
    now: float | None = None
    context: bool = False

    def __post_init__(self) -> None:
        if self.before < 0 or self.after < 0:
            raise ValueError(
                f"SessionWindow.before and .after must be >= 0, got {self.before!r} and "
                f"{self.after!r}"
            )


@dataclass(frozen=True, slots=True)
class RecordPage:
    """A page of the records passing ``filters`` for ``list_records``: newest (or, not
    ``newest_first``, oldest) first by created_at then rowid, ``offset`` skipped, then
    ``limit`` at most (None or below 0: all)."""

    filters: Filters | None = None
    limit: int | None = 50
    offset: int = 0
    newest_first: bool = True


FIRST_PAGE = RecordPage()


@dataclass(frozen=True, slots=True)
class TextUpdate:
    """A record's new text for ``update_text``: ``text`` (and the ``visible_text`` a reader
    sees, None: the text), its ``content_hash`` and its own lexical ``tokens`` (its context
    and its vector stay: the old vector serves until a new one is written)."""

    rowid: int
    text: str
    content_hash: str
    tokens: str
    visible_text: str | None = None


@dataclass(frozen=True, slots=True)
class NewestIds:
    """Which ids ``newest_ids`` lists: of the records passing ``filters``, newest first
    (created_at, then rowid); with ``ended_by``, only those whose validity ended by then
    (valid_to <= ended_by); ``offset`` skipped, then ``limit`` at most (None: all)."""

    filters: Filters | None = None
    ended_by: float | None = None
    limit: int | None = None
    offset: int = 0


@dataclass(frozen=True, slots=True)
class Backlog:
    """A page of the records still owed a vector of ``model_id`` (skipped ones aside), at
    most ``limit`` (negative: all): after ``after_rowid`` in rowid order; or, given
    ``before_rowid``, below it, newest (highest rowid) first. What ``records_missing_vectors``
    and ``claim_missing_vectors`` (rowid order only) page through."""

    model_id: str
    limit: int = 1000
    after_rowid: int = 0
    before_rowid: int | None = None


@dataclass(frozen=True, slots=True)
class NearestQuery:
    """A vector search a backend answers itself (``NearestStore.nearest``): the ``n``
    vectors of ``model_id`` and ``dim`` nearest to ``vector`` among the records passing
    ``filters`` at ``now``."""

    model_id: str
    dim: int
    vector: np.ndarray = field(compare=False)
    n: int
    filters: Filters | None = None
    now: float | None = None


@dataclass(frozen=True, slots=True)
class VectorRead:
    """One model's vectors of one dimension with seq > ``after_seq`` (0: all), read in one
    snapshot into one contiguous matrix: in seq order (a delta: a later row of the same
    record replaces an earlier one) or, ``by_rowid``, sorted by record rowid (a full read for
    a snapshot). ``allocate`` supplies the arrays to fill. What ``read_vectors`` reads."""

    model_id: str
    dim: int
    after_seq: int = 0
    by_rowid: bool = False
    allocate: Allocate | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.dim <= 0:
            raise ValueError(f"VectorRead.dim must be positive, got {self.dim!r}")
        if self.after_seq < 0:
            raise ValueError(
                f"VectorRead.after_seq must be 0 (all) or a sequence number, got {self.after_seq!r}"
            )


@dataclass(frozen=True, slots=True)
class VectorWrite:
    """Vectors of one model to store: (record rowid, vector) ``items`` made by ``model`` of
    ``provider`` under ``model_id``, one a record (an older one of that model is replaced).
    ``mark_indexed``: the records become 'indexed' (a copy or a stand-in vector leaves their
    status). What ``put_vectors`` writes."""

    model_id: str
    provider: str
    model: str
    items: Sequence[tuple[int, np.ndarray]]
    mark_indexed: bool = True


@dataclass(frozen=True, slots=True)
class FactQuery:
    """Which facts ``facts`` lists: of these ``scopes`` (None: all), this subject key and
    attribute (None: any); ``at``: only those that held at that time (``Fact.holds_at``);
    ``current``: only those still open (``valid_to`` None); ``limit`` at most (None or a
    negative number: all)."""

    scopes: Sequence[str] | None = None
    subject: str | None = None
    attribute: str | None = None
    at: float | None = None
    current: bool = False
    limit: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.scopes, str):
            raise TypeError(
                f"FactQuery.scopes must be a sequence of scopes, not the string "
                f"{self.scopes!r}: pass [{self.scopes!r}]"
            )
        if self.scopes is not None:
            object.__setattr__(self, "scopes", tuple(self.scopes))


ALL_FACTS = FactQuery()


@dataclass(frozen=True, slots=True)
class FactBacklog:
    """Which records waiting for their facts ``records_awaiting_facts`` returns: up to
    ``limit`` in rowid order (``newest_first``: the highest rowids first), above
    ``after_rowid`` and, when ``upto_rowid`` is set, not above it (a walk of what waited when
    it began, not of what arrives meanwhile); when ``rowids`` is set, only those (a writer's
    own records: with several writer processes they are interleaved with the others', and a
    rowid range alone would read every process's records for each one's batch)."""

    limit: int = 1000
    after_rowid: int = 0
    upto_rowid: int | None = None
    newest_first: bool = False
    rowids: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise ValueError(f"FactBacklog.limit must be >= 1, got {self.limit!r}")
