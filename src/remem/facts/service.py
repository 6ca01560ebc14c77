"""The facts service: keeps the store's facts equal to what its records say.

``rebuild`` derives a scope's facts from scratch: every record of the scope, statements out
of each (``extract.statements_of``, or a hand correction's ``corrections.statement_of``),
folded (``fold``), and the scope's facts replaced in one ``Store.transaction()``: a failure
halfway leaves the facts it had. ``update`` is the indexing path's: for newly indexed (or
edited, undone) records it re-folds only the chains (scope, subject, attribute) their
statements touch, reading each chain's statements again from the records its stored facts
cite plus the new ones, and replaces those chains' facts in one transaction.

What counts: every message and curated memory, except a memory version that was undone or
replaced by an edit (what it said was taken back). A superseded memory still counts: it was
true until the newer one said otherwise, which is the history the fold keeps.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from remem.config import LLMConfig
from remem.facts import corrections
from remem.facts.answers import (
    MOVED,
    after_moves,
    answer_statements,
    asked_by_another,
    asks_a_third_person,
    opens_with_value,
)
from remem.facts.extract import (
    ExtractionContext,
    antecedent_after,
    has_pronoun,
    mentioned,
    statements_of,
    subject_of_speaker,
)
from remem.facts.fold import ChainKey, chain_of, fold, fold_chain
from remem.facts.llm_reader import LLMFactReader
from remem.facts.model import Statement
from remem.facts.subjects import people_of
from remem.store.base import FactStore, Store
from remem.store.queries import FactQuery, RecordPage
from remem.text.assertion import is_question
from remem.types import Fact, Filters, Record

log = logging.getLogger("remem.facts")

Progress = Callable[[int], None]
Deleted = TypeVar("Deleted")

# How many of a session's lines before a record with "he" / "她" say whom it means
PRONOUN_LOOKBACK = 4
# How many of the newest messages the people context is first read from: a bounded read on
# the indexing thread, whatever the store's size (speakers seen later are added as indexed)
PEOPLE_WINDOW = 20_000

Memo = dict[tuple[object, ...], list[Statement]]  # a record version -> what it states


@dataclass
class RebuildSummary:
    """What a rebuild did: records read, statements found, facts written, per scope too."""

    records: int = 0
    statements: int = 0
    facts: int = 0
    removed: int = 0
    scopes: dict[str, int] = field(default_factory=dict)  # scope -> facts written

    def to_dict(self) -> dict[str, object]:
        return {
            "records": self.records,
            "statements": self.statements,
            "facts": self.facts,
            "removed": self.removed,
            "scopes": dict(self.scopes),
        }


def edited_away(records: Iterable[Record]) -> set[str]:
    """Ids of memory versions an edit replaced: the ``supersedes`` of every edited version
    that was not undone."""
    gone: set[str] = set()
    for record in records:
        # an undone edit replaced nothing: the version it replaced is current again
        if record.kind == "memory" and record.metadata.get("edited_by") and not taken_back(record):
            gone.update(i for i in record.metadata.get("supersedes") or () if isinstance(i, str))
    return gone


def taken_back(record: Record) -> bool:
    """An undone memory version states nothing any more."""
    return record.kind == "memory" and bool(record.metadata.get("undone"))


class FactService:
    """Derives facts from records and keeps them in the store (see the module docstring)."""

    def __init__(self, store: Store, llm: LLMConfig | None = None) -> None:
        self.store = store
        # facts.llm: a chat model adds what the rules did not read (llm_reader.py)
        self.reader = LLMFactReader(llm) if llm is not None else None
        self._people: dict[str, str] | None = None  # built from the store on first use
        self._lock = threading.Lock()  # one update or rebuild at a time per process
        self.update_errors = 0  # updates that failed (logged), for `stats`
        # a backend without the fact tables (a third-party store) is left alone by the
        # indexing path; reads and rebuilds say what is missing
        self.kept = isinstance(store, FactStore)

    def stats(self) -> dict[str, object]:
        """This process's failed updates and, with ``facts.llm``, the chat model's calls."""
        out: dict[str, object] = {"fact_update_errors": self.update_errors}
        if self.reader is not None:
            out["fact_llm"] = {
                "calls": self.reader.calls,
                "errors": self.reader.errors,
                "dropped": self.reader.dropped,
            }
        return out

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()

    # ------------------------------------------------------------------ statements
    def context(self) -> ExtractionContext:
        """The people of the store (every speaker's names and aliases -> subject key)."""
        if self._people is None:  # the recent speakers; later ones are learnt as they come
            recent = self.store.list_records(RecordPage(Filters(kinds=["message"]), PEOPLE_WINDOW))
            self._people = people_of(recent)
        return ExtractionContext(people=dict(self._people))

    def _learn_people(self, records: Sequence[Record]) -> None:
        if self._people is not None:  # names already known keep their owner
            for form, key in people_of(records).items():
                self._people.setdefault(form, key)

    def statements(self, record: Record, context: ExtractionContext) -> list[Statement]:
        """What one record states: a correction its manual statement, any other record what
        the extractor reads in it; "he" / "她" read as the person the session's last few
        lines before it named (``extract.antecedent_after``), alike in a rebuild and an update."""
        if corrections.is_correction(record):
            manual = corrections.statement_of(record)
            return [] if manual is None else [manual]
        if record.session and context.people and has_pronoun(record.shown_text):
            before = self.store.previous_texts(record.session, record.created_at, PRONOUN_LOOKBACK)
            context = replace(context, antecedent=antecedent_after(before, context))
        found = statements_of(record, context)
        if found and record.session:
            found = self._not_of_another(record, context, found)
        if record.session and opens_with_value(record.shown_text):
            # a bare answer ("高新区，离软件园近"): the session's line before says what it answers
            before = self.store.previous_texts(record.session, record.created_at, 1)
            speaker = subject_of_speaker(record)
            answers = answer_statements(before[-1], record, speaker, found) if before else []
            found += after_moves(answers, self._moves(answers))
        if self.reader is not None:
            found += self.reader.statements(record, context, found)
        return found

    def _not_of_another(
        self, record: Record, context: ExtractionContext, found: list[Statement]
    ) -> list[Statement]:
        """``found`` without what a subject left out made the speaker's when the line before,
        someone else's question, asks about a third person: "How's Tom doing?" - "Moved to
        Leeds last week" says nothing of the one replying (a wrong home would close theirs).
        The line before is read only when a left-out subject decided something."""
        without = statements_of(record, replace(context, elided_is_speaker=False))
        if len(without) == len(found) or not record.session:
            return found
        before = self.store.previous_texts(record.session, record.created_at, 1)
        if not before or not self._asks_another(before[-1], record, context):
            return found
        return without

    @staticmethod
    def _asks_another(question: Record, reply: Record, context: ExtractionContext) -> bool:
        """Whether ``question``, someone else's line just before ``reply``, asks about a third
        person: by pronoun or name ("How's Tom?", "他搬家了吗？") or by naming someone the
        store knows other than the one replying ("汤姆最近怎么样？")."""
        if not asked_by_another(question, reply):
            return False
        if asks_a_third_person(question.shown_text):
            return True
        replier = subject_of_speaker(reply)
        named = mentioned(question.shown_text, context.people)
        return is_question(question.shown_text.strip()) and any(
            key != (replier[0] if replier else None) for key in named
        )

    def _moves(self, answers: Sequence[Statement]) -> list[Fact]:
        """The stored facts a dated move may have given the answerers (``after_moves``)."""
        return [
            f
            for a in answers
            if a.attribute in MOVED
            for f in self.store.facts(FactQuery([a.scope], a.subject, a.attribute))
        ]

    # ------------------------------------------------------------------ rebuild
    def rebuild(
        self, scopes: Sequence[str] | None = None, progress: Progress | None = None
    ) -> RebuildSummary:
        """Derive the facts of these scopes (None: every scope of the store) again from
        their records, one transaction per scope."""
        wanted = list(scopes) if scopes is not None else self.store.distinct_values("scope")
        summary = RebuildSummary()
        with self._lock:
            # a rebuild reads every record anyway: every speaker of the store, afresh
            self._people = people_of(self.store.iter_records(Filters(kinds=["message"])))
            context = self.context()
            for scope in dict.fromkeys(wanted):
                records = list(self.store.iter_records(Filters(scopes=[scope])))
                found = self._statements_of(records, context)
                facts = fold(found)
                with self.store.transaction():
                    summary.removed += self.store.clear_facts([scope])
                    self.store.put_facts(facts)
                    # every record of the scope is read: none waits for its facts now
                    self.store.facts_extracted([r.rowid for r in records if r.rowid is not None])
                summary.records += len(records)
                summary.statements += len(found)
                summary.facts += len(facts)
                summary.scopes[scope] = len(facts)
                if progress is not None:
                    progress(len(records))
        return summary

    def _statements_of(
        self, records: Sequence[Record], context: ExtractionContext, memo: Memo | None = None
    ) -> list[Statement]:
        gone = edited_away(records)
        found: list[Statement] = []
        for record in records:
            if record.id in gone or taken_back(record):
                continue
            found.extend(self._said(record, context, memo))
        return found

    def _said(
        self, record: Record, context: ExtractionContext, memo: Memo | None
    ) -> list[Statement]:
        """``statements``, read once per version of a record within one update (a record
        handed in is read again as stored, usually the same text)."""
        if memo is None:
            return self.statements(record, context)
        key = (
            record.id,
            record.content_hash,
            record.scope,
            record.speaker_id,
            record.speaker_label,
            record.created_at,
            record.event_time,
        )
        if key not in memo:
            memo[key] = self.statements(record, context)
        return memo[key]

    # ------------------------------------------------------------------ update
    def update(self, records: Sequence[Record], citing: Sequence[Fact] | None = None) -> int:
        """Re-fold the chains these records' statements touch (new, edited or undone
        records: an undone or edited-away version touches its chains but states nothing),
        and the chains of the stored facts citing them (what a rewritten text said before;
        ``citing``: those facts as read before, else read now). Returns how many facts the
        touched chains hold now."""
        if not records:
            return 0
        with self._lock:
            self._learn_people(records)
            context = self.context()
            memo: Memo = {}
            touched = {chain_of(s) for r in records for s in self._said(r, context, memo)}
            if citing is None:
                citing = self.store.facts_citing([r.id for r in records])
            touched.update((f.scope, f.subject, f.attribute) for f in citing)
            if not touched:
                return 0
            # read and write in one transaction: another process re-folding the same chain
            # meanwhile cannot interleave (the store serialises transactions)
            with self.store.transaction():
                stored = [
                    f
                    for scope, subject, attribute in touched
                    for f in self.store.facts(FactQuery([scope], subject, attribute))
                ]
                cited = {i for f in stored for i in (*f.source_ids, f.closed_by) if i}
                wanted = cited | {r.id for r in records}
                rowids = self.store.rowids_for_ids(sorted(wanted))
                usable = list(self.store.get_by_rowids(rowids).values())  # as stored now
                statements = [
                    s
                    for s in self._statements_of(self._with_editors(usable), context, memo)
                    if chain_of(s) in touched
                ]
                return self._replace(touched, statements, [f.id for f in stored])

    def _with_editors(self, records: list[Record]) -> list[Record]:
        """The records less the memory versions an edit replaced (the edit may be outside
        these records: a superseded version's successor is read to tell)."""
        ids = {r.id for r in records}
        editors: list[Record] = []
        for record in records:
            successor = record.metadata.get("superseded_by") if record.kind == "memory" else None
            if isinstance(successor, str) and successor not in ids:
                newer = self.store.get(successor)
                if newer is not None and newer.metadata.get("edited_by"):
                    editors.append(newer)
        gone = edited_away([*records, *editors])
        return [r for r in records if r.id not in gone]

    def _replace(self, chains: set[ChainKey], statements: list[Statement], old: list[str]) -> int:
        """Inside the update's transaction: the chains' old facts out, their new ones in."""
        by_chain: dict[ChainKey, list[Statement]] = defaultdict(list)
        for statement in statements:
            by_chain[chain_of(statement)].append(statement)
        new: list[Fact] = [f for key in chains for f in fold_chain(by_chain.get(key, []))]
        self.store.delete_facts(old)
        self.store.put_facts(new)
        return len(new)

    def deleting(self, ids: Sequence[str]) -> int:
        """``Store.delete`` of these records, keeping the facts right (``deleting_by``)."""
        return self.deleting_by(ids, lambda: self.store.delete(ids))

    def deleting_by(self, ids: Sequence[str], delete: Callable[[], Deleted]) -> Deleted:
        """Run ``delete``, which deletes these records or some of them (a rollback picks
        its own); the store drops the facts citing them and reopens those they closed. Then
        the chains those facts were in are folded again from the records left: a fact
        another record still states comes back, with its own sources."""
        if not self.kept:
            return delete()
        cited = self.store.facts_citing(ids)
        deleted = delete()
        left = {i for f in cited for i in (*f.source_ids, f.closed_by) if i}
        if left:  # what was deleted is simply not found any more
            rowids = self.store.rowids_for_ids(sorted(left))
            self.update_quietly(list(self.store.get_by_rowids(rowids).values()))
        return deleted

    def update_each_quietly(self, records: Sequence[Record]) -> None:
        """``update_quietly`` of each record in turn, in order, with the facts citing any of
        them read once for all (issue 47: the facts fill's batch of 256 new messages was 256
        reads of them, a wait for the server each, nearly always finding none). Reading
        them first is enough: a record's update re-folds only chains holding facts that
        cite records stored already, so an earlier record's update can give a later one
        citing facts only in a chain where one cited it before (already touched by it); a
        fact it removed meanwhile only makes a chain re-folded for nothing."""
        if not self.kept or not records:
            return
        try:
            citing = self.store.facts_citing([r.id for r in records])
        except Exception as exc:  # as update_quietly: each record then reads its own
            log.warning("facts citing %d records not read: %s", len(records), exc)
            for record in records:
                self.update_quietly([record])
            return
        by_record: dict[str, list[Fact]] = defaultdict(list)
        for fact in citing:
            for rid in {*fact.source_ids, fact.closed_by}:
                if rid:
                    by_record[rid].append(fact)
        for record in records:
            self.update_quietly([record], by_record.get(record.id, []))

    def update_quietly(
        self, records: Sequence[Record], citing: Sequence[Fact] | None = None
    ) -> None:
        """``update`` for the indexing path: a failure is logged and counted, never raised
        (indexing must not fail because facts could not be derived)."""
        if not self.kept:
            return
        try:
            self.update(records, citing)
        except Exception as exc:  # any failure here must spare the indexing
            self.update_errors += 1
            log.warning("facts not updated for %d records: %s", len(records), exc)
