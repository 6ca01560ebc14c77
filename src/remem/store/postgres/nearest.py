"""Vector search on the server: exact below a size threshold, HNSW (pgvector) above it.

All models share the ``vectors`` table. A (model, dim) that reaches ``HNSW_MIN_VECTORS``
gets its own partial index, ``USING hnsw ((vec::vector(dim)) vector_cosine_ops) WHERE
model_id = '...' AND dim = ...``, built once (``CREATE INDEX CONCURRENTLY``, writes go on)
by whichever process first needs it, in a background thread; searches stay exact until it is
ready. Filters are pushed into the same SQL (a join on ``records``), and pgvector's iterative
index scan (``hnsw.iterative_scan = relaxed_order``, set on every connection) keeps walking
the graph until enough rows pass them; if a very selective filter still leaves fewer than
asked, the search is repeated exactly over the rows that pass.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from typing import Any

import numpy as np
import psycopg
from pgvector import Vector
from psycopg import sql

from remem.store.postgres.filters import filters_sql
from remem.store.postgres.vectors import VectorsMixin
from remem.store.queries import NearestQuery
from remem.types import Filters

log = logging.getLogger("remem.store.postgres")

# Below this many vectors of a model an exact scan is fast enough and always right (at 20k x
# 512-d, measured under heavy load, exact took 1.0 s p50 against 61 ms for HNSW at recall 0.955).
HNSW_MIN_VECTORS = 10_000
# pgvector's HNSW indexes 'vector' values of up to 2,000 dimensions; above, search is exact.
HNSW_MAX_DIM = 2000
HNSW_BUILD = "WITH (m = 16, ef_construction = 64)"
# At least this much memory for a build (a server configured with more keeps its own).
BUILD_MEMORY = "1GB"
# Candidates the graph keeps while searching: pgvector's default up to SEARCH_AT vectors, then
# growing with the square root of the index's size, as a bigger graph needs a wider search for
# the same recall (remem-bench's pg-store-1m.json measures recall@10 for several widths).
SEARCH_EXPANSION = 40
SEARCH_AT = 20_000
SEARCH_EXPANSION_MAX = 1000
# How long a "too small for an index" answer stands before the count is asked again.
RECHECK_S = 30.0


def search_expansion(size: int, n: int) -> int:
    """``hnsw.ef_search`` for ``n`` hits from an index of about ``size`` vectors."""
    widened = SEARCH_EXPANSION * math.sqrt(max(size, SEARCH_AT) / SEARCH_AT)
    return min(max(round(widened), n), SEARCH_EXPANSION_MAX)


def index_name(model_id: str, dim: int) -> str:
    digest = hashlib.sha1(f"{model_id}\x00{dim}".encode()).hexdigest()[:16]
    return f"vectors_hnsw_{digest}"


class NearestMixin(VectorsMixin):
    """``nearest``: the store answers vector searches itself (``remem.store.base.NearestStore``)."""

    _indexed: set[tuple[str, int]]
    _building: set[tuple[str, int]]
    _index_checked: dict[tuple[str, int], float]
    _index_sizes: dict[tuple[str, int], tuple[float, int]]

    def _index_state(self) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
        if not hasattr(self, "_indexed"):
            self._indexed, self._building, self._index_checked = set(), set(), {}
        return self._indexed, self._building

    def nearest(self, query: NearestQuery) -> list[tuple[int, float]]:
        """See ``NearestStore.nearest``: through the HNSW index when it is built, exactly
        when the index found fewer than ``n`` rows passing the filters."""
        model_id, dim, n = query.model_id, query.dim, query.n
        filters, now = query.filters, query.now
        if n <= 0:
            return []
        vector = Vector(np.asarray(query.vector, np.float32).ravel())
        use_index = self._has_index(model_id, dim)
        hits = self._search(model_id, dim, vector, n, filters, now, approximate=use_index)
        if use_index and len(hits) < n and filters is not None:
            hits = self._search(model_id, dim, vector, n, filters, now, approximate=False)
        return hits

    def _search(
        self,
        model_id: str,
        dim: int,
        vector: Vector,
        n: int,
        filters: Filters | None,
        now: float | None,
        *,
        approximate: bool,
        ef_search: int | None = None,
    ) -> list[tuple[int, float]]:
        where, params = filters_sql(filters, now=now)
        # The index is on vec::vector(dim); the same expression lets the planner use it, a
        # bare vec (no index matches) is an exact scan. Model and dim are literals so the
        # planner can prove the partial index applies.
        target = (
            sql.SQL("v.vec::vector({})").format(sql.Literal(dim))
            if approximate
            else sql.SQL("v.vec")
        )
        statement = sql.SQL(
            "SELECT rowid, score FROM (SELECT v.record_rowid AS rowid, "
            "1 - ({target} <=> %s) AS score FROM vectors v JOIN records r "
            "ON r.rowid = v.record_rowid WHERE v.model_id = {model} AND v.dim = {dim}"
            + where
            + " ORDER BY {target} <=> %s LIMIT %s) hits ORDER BY score DESC, rowid"
        ).format(target=target, model=sql.Literal(model_id), dim=sql.Literal(dim))
        with self.read() as c:
            if approximate:
                # relaxed order can return a hit a little out of place: the outer ORDER BY
                # puts it back; ef_search at least n so one pass can fill the page
                if ef_search is None:
                    ef_search = search_expansion(self._index_size(model_id, dim), n)
                c.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(ef_search)))
            rows = c.execute(statement, [vector, *params, vector, n]).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def _index_size(self, model_id: str, dim: int) -> int:
        """About how many vectors the model's HNSW index holds: the planner's estimate
        (``pg_class.reltuples``, kept by builds and autovacuum), asked again after RECHECK_S."""
        sizes = self.__dict__.setdefault("_index_sizes", {})
        key = (model_id, dim)
        known = sizes.get(key)
        if known is not None and time.monotonic() - known[0] < RECHECK_S:
            return known[1]
        row = self.query_one(
            "SELECT greatest(c.reltuples, 0)::bigint FROM pg_class c WHERE c.oid = to_regclass(%s)",
            (index_name(model_id, dim),),
        )
        size = int(row[0]) if row else 0
        sizes[key] = (time.monotonic(), size)
        return size

    def _has_index(self, model_id: str, dim: int) -> bool:
        """Whether an HNSW index serves this model; starts building one (in the background)
        when the model has grown past the threshold and has none yet."""
        indexed, building = self._index_state()
        key = (model_id, dim)
        if key in indexed:
            return True
        if dim > HNSW_MAX_DIM or key in building:
            return False
        checked = self._index_checked.get(key)
        if checked is not None and time.monotonic() - checked < RECHECK_S:
            return False  # small a moment ago: stay exact without asking again
        self._index_checked[key] = time.monotonic()
        found = self.query_one(
            "SELECT 1 FROM vector_indexes WHERE model_id = %s AND dim = %s", (model_id, dim)
        )
        if found:
            indexed.add(key)
            return True
        enough = self.query_one(
            "SELECT count(*) FROM (SELECT 1 FROM vectors WHERE model_id = %s AND dim = %s "
            "LIMIT %s) t",
            (model_id, dim, HNSW_MIN_VECTORS),
        )
        if int(enough[0]) >= HNSW_MIN_VECTORS:
            building.add(key)
            threading.Thread(
                target=self._build_in_background, args=key, name="remem-hnsw", daemon=True
            ).start()
        return False

    def _build_in_background(self, model_id: str, dim: int) -> None:
        try:
            self.build_vector_index(model_id, dim)
        except Exception as exc:  # a failed build leaves exact search working
            log.warning("building the HNSW index for %s (%d) failed: %s", model_id, dim, exc)
        finally:
            self._index_state()[1].discard((model_id, dim))

    def build_vector_index(self, model_id: str, dim: int) -> bool:
        """Build the HNSW index of one (model, dim) now, unless another process is building
        it (then False: searches stay exact until it is done). Writes are not blocked."""
        self._check_open()
        name = index_name(model_id, dim)
        lock = int(hashlib.sha1(name.encode()).hexdigest()[:15], 16)
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(self._search_path)
            # the graph is built in memory up to this much, then far more slowly on disk
            # (1M x 384-d takes about 2 GB); this connection's own setting only, and never
            # below what the server is configured with
            conn.execute(
                "SELECT set_config('maintenance_work_mem', CASE WHEN "
                "pg_size_bytes(current_setting('maintenance_work_mem')) < pg_size_bytes(%s) "
                "THEN %s ELSE current_setting('maintenance_work_mem') END, false)",
                (BUILD_MEMORY, BUILD_MEMORY),
            )
            if not conn.execute("SELECT pg_try_advisory_lock(%s)", (lock,)).fetchone()[0]:  # type: ignore[index]
                return False
            try:
                self._create_index(conn, name, model_id, dim)
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (lock,))
        self._index_state()[0].add((model_id, dim))
        return True

    def _create_index(
        self, conn: psycopg.Connection[Any], name: str, model_id: str, dim: int
    ) -> None:
        done = conn.execute(
            "SELECT 1 FROM vector_indexes WHERE model_id = %s AND dim = %s", (model_id, dim)
        ).fetchone()
        if done:
            return
        # a build interrupted before leaves an invalid index of this name: drop it first
        conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))
        conn.execute(
            sql.SQL(
                "CREATE INDEX CONCURRENTLY {name} ON vectors USING hnsw "
                "((vec::vector({dim})) vector_cosine_ops) " + HNSW_BUILD + " "
                "WHERE model_id = {model} AND dim = {dim}"
            ).format(name=sql.Identifier(name), dim=sql.Literal(dim), model=sql.Literal(model_id))
        )
        conn.execute(
            "INSERT INTO vector_indexes (model_id, dim, name) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (model_id, dim, name),
        )
