"""Words a rule's every match must contain, derived from its pattern: a rule whose words a
sentence lacks cannot match it, and is not run (issue 47).

Most chat states no fact, and the extractor tried every rule's regular expression on every
sentence anyway: ~40% of a writer's CPU per acknowledged message. Nearly every rule names a
verb or a noun of its own ("live", "moved", "住在", "password"), so a few substring tests on
a lowered copy of the sentence rule it out before its pattern runs.

``required(source, flags)`` walks the pattern as ``re._parser`` parses it and returns
clauses: every match contains, for each clause, at least one of the clause's strings (lowered).
Nothing is guessed: a part it cannot read (a class of many characters, a back-reference, a
character whose case folding it does not follow) only makes a clause weaker or absent, and a
pattern with no clause it can prove is always run. ``lowered(text)`` is the copy the clauses
are tested on, or None when the text holds a character whose case variants are not plain
lowercase letters (``_ODD``): then every rule runs.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from remem.text.lazy_re import lazy_compile

# The parser's modules are private ("sre_parse" warns since 3.11, and typeshed lists
# neither). The gate only saves work: on a Python whose parser moved or changed shape,
# ``required`` proves nothing and every rule runs, as before the gate (tests/unit/facts/
# test_literals.py fails loudly there, since it expects clauses).
try:
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python without the modules
    C = P = None

__all__ = ["Selector", "lowered", "required"]

LIMIT = 32  # strings an exact set may hold before it is cut into clauses
_CLASS_LIMIT = 8  # characters a class may hold and still count as letters
Clauses = tuple[frozenset[str], ...]

# Characters outside ASCII that match an ASCII letter under IGNORECASE (İ ı ſ K: found by
# scanning every code point, see tests/unit/facts/test_literals.py); text.lower() does not map
# them to that letter, so a text holding one skips the gate.
_ODD = lazy_compile("[\u0130\u0131\u017f\u212a]")
# Characters with no case that the pattern may ask for under IGNORECASE: CJK punctuation and
# the unified ideographs (no other code point matches them case-insensitively: tested).
_CASELESS = lazy_compile("[\u3000-\u303f\u4e00-\u9fff]")
_SIGMA = frozenset("\u03a3\u03c3\u03c2")  # lowered by context, not by character


def lowered(text: str) -> str | None:
    """The copy of ``text`` the clauses are tested on; None: test none, run every rule."""
    if _ODD.search(text):
        return None
    return text.lower()


def _char(code: int, icase: bool) -> str | None:
    """The character as the lowered text holds it; None when that cannot be relied on."""
    c = chr(code)
    if c in _SIGMA or len(c.lower()) != 1 or c in "\u0130\u0131\u017f\u212a":
        return None
    if icase and not (c.isascii() or _CASELESS.fullmatch(c)):
        return None
    return c.lower()


@dataclass(frozen=True, slots=True)
class _Info:
    """What a part of a pattern matches: ``exact``, every string it can match (lowered), when
    few enough to list; and ``clauses`` it is known to need."""

    exact: frozenset[str] | None
    clauses: Clauses = ()


_UNKNOWN = _Info(None)
_EMPTY = _Info(frozenset({""}))


def _score(clause: frozenset[str]) -> tuple[int, int]:
    """The better clause: longer shortest string (rarer), then fewer strings."""
    return (min(len(s) for s in clause), -len(clause))


def _minimal(strings: frozenset[str]) -> frozenset[str]:
    """The same clause without a string that contains another of its strings (implied)."""
    return frozenset(s for s in strings if not any(o != s and o in s for o in strings))


def _clause_of(exact: frozenset[str] | None) -> Clauses:
    if not exact or "" in exact:
        return ()
    return (_minimal(exact),)


def _best(info: _Info) -> frozenset[str] | None:
    """One clause this part needs (for an alternation): its exact strings or its best clause."""
    options = list(_clause_of(info.exact)) + list(info.clauses)
    return max(options, key=_score) if options else None


def _sequence(items: list[_Info]) -> _Info:
    clauses: list[frozenset[str]] = []
    run: frozenset[str] | None = frozenset({""})
    whole = True  # the run spans every item so far: it is the sequence's exact set
    for item in items:
        if item.exact is None:
            clauses += _clause_of(run)
            clauses += item.clauses
            run, whole = None, False
        elif run is None:
            run = item.exact
        elif len(run) * len(item.exact) <= LIMIT:
            run = frozenset(a + b for a in run for b in item.exact)
        else:
            clauses += _clause_of(run)
            run, whole = item.exact, False
    if whole:
        return _Info(run, tuple(clauses))
    return _Info(None, tuple(clauses + list(_clause_of(run))))


def _branch(alternatives: list[_Info]) -> _Info:
    exacts = [a.exact for a in alternatives]
    if all(e is not None for e in exacts):
        union = frozenset().union(*[e for e in exacts if e is not None])
        if len(union) <= LIMIT:
            return _Info(union)
    chosen = [_best(a) for a in alternatives]
    if any(c is None for c in chosen):
        return _UNKNOWN
    return _Info(None, (_minimal(frozenset().union(*[c for c in chosen if c is not None])),))


def _in(items: list[tuple[Any, Any]], icase: bool) -> _Info:
    chars: set[str] = set()
    for op, arg in items:
        if op is C.LITERAL:
            c = _char(arg, icase)
        elif op is C.RANGE and arg[1] - arg[0] < _CLASS_LIMIT:
            found = {_char(code, icase) for code in range(arg[0], arg[1] + 1)}
            if None in found:
                return _UNKNOWN
            chars |= {c for c in found if c is not None}
            continue
        else:  # NEGATE, a category (\w, \s), a wide range
            return _UNKNOWN
        if c is None:
            return _UNKNOWN
        chars.add(c)
    return _Info(frozenset(chars)) if 0 < len(chars) <= _CLASS_LIMIT else _UNKNOWN


def _repeat(low: int, high: int, inner: _Info) -> _Info:
    if low == 0:
        if high == 1 and inner.exact is not None:
            return _Info(inner.exact | {""})
        return _UNKNOWN
    if low == high and inner.exact is not None:
        return _sequence([inner] * low)
    return _Info(None, _clause_of(inner.exact) + inner.clauses)


def _node(op: Any, arg: Any, flags: int) -> _Info:
    icase = bool(flags & re.IGNORECASE)
    if op is C.LITERAL:
        c = _char(arg, icase)
        return _UNKNOWN if c is None else _Info(frozenset({c}))
    if op is C.IN:
        return _in(arg, icase)
    if op is C.SUBPATTERN:
        _group, add, remove, sub = arg
        return _walk(sub, (flags | add) & ~remove)
    if op is C.BRANCH:
        return _branch([_walk(alt, flags) for alt in arg[1]])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)):
        low, high, sub = arg
        return _repeat(low, high, _walk(sub, flags))
    if op is getattr(C, "ATOMIC_GROUP", None):
        return _walk(arg, flags)
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
        return _EMPTY  # zero width: adds no character to the match
    return _UNKNOWN  # ANY, NOT_LITERAL, a back-reference, a conditional group


def _walk(parsed: Any, flags: int) -> _Info:
    return _sequence([_node(op, arg, flags) for op, arg in parsed])


@functools.cache  # a rule is in several rule sets (``extract``): derived once a process
def required(source: str, flags: int = 0) -> Clauses:
    """Clauses every match of the pattern satisfies (see the module docstring), best first;
    () when none can be proven (the rule always runs)."""
    if P is None:
        return ()
    try:
        parsed = P.parse(source, flags)
        info = _walk(parsed, parsed.state.flags)
    except (AttributeError, KeyError, TypeError, ValueError):  # the private parser changed
        return ()
    clauses = set(_clause_of(info.exact)) | set(info.clauses)
    return tuple(sorted(clauses, key=lambda c: (_score(c), sorted(c)), reverse=True))


def _trie_pattern(strings: Iterable[str]) -> str:
    """One regex whose match at a position is the longest of ``strings`` starting there (a
    trie: at most one branch can go on at each character, and a shorter string is a greedy
    optional's fallback)."""
    root: dict[str, Any] = {}
    for s in strings:
        node = root
        for ch in s:
            node = node.setdefault(ch, {})
        node[""] = {}  # the end of a string

    def emit(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        if "" in node:
            return f"(?:{body})?"
        return body

    return f"(?=({emit(root)}))"


class Selector:
    """Which of a list of patterns can match a text, by one scan of its lowered copy: every
    clause string found (one regex of them all, ``_trie_pattern``), then the patterns whose
    each kept clause has a string found. ``keep``: clauses tested per pattern, the best first
    (more rule out more, and cost more per scan: 1, 2, 3, 6 gave 90, 79, 90, 113 CPU-µs per
    message over ``fact_rules_cost.py``'s texts, one pass each, load ~3)."""

    def __init__(self, patterns: Sequence[tuple[str, int]], keep: int = 2) -> None:
        clauses = [required(source, flags)[:keep] for source, flags in patterns]
        self.size = len(patterns)
        strings = sorted({s for c in clauses for clause in c for s in clause})
        self._scan = re.compile(_trie_pattern(strings)) if strings else None
        # Bit i of a mask is pattern i. Per clause rank: the patterns with no clause of that
        # rank pass it; a string found passes the patterns whose clause of that rank holds it,
        # or holds one of its prefixes (a match gives only the longest string at a position).
        self._passing = [
            sum(1 << i for i, c in enumerate(clauses) if len(c) <= rank) for rank in range(keep)
        ]
        self._masks: dict[str, tuple[int, ...]] = {}
        for s in strings:
            prefixes = {t for t in strings if s.startswith(t)}
            self._masks[s] = tuple(
                sum(1 << i for i, c in enumerate(clauses) if rank < len(c) and c[rank] & prefixes)
                for rank in range(keep)
            )
        self._everyone = list(range(self.size))

    def runnable(self, text: str) -> list[int]:
        """Indices, in order, of the patterns that may match ``text``; the others cannot."""
        low = lowered(text)
        if low is None or self._scan is None:
            return self._everyone
        hits = list(self._passing)
        for found in set(self._scan.findall(low)):
            for rank, mask in enumerate(self._masks[found]):
                hits[rank] |= mask
        run = hits[0]
        for mask in hits[1:]:
            run &= mask
        out = []
        while run:
            lowest = run & -run
            out.append(lowest.bit_length() - 1)
            run ^= lowest
        return out
