"""Facts in the in-memory store: a table by fact id, kept in step with record deletes."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from remem.store.facts_check import check_fact, fact_order
from remem.store.memory.state import MemoryState, first
from remem.store.queries import ALL_FACTS, FactBacklog, FactQuery
from remem.types import Fact, Record


class FactsMixin(MemoryState):
    def put_facts(self, facts: Sequence[Fact]) -> int:
        for fact in facts:
            check_fact(fact)
        with self._write():
            for fact in facts:
                self._facts[fact.id] = dataclasses.replace(fact, source_ids=tuple(fact.source_ids))
        return len(facts)

    def delete_facts(self, ids: Sequence[str]) -> int:
        with self._write():
            gone = [self._facts.pop(i) for i in dict.fromkeys(ids) if i in self._facts]
        return len(gone)

    def clear_facts(self, scopes: Sequence[str] | None = None, origin: str | None = None) -> int:
        with self._write():
            doomed = [
                f.id
                for f in self._facts.values()
                if (scopes is None or f.scope in scopes) and (origin is None or f.origin == origin)
            ]
            for fact_id in doomed:
                del self._facts[fact_id]
        return len(doomed)

    def facts(self, query: FactQuery = ALL_FACTS) -> list[Fact]:
        q, scopes = query, query.scopes
        with self._read():
            found = [
                dataclasses.replace(f)
                for f in self._facts.values()
                if (scopes is None or f.scope in scopes)
                and (q.subject is None or f.subject == q.subject)
                and (q.attribute is None or f.attribute == q.attribute)
                and (q.at is None or f.holds_at(q.at))
                and (not q.current or f.valid_to is None)
            ]
        return first(sorted(found, key=fact_order), q.limit)

    def facts_citing(self, record_ids: Sequence[str]) -> list[Fact]:
        wanted = set(record_ids)
        with self._read():
            found = [
                dataclasses.replace(f)
                for f in self._facts.values()
                if wanted.intersection(f.source_ids) or f.closed_by in wanted
            ]
        return sorted(found, key=fact_order)

    def fact_subjects(self, scopes: Sequence[str] | None = None) -> list[tuple[str, str, int]]:
        counts: dict[str, int] = {}
        names: dict[str, tuple[float, str, str]] = {}
        with self._read():
            for f in self._facts.values():
                if scopes is not None and f.scope not in scopes:
                    continue
                counts[f.subject] = counts.get(f.subject, 0) + 1
                newest = (f.said_at, f.id)  # ties: the greatest id, as the SQL backends pick
                if f.subject not in names or newest > names[f.subject][:2]:
                    names[f.subject] = (*newest, f.subject_name)
        rows = [(key, names[key][2], n) for key, n in counts.items()]
        return sorted(rows, key=lambda r: (-r[2], r[0]))

    # ---------------------------------------------------------------- the facts backlog
    def records_awaiting_facts(self, backlog: FactBacklog) -> list[Record]:
        with self._read():
            upto = backlog.upto_rowid
            found = sorted(
                (
                    r
                    for r in self._awaiting_facts
                    if r > backlog.after_rowid
                    and (upto is None or r <= upto)
                    and (backlog.rowids is None or r in backlog.rowids)
                ),
                reverse=backlog.newest_first,
            )
            return [self._record(rowid) for rowid in found[: backlog.limit]]

    def facts_extracted(self, rowids: Sequence[int]) -> int:
        with self._write():
            marked = self._awaiting_facts.intersection(int(r) for r in rowids)
            self._awaiting_facts.difference_update(marked)
        return len(marked)

    def count_awaiting_facts(self) -> int:
        with self._read():
            return len(self._awaiting_facts)
