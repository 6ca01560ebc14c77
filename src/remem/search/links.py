"""The link channel: records linked to the strongest hits join them, just below the hit.

A question that needs two pieces ("Where did Caroline move from?") often matches one piece
well and the other not at all; what ties them is a link the query does not spell out. The
kinds, each switched by ``scoring.link_kinds``:

- ``entity``: a name in a hit's text (a capitalised Latin word or phrase that is not just a
  sentence's first word, ``text/salient.py``, or a speaker the text names, ``search/query_names.py``) that few records
  hold (a name in more than ``MAX_DF`` of them links everything); the records holding it
  that match the query best join, ``PER_NAME`` per name;
- ``source``: a memory distilled from messages links to them (``Record.source_ids``), and a
  source among the candidates links to the memories that cite it;
- ``supersession``: a memory and the versions it replaced or that replaced it
  (``supersedes`` / ``superseded_by`` in its metadata);
- ``term``: any rare word of a hit that the query lacks, as a name (with ``entity``, the
  measured shape; the channel itself is off by default).

Every linked record is read through the search's own filters (``get_by_rowids`` and
``lexical_search`` apply them), so a link never reaches outside the scopes, kinds or validity
the caller asked for; a record a gate dropped, or noise, does not come back this way. A linked
record gains ``link_lift`` x the hit's score and stays below that hit (the rule of the capped
neighbour lift): a link brings context, only the record's own match can rank it higher.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.search.query_terms import query_weights, term_coverage
from remem.search.scoring import BELOW
from remem.store.queries import LexicalQuery
from remem.text.noise import is_noise
from remem.text.salient import salient_names
from remem.text.tokenize import Tokenizer
from remem.types import Record

# anchor rowid -> linked rowid -> (the linked record, why it is linked)
Links = dict[int, dict[int, tuple[Record, str]]]
IdsOf = Callable[[Record], Iterable[str]]  # the ids a record links to

_WORDS = Tokenizer("words")  # Chinese as the segmenter's words (the ``term`` kind)
SEARCH_FACTOR = 4  # rows read per name, of which the best query matches are kept
PER_NAME = 3  # records lifted per shared name
NAMES_PER_HIT = 3  # the rarest names of each hit are followed
# A name in more than this share of the records links nearly everything (a speaker's label
# sits on each of their lines): it links nothing.
MAX_DF = 0.05
# and in a big store, in more than this many: each name is one keyword search over its holders
MAX_HOLDERS = 500


def _record_names(rec: Record, ctx: StageContext) -> list[str]:
    """Names of a hit: its capitalised names, and the speakers it names (the label, and the
    form the text calls them by: "老赵" for 赵磊)."""
    text = rec.shown_text
    names = salient_names(text)
    if ctx.readers.speaker_names is not None:
        for label, alias in ctx.readers.speaker_names.named(text, ctx.request.filters).items():
            names += [label, alias]
    return list(dict.fromkeys(n for n in names if n))


def _hit_names(
    c: Candidate, ctx: StageContext, asked: set[str], own: list[str], terms: bool
) -> list[tuple[tuple[str, ...], str]]:
    """(tokens, as written) of each name of a hit, or with ``terms`` of each of its own words
    the query does not hold."""
    assert c.record is not None and ctx.readers.tokenizer is not None
    if terms:
        # Chinese: the segmenter's words only, the index's bigrams also span two words ("和口"
        # of 写作和口语) and linked zh_groupchat turns at random; no one-character words
        words = set(_WORDS.phrase_tokens(c.record.shown_text))
        return [
            ((t,), t)
            for t in dict.fromkeys(own)
            if t not in asked and len(t) > 1 and (t.isascii() or t in words)
        ]
    mode, out = ctx.request.config.scoring.link_entities, []
    for name in _record_names(c.record, ctx):
        tokens = tuple(ctx.readers.tokenizer.phrase_tokens(name))
        in_query = set(tokens) <= asked
        if tokens and {"any": True, "query": in_query, "other": not in_query}[mode]:
            out.append((tokens, name))
    return out


def _pick_names(
    top: list[Candidate], ctx: StageContext, terms: bool = False
) -> tuple[dict[int, list[tuple[str, ...]]], dict[tuple[str, ...], str]]:
    """Per hit, the token tuples of its rarest names (or ``terms``) that pass ``MAX_DF`` and
    the ``link_entities`` mode; and each tuple's name as written (for the trace)."""
    assert ctx.readers.store is not None and ctx.readers.tokenizer is not None
    asked = set(ctx.readers.tokenizer.query_tokens(ctx.request.query))
    own = ctx.readers.indexed_tokens([c.rowid for c in top])
    per_hit: dict[int, list[tuple[str, ...]]] = {}
    shown: dict[tuple[str, ...], str] = {}
    for c in top:
        named = _hit_names(c, ctx, asked, own.get(c.rowid, []), terms)
        per_hit[c.rowid] = [tokens for tokens, _ in named]
        for tokens, name in named:
            shown.setdefault(tokens, name)
    if not shown:
        return {}, {}
    n, df = ctx.readers.store.term_stats(sorted({t for tokens in shown for t in tokens}))
    rarity = {t: min(df.get(w, 0) for w in t) for t in shown}  # as rare as its rarest word
    limit = min(MAX_DF * n, MAX_HOLDERS)
    for rowid, names in per_hit.items():
        # held by the hit alone links nothing (a speaker the text names by a nickname is
        # held by their own lines, not the hit's); by too many, everything
        mine = set(own.get(rowid, ()))
        kept = [t for t in dict.fromkeys(names) if (set(t) <= mine) < rarity[t] <= limit]
        per_hit[rowid] = sorted(kept, key=rarity.__getitem__)[:NAMES_PER_HIT]
    return per_hit, shown


def entity_links(
    top: list[Candidate], cands: list[Candidate], ctx: StageContext, terms: bool = False
) -> Links:
    """Records sharing a rare name (``terms``: a rare word) with a hit, those that match the
    query best first."""
    if ctx.readers.store is None or ctx.readers.tokenizer is None:
        return {}
    per_hit, shown = _pick_names(top, ctx, terms)
    wanted = {tokens for names in per_hit.values() for tokens in names}
    if not wanted:
        return {}
    store, want = ctx.readers.store, PER_NAME + 1  # the hit itself is among the holders
    found = {
        tokens: [
            r
            for r, _ in store.lexical_search(
                LexicalQuery(tokens, ctx.request.filters, ctx.request.now), SEARCH_FACTOR * want
            )
        ]
        for tokens in wanted
    }
    indexed = ctx.readers.indexed_tokens(sorted({r for rows in found.values() for r in rows}))
    weights = query_weights(ctx)
    best: dict[tuple[str, ...], list[int]] = {}
    for tokens, rows in found.items():
        # BM25 over the name's words also finds rows holding only one of them: keep the
        # holders of the whole name, then those sharing most of the question's words
        # (BM25 order breaks ties: the list is best first and the sort is stable)
        holders = [r for r in rows if set(tokens) <= set(indexed.get(r, ()))]
        holders.sort(
            key=lambda r: -term_coverage(weights, indexed.get(r, ()), ctx.understood.forms)
        )
        best[tokens] = holders[:want]
    records = store.get_by_rowids(
        sorted({r for rows in best.values() for r in rows}), ctx.request.filters, ctx.request.now
    )
    links: Links = {}
    for anchor, names in per_hit.items():
        out = links.setdefault(anchor, {})
        for tokens in names:
            held = [r for r in best[tokens] if r != anchor and r in records]
            for rowid in held[:PER_NAME]:
                out.setdefault(rowid, (records[rowid], f"shares '{shown[tokens]}'"))
    return links


def _by_ids(
    top: list[Candidate], cands: list[Candidate], ctx: StageContext, ids_of: IdsOf, why: str
) -> Links:
    """Links named by record ids (``ids_of`` a record), followed both ways: a hit's ids are
    read through the search's filters; a candidate naming a hit's id links back to it."""
    assert ctx.readers.store is not None
    wanted = {c.rowid: list(ids_of(c.record)) for c in top if c.record is not None}
    all_ids = sorted({i for ids in wanted.values() for i in ids})
    records: dict[str, Record] = {}
    if all_ids:
        rowids = ctx.readers.store.rowids_for_ids(all_ids)
        records = {
            r.id: r
            for r in ctx.readers.store.get_by_rowids(
                rowids, ctx.request.filters, ctx.request.now
            ).values()
        }
    links: Links = {}
    for c in top:
        assert c.record is not None
        out = links.setdefault(c.rowid, {})
        for i in wanted.get(c.rowid, []):
            rec = records.get(i)
            if rec is not None and rec.rowid is not None and rec.rowid != c.rowid:
                out.setdefault(rec.rowid, (rec, f"{why} {c.record.id}"))
        for other in cands:  # back-links: only among the candidates (no reverse index)
            named = other.record is not None and c.record.id in ids_of(other.record)
            if named and other.rowid != c.rowid:
                assert other.record is not None
                out.setdefault(other.rowid, (other.record, f"{why} {c.record.id}"))
    return links


def _version_ids(rec: Record) -> list[str]:
    meta = rec.metadata or {}
    older, newer = meta.get("supersedes"), meta.get("superseded_by")
    return [i for i in [*(older if isinstance(older, list) else []), newer] if isinstance(i, str)]


def source_links(top: list[Candidate], cands: list[Candidate], ctx: StageContext) -> Links:
    return _by_ids(top, cands, ctx, lambda rec: rec.source_ids, "source link of")


def supersession_links(top: list[Candidate], cands: list[Candidate], ctx: StageContext) -> Links:
    return _by_ids(top, cands, ctx, _version_ids, "another version of")


FINDERS: dict[str, Callable[[list[Candidate], list[Candidate], StageContext], Links]] = {
    "entity": entity_links,
    "source": source_links,
    "supersession": supersession_links,
    "term": lambda top, cands, ctx: entity_links(top, cands, ctx, terms=True),
}


def link_lift(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """Records linked to the best ``link_top`` candidates gain ``link_lift`` x the hit's
    score, capped just below it, joining the candidates when absent."""
    cfg = ctx.request.config.scoring
    if cfg.link_lift <= 0 or cfg.link_top <= 0 or not cfg.link_kinds or ctx.readers.store is None:
        return cands
    top = sorted(cands, key=lambda c: (-c.score, c.rowid))[: cfg.link_top]
    links: Links = {c.rowid: {} for c in top}
    for kind in dict.fromkeys(cfg.link_kinds):
        for anchor, linked in FINDERS[kind](top, cands, ctx).items():
            for rowid, item in linked.items():
                links[anchor].setdefault(rowid, item)
    return _lift(cands, top, links, ctx)


def _lift(
    cands: list[Candidate], top: list[Candidate], links: Links, ctx: StageContext
) -> list[Candidate]:
    cfg = ctx.request.config.scoring
    excluded = {d.rowid for d in ctx.report.dropped}  # a gate's verdict stands
    by_rowid = {c.rowid: c for c in cands}
    # rowid -> (gain, the most it may reach, the record, why)
    gains: dict[int, tuple[float, float, Record, str]] = {}
    # with link_below_top, under the weakest of the followed hits: a link fills the ranks
    # after them and never moves one of them down
    floor = top[-1].score * (1 - BELOW) if top[-1].score > 0 else -math.inf
    for c in top:
        for rowid, (rec, why) in links.get(c.rowid, {}).items():
            if rowid in excluded or (ctx.request.config.noise.enabled and is_noise(rec.text)):
                continue
            gain = cfg.link_lift * c.score
            # a relative margin below the hit, as neighbour_lift's cap: it survives the
            # relevance stage's rescaling
            limit = c.score * (1 - BELOW) if c.score > 0 else -math.inf
            limit = min(limit, floor) if cfg.link_below_top else limit
            if gain > gains.get(rowid, (0.0,))[0]:
                gains[rowid] = (gain, limit, rec, why)
    ctx.read_vectors([r for r in gains if r not in by_rowid])
    for rowid, (gain, limit, rec, why) in gains.items():
        cand = by_rowid.get(rowid)
        if cand is None:
            cand = Candidate(rowid, record=rec)
            cand.stages.append(("link", 0.0))
            by_rowid[rowid] = cand
            cands.append(cand)
        if cand.score < limit:
            cand.set("link_lift", min(cand.score + gain, limit))
            cand.notes.append(f"link: {why}")
    return cands
