"""The link channel (``search/links.py``) over a real in-memory store: each link kind lifts
the record it links, below the hit, inside the search's filters, and nothing when off."""

from __future__ import annotations

from typing import Any

import numpy as np

from remem import Memory
from remem.config import Config
from remem.search import links, scoring
from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.search.query_names import SpeakerNames
from remem.search.stages import SCORE_STAGES
from remem.store.memory import InMemoryStore
from remem.store.queries import VectorWrite
from remem.text.tokenize import Tokenizer
from remem.types import Filters
from unit.search.contexts import stage_context

NOW = 1_800_000_000.0
TOKENIZER = Tokenizer()
# Forty records that share no name with anything: a name in 2 records of 44 is rare enough
# for links.MAX_DF (0.05)
FILLER = [(f"f{i}", f"filler line {i} about the weather") for i in range(40)]


def make_store(rows: list[tuple[str, str]], **extra: dict[str, Any]) -> InMemoryStore:
    """A store of (id, text) records; ``extra[id]``: more fields of that record."""
    store = InMemoryStore()
    out = []
    for i, (rid, text) in enumerate(rows):
        fields = {
            "id": rid,
            "kind": "message",
            "text": text,
            "scope": "global",
            "created_at": NOW - 1000 + i,
            "content_hash": f"h-{rid}",
            "importance": 0.5,
            **extra.get(rid, {}),
        }
        label = fields.get("speaker_label")
        out.append((fields, TOKENIZER.index_string(f"{label} {text}" if label else text)))
    store.insert_records(out)
    return store


def config(**overrides: Any) -> Config:
    return Config.load(env={}, overrides={"embed.provider": "none", **overrides})


def on(lift: float = 0.2, **overrides: Any) -> Config:
    """The channel on, names of any kind, capped under its own hit only (each test says what
    it changes)."""
    plain = {
        "scoring.link_kinds": ["entity"],
        "scoring.link_entities": "any",
        "scoring.link_below_top": False,
    }
    return config(**{"scoring.link_lift": lift, **plain, **overrides})


def context(store: InMemoryStore, cfg: Config, query: str = "q", **kw: Any) -> StageContext:
    return stage_context(
        query=query,
        now=NOW,
        k=10,
        config=cfg,
        store=store,
        tokenizer=TOKENIZER,
        speaker_names=SpeakerNames(store),
        **kw,
    )


def cand(store: InMemoryStore, rid: str, score: float) -> Candidate:
    rec = store.get(rid)
    assert rec is not None and rec.rowid is not None
    c = Candidate(rec.rowid, record=rec)
    c.score = c.fused = score
    return c


def by_id(cands: list[Candidate]) -> dict[str, Candidate]:
    return {c.record.id: c for c in cands if c.record is not None}


SWEDEN = [
    ("hit", "Caroline moved here from Sweden four years ago."),
    ("linked", "She still calls her grandmother in Sweden every week."),
    ("other", "I painted a sunrise by the lake."),
    *FILLER,
]


def test_the_stage_runs_after_neighbour_lift():
    names = [name for name, _ in SCORE_STAGES]
    assert names.index("link_lift") == names.index("neighbour_lift") + 1


def test_off_changes_nothing():
    store = make_store(SWEDEN)
    cands = [cand(store, "hit", 0.9), cand(store, "other", 0.3)]
    before = [(c.rowid, c.score, list(c.stages)) for c in cands]
    off = config(**{"scoring.link_lift": 0.0})
    out = links.link_lift(list(cands), context(store, off))
    assert [(c.rowid, c.score, c.stages) for c in out] == before
    # the default shape switched on does lift: the test above tests "off"
    lifted = config(**{"scoring.link_lift": 0.2})
    assert len(links.link_lift(list(cands), context(store, lifted))) == 3
    # and the defaults are off
    assert links.link_lift(list(cands), context(store, config())) == cands


def test_the_channel_is_off_by_default_in_its_measured_shape():
    cfg = config().scoring  # benchmarks/results/link-channel.json: link-ent-o-term-below-0.2
    assert (cfg.link_lift, cfg.link_kinds) == (0.0, ["entity", "term"])
    assert (cfg.link_entities, cfg.link_below_top, cfg.link_top) == ("other", True, 5)


def test_a_shared_rare_name_lifts_the_record_holding_it_below_the_hit():
    store = make_store(SWEDEN)
    out = by_id(links.link_lift([cand(store, "hit", 0.9)], context(store, on(0.2))))
    assert set(out) == {"hit", "linked"}  # "other" shares no name
    joined = out["linked"]
    assert joined.score == 0.9 * 0.2
    assert joined.stages[-1][0] == "link_lift" and "Sweden" in joined.notes[-1]
    # the same name as the only link kind: "source" alone finds nothing here
    alone = links.link_lift([cand(store, "hit", 0.9)], context(store, on(0.2, **kinds("source"))))
    assert len(alone) == 1


def kinds(*names: str) -> dict[str, Any]:
    return {"scoring.link_kinds": list(names)}


def test_the_cap_keeps_a_linked_record_below_its_hit_unless_its_own_score_is_higher():
    store = make_store(SWEDEN)
    hit, linked = cand(store, "hit", 0.9), cand(store, "linked", 0.8)
    links.link_lift([hit, linked], context(store, on(1.0)))
    assert linked.score < hit.score == 0.9
    assert linked.score >= 0.9 * (1 - 2 * scoring.BELOW)
    # already above the hit that would lift it (not a top hit: link_top 1): untouched
    hit, above = cand(store, "hit", 0.9), cand(store, "linked", 0.5)
    cfg = on(1.0, **{"scoring.link_top": 1})
    above.score = 0.95
    links.link_lift([above, hit], context(store, cfg))  # "linked" is the top hit now
    assert above.score == 0.95 and hit.score < 0.95


def test_below_top_keeps_a_linked_record_under_every_followed_hit():
    store = make_store(SWEDEN)
    hit, weak = cand(store, "hit", 0.9), cand(store, "other", 0.5)
    out = by_id(links.link_lift([hit, weak], context(store, on(1.0))))
    assert weak.score < out["linked"].score < hit.score  # under its own hit only
    hit, weak = cand(store, "hit", 0.9), cand(store, "other", 0.5)
    cfg = on(1.0, **{"scoring.link_below_top": True})
    out = by_id(links.link_lift([hit, weak], context(store, cfg)))
    assert 0.49 < out["linked"].score < weak.score == 0.5


def test_a_common_name_links_nothing(monkeypatch):
    rows = [(f"c{i}", f"line {i}: we met Caroline") for i in range(10)] + SWEDEN
    store = make_store(rows)
    out = by_id(links.link_lift([cand(store, "c0", 0.9)], context(store, on(0.2))))
    assert set(out) == {"c0"}  # "Caroline" is in 11 of 53 records
    monkeypatch.setattr(links, "MAX_DF", 1.0)
    assert len(links.link_lift([cand(store, "c0", 0.9)], context(store, on(0.2)))) > 1
    monkeypatch.setattr(links, "MAX_HOLDERS", 10)  # a big store's cap: 11 holders are many
    assert len(links.link_lift([cand(store, "c0", 0.9)], context(store, on(0.2)))) == 1


def test_the_entity_mode_decides_between_names_the_query_says_and_the_others():
    store = make_store(SWEDEN)

    def joined(mode: str, query: str) -> set[str]:
        cfg = on(0.2, **{"scoring.link_entities": mode})
        return set(by_id(links.link_lift([cand(store, "hit", 0.9)], context(store, cfg, query))))

    assert joined("query", "Where is Sweden?") == {"hit", "linked"}
    assert joined("query", "Where did she move from?") == {"hit"}
    assert joined("other", "Where is Sweden?") == {"hit"}
    assert joined("other", "Where did she move from?") == {"hit", "linked"}


def test_a_speaker_named_by_a_nickname_links_the_records_calling_them_so(monkeypatch):
    rows = [
        ("hit", "老赵的无人机是大疆的"),
        ("linked", "老赵昨天没来爬山"),
        ("label", "我明天带水"),
        *FILLER,
    ]
    speakers = {"hit": "陈思远", "linked": "王小明", "label": "赵磊"}
    extra = {rid: {"speaker_label": label} for rid, label in speakers.items()}
    store = make_store(rows, **extra)
    monkeypatch.setattr(links, "MAX_DF", 1.0)  # three records: every name is common
    out = by_id(links.link_lift([cand(store, "hit", 0.9)], context(store, on(0.2))))
    # 老赵 (the text's word) and 赵磊 (the label, on every line he wrote)
    assert {"linked", "label"} <= set(out)


def test_a_joining_record_brings_its_own_vector_for_the_relevance_stage():
    store = make_store(SWEDEN)
    linked = store.get("linked")
    assert linked is not None and linked.rowid is not None
    vec = np.array([0.6, 0.8], np.float32)
    store.put_vectors(VectorWrite("m:a", "local", "a", [(linked.rowid, vec)]))
    store.put_vectors(
        VectorWrite("m:b", "local", "b", [(linked.rowid, np.array([1.0, 0.0], np.float32))])
    )
    ctx = context(store, on(0.2), model_id="m:a")
    links.link_lift([cand(store, "hit", 0.9)], ctx)
    assert np.array_equal(ctx.found.vectors[linked.rowid], vec)  # the search's model's, no other
    bare = context(store, on(0.2))  # a search without vectors reads none
    links.link_lift([cand(store, "hit", 0.9)], bare)
    assert bare.found.vectors == {}


def test_the_term_kind_links_by_a_rare_word_the_query_lacks():
    rows = [
        ("hit", "we adopted a puppy last spring"),
        ("linked", "the puppy chewed my shoes"),
        ("other", "my shoes are new"),
        *FILLER,
    ]
    store = make_store(rows)
    cfg = on(0.2, **kinds("term"))
    out = by_id(links.link_lift([cand(store, "hit", 0.9)], context(store, cfg, "any pets?")))
    assert set(out) == {"hit", "linked"} and "puppi" in out["linked"].notes[-1]  # the stem
    # a word the query holds is the lexical channel's business, not a link
    asked = context(store, cfg, "a puppy?")
    assert "linked" not in by_id(links.link_lift([cand(store, "hit", 0.9)], asked))
    assert "linked" not in by_id(links.link_lift([cand(store, "hit", 0.9)], context(store, on())))


def test_the_term_kind_links_chinese_by_words_not_by_bigrams_across_them():
    rows = [
        ("hit", "写作和口语都要提高"),
        ("word", "口语考试很难"),  # shares the word 口语
        ("bigram", "我和口琴老师聊天"),  # shares only the bigram 和口, across two words
        *FILLER,
    ]
    store = make_store(rows)
    cfg = on(0.2, **kinds("term"))
    out = by_id(links.link_lift([cand(store, "hit", 0.9)], context(store, cfg, "怎么办")))
    assert "word" in out and "bigram" not in out


def test_a_linked_record_outside_the_filters_never_joins():
    store = make_store(SWEDEN, linked={"scope": "private"})
    scoped = context(store, on(0.5), filters=Filters(scopes=["global"]))
    out = by_id(links.link_lift([cand(store, "hit", 0.9)], scoped))
    assert "linked" not in out
    # the same store without the filter: it does join (the test above tests the filter)
    assert "linked" in by_id(links.link_lift([cand(store, "hit", 0.9)], context(store, on(0.5))))


def test_a_dropped_or_noisy_record_does_not_come_back_through_a_link():
    store = make_store(SWEDEN)
    ctx = context(store, on(0.5))
    ctx.report.drop(cand(store, "linked", 0.1), "min_score", "below the floor")
    assert "linked" not in by_id(links.link_lift([cand(store, "hit", 0.9)], ctx))
    rows = [("hit", "We met in Sweden."), ("linked", "hi Sweden!"), *FILLER]
    noisy = make_store(rows)
    quiet = on(0.5, **{"noise.enabled": False})  # the same link with the noise check off
    assert "linked" in by_id(links.link_lift([cand(noisy, "hit", 0.9)], context(noisy, quiet)))
    assert "linked" not in by_id(links.link_lift([cand(noisy, "hit", 0.9)], context(noisy, on())))


MEMORY = {"kind": "memory"}


def test_a_memory_links_its_sources_and_a_source_links_the_memory_citing_it():
    rows = [
        ("m", "The user prefers aisle seats."),
        ("s1", "put me on the aisle please"),
        ("s2", "window seats make me feel trapped"),
        ("unrelated", "what time is it"),
        *FILLER,
    ]
    store = make_store(rows, m={**MEMORY, "source_ids": ["s1", "s2"]})
    cfg = on(0.3, **kinds("source"))
    out = by_id(links.link_lift([cand(store, "m", 0.9)], context(store, cfg)))
    assert set(out) == {"m", "s1", "s2"}
    assert out["s1"].score == 0.9 * 0.3 and "source link of m" in out["s1"].notes[-1]
    # back: the source is the hit, the memory a weak candidate; a message citing nothing
    # stays as it was
    memory, weak = cand(store, "m", 0.1), cand(store, "unrelated", 0.1)
    out = by_id(links.link_lift([cand(store, "s1", 0.8), memory, weak], context(store, cfg)))
    assert memory.score == 0.1 + 0.8 * 0.3 and weak.score == 0.1


def test_a_source_outside_the_filters_never_joins():
    rows = [("m", "The user prefers aisle seats."), ("s1", "aisle please"), *FILLER]
    store = make_store(rows, m={**MEMORY, "source_ids": ["s1"]}, s1={"scope": "private"})
    cfg = on(0.3, **kinds("source"))
    scoped = context(store, cfg, filters=Filters(scopes=["global"]))
    assert set(by_id(links.link_lift([cand(store, "m", 0.9)], scoped))) == {"m"}
    assert set(by_id(links.link_lift([cand(store, "m", 0.9)], context(store, cfg)))) == {"m", "s1"}


def versions() -> InMemoryStore:
    rows = [("new", "The user lives in Berlin."), ("old", "The user lives in Paris."), *FILLER]
    return make_store(
        rows,
        new={**MEMORY, "metadata": {"supersedes": ["old"]}},
        old={**MEMORY, "metadata": {"superseded_by": "new"}, "valid_to": NOW - 10},
    )


def test_a_supersession_chain_links_both_ways():
    store = versions()
    cfg = on(0.4, **kinds("supersession"))
    out = by_id(links.link_lift([cand(store, "new", 0.9)], context(store, cfg)))
    assert set(out) == {"new", "old"} and out["old"].score == 0.9 * 0.4
    out = by_id(links.link_lift([cand(store, "old", 0.7)], context(store, cfg)))
    assert set(out) == {"new", "old"} and out["new"].score == 0.7 * 0.4


def test_a_superseded_version_stays_hidden_when_the_search_hides_them():
    store = versions()
    cfg = on(0.4, **kinds("supersession"))
    current = context(store, cfg, filters=Filters(include_superseded=False))
    assert set(by_id(links.link_lift([cand(store, "new", 0.9)], current))) == {"new"}


def test_the_whole_search_lifts_a_linked_record_only_when_on():
    def search(lift: float) -> list[str]:
        cfg = config(**{"scoring.link_lift": lift, "search.relevance_floor": 0.0})
        mem = Memory(store=InMemoryStore(), config=cfg)
        for rid, text in SWEDEN:
            mem.add(text, id=rid, embed=False)
        result = mem.search("Where did Caroline move from?", k=5, now=NOW)
        return [h.record.id for h in result.hits]

    assert "linked" not in search(0.0)
    found = search(0.3)
    assert found[:2] == ["hit", "linked"]


def test_a_joining_neighbour_brings_its_own_vector_for_the_relevance_stage():
    from remem.search.scoring import neighbour_lift

    rows = [("question", "Where did Caroline move from?"), ("answer", "From Sweden, years ago.")]
    store = make_store(rows, question={"session": "s"}, answer={"session": "s"})
    answer = store.get("answer")
    assert answer is not None and answer.rowid is not None
    vec = np.array([0.6, 0.8], np.float32)
    store.put_vectors(VectorWrite("m:a", "local", "a", [(answer.rowid, vec)]))
    ctx = context(store, config(), model_id="m:a")
    out = by_id(neighbour_lift([cand(store, "question", 0.9)], ctx))
    assert set(out) == {"question", "answer"}
    assert np.array_equal(ctx.found.vectors[answer.rowid], vec)
