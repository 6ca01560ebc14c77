"""People a query names by another form than their speaker label, for the embedded query.

An English question about a Chinese chat calls people by romanised names and nicknames
("Lao Zhao", "Xiaoming") while their messages carry the labels 赵磊 and 王小明, and e5 matches
the two scripts poorly. With ``names.translate_vector`` (the default) the embedded query gets
the label of each person it names by another form ("What drone does Lao Zhao fly? 赵磊"); the
keyword search keeps the query as asked. Aliases come from ``remem.text.names``, without an
LLM: from the labels, and from the lines in which a speaker says what they are called ("我是
Tina"). A query vector the caller gave is of the query as asked, so a translated query is
embedded again.

Measured on the dev suite (remem-bench's ``entity-names.json``): zh_groupchat recall@10
0.688 -> 0.699, MRR 0.454 -> 0.465, cross-lingual recall@5 0.349 -> 0.373; LoCoMo's
questions name people by their labels, so nothing changes there. Boosting the named
speaker's turns, boosting turns that mention them, a vector pass over the speaker's own turns
and adding the label to the keyword query were measured too and lost (boosts lower LoCoMo).

The labels are the store's distinct speaker labels within the search's scopes. Reading them
takes 50-240 ms at 100k records, so a big store's labels are read in the background, first
(searches go without names until the read is done) and then at most once a minute (the
previous set answers meanwhile); a small store's (a read under 5 ms) are read whenever the
store changed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict

import numpy as np

from remem.store.base import Store
from remem.text.names import (
    INTRODUCTION_PATTERNS,
    NameIndex,
    alias_table,
    find_names,
    introduced_names,
)
from remem.types import Filters

log = logging.getLogger("remem.search")

CHEAP_READ_S = 0.005  # a label read this fast is repeated after every change
REFRESH_S = 60.0  # else at most this often, in the background
MAX_SCOPE_SETS = 64
# A bigger store's first read runs in the background too (a cold `remem search` must not wait
# ~0.5 s for it at 200k records): its first searches go without names.
SMALL_STORE = 20_000
EMPTY = NameIndex({})
Key = tuple[str, ...] | None  # the scopes of a search, sorted (None: all)
Introduced = dict[str, list[str]]  # label -> the names its speaker introduced themselves by


def translated(query: str, named: dict[str, str]) -> str:
    """The query plus the label of each person it names by another form than the label."""
    extra = [label for label, alias in named.items() if alias != label.casefold()]
    return f"{query} {' '.join(extra)}" if extra else query


class SpeakerNames:
    """The alias index of the speaker labels in each set of scopes a search asks for."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        # scopes (None: all) -> (change token read at, when, how long the read took, index,
        # the self-introductions it was built with)
        self._indexes: dict[Key, tuple[object, float, float, NameIndex, Introduced]] = {}
        self._reading: set[Key] = set()
        # scopes -> (when read, label -> the names its speaker introduced themselves by); a
        # read that finds the same names keeps the held dict, so an index built with it stays
        self._intros: dict[Key, tuple[float, Introduced]] = {}
        self._intros_reading: set[Key] = set()

    def named(self, query: str, filters: Filters | None) -> dict[str, str]:
        """Label -> the alias the query calls that person by."""
        return find_names(query, self._index(filters))

    def _index(self, filters: Filters | None) -> NameIndex:
        key = tuple(sorted(filters.scopes)) if filters is not None and filters.scopes else None
        token = self._store.change_token()
        with self._lock:
            held = self._indexes.get(key)
            intros = self._intros.get(key)
            if held is not None and held[0] == token and (intros is None or held[4] is intros[1]):
                self._refresh_if_stale(key)
                return held[3]
            if held is None and key in self._reading:
                return EMPTY  # a big store's first read is under way
            if held is None:
                stale = None if self._store.count() <= SMALL_STORE else EMPTY
            elif held[2] < CHEAP_READ_S:
                stale = None  # cheap: read again now
            elif key in self._reading or time.monotonic() - held[1] < REFRESH_S:
                return held[3]
            else:
                stale = held[3]
            if stale is not None:
                self._reading.add(key)
        if stale is None:
            return self._read(key, token)
        threading.Thread(
            target=self._read_quietly, args=(key, token), daemon=True, name="remem-names"
        ).start()
        return stale

    def _read(self, key: Key, token: object) -> NameIndex:
        scopes = Filters(scopes=list(key)) if key is not None else None
        start = time.perf_counter()
        labels = self._store.distinct_values("speaker_label", scopes)
        took = time.perf_counter() - start  # the read alone: pinyin is computed once a label
        introduced = self._introduced(key, scopes)
        index = NameIndex(alias_table(labels, introduced))
        with self._lock:
            if len(self._indexes) >= MAX_SCOPE_SETS and key not in self._indexes:
                self._indexes.pop(next(iter(self._indexes)))
            self._indexes[key] = (token, time.monotonic(), took, index, introduced)
            self._reading.discard(key)
        return index

    def _introduced(self, key: Key, scopes: Filters | None) -> Introduced:
        """Label -> the names its speaker introduced themselves by. The lines are searched
        for (a scan: 2 ms at 1,000 records, 15 at 10,000, 130 at 100,000 in SQLite) with the
        first labels, then in the background at most once a ``REFRESH_S``, so the labels'
        own read stays cheap; a refresh that finds other names has the labels read again."""
        with self._lock:
            held = self._intros.get(key)
            self._refresh_if_stale(key)
        if held is not None:
            return held[1]
        try:
            return self._read_introduced(key, scopes)
        except Exception as exc:  # a busy file, a backend without the read: labels alone
            log.debug("self-introductions not read: %s", exc)
            found: Introduced = {}
            with self._lock:
                self._intros[key] = (time.monotonic(), found)  # tried again when due
            return found

    def _refresh_if_stale(self, key: Key) -> None:
        """Read the self-introductions again in the background when due (lock held)."""
        held = self._intros.get(key)
        if held is None or key in self._intros_reading:
            return
        if time.monotonic() - held[0] >= REFRESH_S:
            self._intros_reading.add(key)
            scopes = Filters(scopes=list(key)) if key is not None else None
            threading.Thread(
                target=self._refresh_introduced,
                args=(key, scopes),
                daemon=True,
                name="remem-names-introduced",
            ).start()

    def _read_introduced(self, key: Key, scopes: Filters | None) -> Introduced:
        introduced: dict[str, list[str]] = defaultdict(list)
        for label, text in self._store.speaker_lines_matching(INTRODUCTION_PATTERNS, scopes):
            introduced[label] += introduced_names(text)
        found = {label: names for label, names in introduced.items() if names}
        with self._lock:
            held = self._intros.get(key)
            if held is not None and held[1] == found:
                found = held[1]  # the same names: an index built with them stays current
            if len(self._intros) >= MAX_SCOPE_SETS and key not in self._intros:
                self._intros.pop(next(iter(self._intros)))
            self._intros[key] = (time.monotonic(), found)
        return found

    def _refresh_introduced(self, key: Key, scopes: Filters | None) -> None:
        try:
            self._read_introduced(key, scopes)
        except Exception as exc:  # a closed store, a busy file: the old names keep answering
            log.debug("self-introductions not read again: %s", exc)
        finally:
            with self._lock:
                self._intros_reading.discard(key)

    def _read_quietly(self, key: Key, token: object) -> None:
        try:
            self._read(key, token)
        except Exception as exc:  # a closed store, a busy file: the old set keeps answering
            log.debug("speaker labels not read again: %s", exc)
            with self._lock:
                self._reading.discard(key)


def embedded_query(
    query: str,
    query_vector: np.ndarray | None,
    named: dict[str, str] | None,
    notes: list[str],
) -> tuple[str, np.ndarray | None]:
    """(the query to embed, the query vector to use: None when the translated query must be
    embedded again); ``named``: ``SpeakerNames.named`` of the query, None when translation is
    off."""
    if not named:
        return query, query_vector
    vector_query = translated(query, named)
    if vector_query == query:
        return query, query_vector
    added = ", ".join(
        f"{label} ({alias})" for label, alias in named.items() if alias != label.casefold()
    )
    notes.append(f"names: the embedded query also says {added}")
    return vector_query, None
