"""Each pipeline stage alone, on hand-made candidates with a fixed clock."""

from __future__ import annotations

import numpy as np
import pytest

from remem.config import Config
from remem.search import diversity, gates, scoring
from remem.search.candidates import Candidate, pool_size
from remem.search.context import StageContext
from remem.search.time_intent import time_intent
from remem.text.names import NameIndex, alias_table, find_names
from remem.text.timeexpr import TimeWindow
from remem.text.tokenize import Tokenizer
from remem.types import Record
from unit.search.contexts import stage_context

NOW = 1_800_000_000.0
DAY = 86400.0


def cfg(**overrides) -> Config:
    return Config.load(env={}, overrides=overrides)


def ctx(config=None, query="q", **kw) -> StageContext:
    return stage_context(query=query, now=NOW, k=10, config=config or cfg(), **kw)


def cand(
    rowid,
    score=0.5,
    text="some text",
    age_days=0.0,
    vector_score=None,
    lexical=False,
    **record_fields,
) -> Candidate:
    record_fields.setdefault("kind", "message")
    rec = Record(
        id=f"r{rowid}",
        text=text,
        created_at=NOW - age_days * DAY,
        rowid=rowid,
        **record_fields,
    )
    c = Candidate(
        rowid,
        vector_score=vector_score,
        vector_rank=1 if vector_score else None,
        lexical_rank=1 if lexical else None,
        record=rec,
    )
    c.score = c.fused = score
    return c


def test_pool_size():
    assert pool_size(3, floor=20, factor=4, role_factor=8, role_filter=False) == 20
    assert pool_size(10, floor=20, factor=4, role_factor=8, role_filter=False) == 40
    assert pool_size(10, floor=20, factor=4, role_factor=8, role_filter=True) == 80


def test_min_semantic_drops_weak_vector_only_hits_and_says_so():
    c = ctx(cfg(**{"search.min_semantic": 0.8}))
    out = gates.min_semantic(
        [
            cand(1, vector_score=0.9),
            cand(2, vector_score=0.5),
            cand(3, vector_score=0.5, lexical=True),
        ],
        c.request,
        c.report,
    )
    assert [x.rowid for x in out] == [1, 3]  # lexical matches pass
    assert c.report.dropped[0].stage == "min_semantic" and c.report.dropped[0].record_id == "r2"
    off = ctx()
    assert gates.min_semantic([cand(4, vector_score=0.1)], off.request, off.report) != []  # 0 = off


def test_noise_gate():
    c = ctx()
    out = gates.noise(
        [
            cand(1, text="hi Bob!"),
            cand(2, text="I moved to Berlin"),
            cand(3, text="你怎么又忘了"),
            cand(4, text="HEARTBEAT_OK"),
        ],
        c.request,
        c.report,
    )
    assert [x.rowid for x in out] == [2]
    assert {d.stage for d in c.report.dropped} == {"noise"}
    off = ctx(cfg(**{"noise.enabled": False}))
    assert len(gates.noise([cand(1, text="hi")], off.request, off.report)) == 1


@pytest.mark.parametrize(
    "query", ["ok", "thanks!", "谢谢", "晚安～", "hi Bob", "😀", "...", "？？？"]
)
def test_a_query_that_is_only_noise_has_nothing_to_look_for(query):
    assert gates.noise_query(query, ctx(), frozenset()).startswith("noise gate:")
    # switched off in the config or for this search: searched like any other query
    assert gates.noise_query(query, ctx(cfg(**{"noise.enabled": False})), frozenset()) is None
    assert gates.noise_query(query, ctx(), frozenset({"noise"})) is None


@pytest.mark.parametrize(
    "query", ["Bob?", "thanks for the hut tips", "谢谢你订的小屋在哪", "ok so when?"]
)
def test_a_query_with_content_is_not_noise(query):
    assert gates.noise_query(query, ctx(), frozenset()) is None


def test_min_score_abstains_and_explains():
    c = ctx(cfg(**{"search.min_score": 0.6}))
    assert gates.min_score([cand(1, score=0.5), cand(2, score=0.3)], c.request, c.report) == []
    assert [d.reason for d in c.report.dropped] == ["score 0.5000 < 0.6", "score 0.3000 < 0.6"]


def test_recency_is_bounded_and_monotone():
    c = ctx(cfg(**{"scoring.recency_weight": 0.1}))
    new, old = cand(1, age_days=0), cand(2, age_days=60)
    scoring.recency([new, old], c.request)
    assert new.score == pytest.approx(0.6)
    assert 0.5 < old.score < new.score
    off = cand(3)
    scoring.recency([off], ctx(cfg(**{"scoring.recency_weight": 0})).request)
    assert off.score == 0.5


def test_importance_factor():
    lo, hi = cand(1, importance=0.0), cand(2, importance=1.0)
    scoring.importance([lo, hi], ctx().request)
    assert lo.score == pytest.approx(0.35) and hi.score == pytest.approx(0.5)


def _memory(rowid, score, **metadata) -> Candidate:
    c = cand(rowid, score)
    assert c.record is not None
    c.record.kind, c.record.metadata = "memory", metadata
    return c


def test_authority_lifts_memories_kept_on_purpose_above_chat_of_similar_strength():
    chat = cand(1, 0.6)
    kept = _memory(2, 0.5)  # stored through add() or a memory tool
    said = _memory(3, 0.5, captured_by="rules", explicit=True)  # "remember that ..."
    auto = _memory(4, 0.5, captured_by="rules")
    assistant = _memory(5, 0.5, said_by="assistant")
    scoring.authority([chat, kept, said, auto, assistant], ctx().request)
    assert chat.score == 0.6 and assistant.score == 0.5
    assert kept.score == pytest.approx(0.625) and said.score == pytest.approx(0.625)
    assert auto.score == pytest.approx(0.5625)
    assert ("authority", pytest.approx(0.625)) in kept.stages
    # a chat line that matches clearly better still wins; off, similarity alone decides
    assert cand(6, 0.7).score > kept.score
    off = _memory(7, 0.5)
    scoring.authority([off], ctx(cfg(**{"scoring.authority": 0})).request)
    assert off.score == 0.5


def test_length_norm_only_damps_long_texts():
    short, long, longer = (
        cand(1, text="x" * 100),
        cand(2, text="x" * 1000),
        cand(3, text="x" * 4000),
    )
    scoring.length_norm([short, long, longer], ctx().request)
    assert short.score == 0.5
    assert long.score == pytest.approx(0.5 / 1.5)
    assert longer.score < long.score


def test_decay_bounds_and_reinforcement():
    c = ctx(cfg(**{"scoring.decay": True}))
    fresh, old, recalled = cand(1, age_days=0), cand(2, age_days=120), cand(3, age_days=120)
    recalled.record.access_count = 2
    capped = cand(4, age_days=120)
    capped.record.access_count = 100
    scoring.decay([fresh, old, recalled, capped], c.request)
    assert fresh.score == pytest.approx(0.5)
    assert 0.25 <= old.score < recalled.score < capped.score < fresh.score
    # stretch capped at 3x the half-life
    assert capped.score == pytest.approx(0.5 * (0.5 + 0.5 * np.exp(-120 / 180)))


def test_access_boost_works_without_decay_and_is_capped():
    never, twice, often = cand(1), cand(2), cand(3)
    twice.record.access_count, often.record.access_count = 2, 10_000
    scoring.access([never, twice, often], ctx().request)  # off by default: nothing moves
    assert never.score == twice.score == often.score == 0.5
    scoring.access([never, twice, often], ctx(cfg(**{"scoring.access_boost": 0.5})).request)
    assert never.score == 0.5 and [s for s, _ in never.stages] == [s for s, _ in cand(9).stages]
    assert twice.score == pytest.approx(0.5 * (1 + 0.5 * np.log(3)))
    assert often.score == pytest.approx(0.5 * 3.0)  # reinforcement_cap


def test_time_weighting_formula():
    c = ctx(cfg(**{"scoring.time_weight": 0.3}))
    x = cand(1, age_days=10, score=0.8)
    scoring.time_weighting([x], c.request)
    assert x.score == pytest.approx(0.7 * 0.8 + 0.3 * np.exp(-1.0))


def test_same_user_boost_only_when_enabled():
    own, mention, other = (
        cand(1, speaker_id="u1"),
        cand(2, mentions=["u1"]),
        cand(3, speaker_id="u2"),
    )
    scoring.same_user([own, mention, other], ctx(asker="u1", same_user_boost=True).request)
    assert (own.score, mention.score, other.score) == (1.0, 1.0, 0.5)
    x = cand(4, speaker_id="u1")
    scoring.same_user([x], ctx(asker="u1", same_user_boost=False).request)
    assert x.score == 0.5


def test_self_reference_weighs_the_assistant_down_under_a_question_about_the_asker():
    def scored(query, **overrides):
        said, replied, other = (
            cand(1, role="user"),
            cand(2, role="assistant"),
            cand(3),  # no role: kept as it is
        )
        scoring.self_reference([said, replied, other], ctx(cfg(**overrides), query=query).request)
        return said.score, replied.score, other.score

    assert scored("How many fitness classes do I attend?") == (0.5, 0.25, 0.5)
    assert scored("我的车是什么牌子？") == (0.5, 0.25, 0.5)
    # put to the assistant, about someone else, or turned off: nothing moves
    assert scored("What did you suggest for my trip?") == (0.5, 0.5, 0.5)
    assert scored("What did Caroline research?") == (0.5, 0.5, 0.5)
    assert scored("What do I take?", **{"scoring.self_reference": 1.0}) == (0.5, 0.5, 0.5)


def test_self_reference_reads_a_chat_turn_by_its_newest_message_whole():
    def scored(query):
        replied = cand(1, role="assistant")
        scoring.self_reference([replied], ctx(query=query).request)
        return replied.score

    assert scored("I told everyone about my plans.\nWhat did Caroline research?") == 0.5
    assert scored("Caroline said hi.\nWhat did I order?") == 0.25
    # a user's two messages in a row are one turn: "you" in the first addresses the assistant,
    # "I" in the first speaks of the asker however the second goes on
    assert (
        scored("阿坤：冇嘢\n助手：好\n阿坤：你帮我諗下，佢近唔近？\n阿坤：我妈话今年要见佢") == 0.5
    )
    assert (
        scored("Lily: hi\nAssistant: what's up?\nLily: what did I order?\nLily: at the cafe")
        == 0.25
    )
    # one long question: "our previous chat" at its start counts, however long it runs
    long = (
        "I was going through our previous chat and I wanted to remind myself, what was the "
        "name of the budgeting app that was recommended for tracking my expenses?"
    )
    assert scored(long) == 0.5


class _Names:
    """SpeakerNames over fixed labels: the search's own alias lookup, without a store."""

    def __init__(self, *labels: str) -> None:
        self.index = NameIndex(alias_table(labels))

    def named(self, query, filters):
        return find_names(query, self.index)


def _named_ctx(query, *labels, **overrides):
    names = _Names(*labels)
    return ctx(cfg(**overrides), query=query, named=names.named(query, None), speaker_names=names)


def test_named_speaker_weighs_other_speakers_lines_down():
    def scored(query, **overrides):
        own, other, memory = (
            cand(1, speaker_label="王小明"),
            cand(2, speaker_label="Melanie"),
            cand(3, speaker_label="Melanie", kind="memory"),  # a curated memory keeps its score
        )
        labels = ("王小明", "Melanie", "Caroline")
        scoring.named_speaker([own, other, memory], _named_ctx(query, *labels, **overrides))
        return own.score, other.score, memory.score

    # the forms the search's name index finds: the label, pinyin spaced or not, a nickname
    for query in ("王小明什么时候有空？", "What did Xiaoming do?", "When is Xiao Ming free?"):
        assert scored(query) == (0.5, 0.45, 0.5), query
    # named by no one, turned off, or naming someone who said nothing here: nothing moves
    assert scored("Who is allergic?") == (0.5, 0.5, 0.5)
    assert scored("What did Xiaoming do?", **{"scoring.named_speaker": 1.0}) == (0.5, 0.5, 0.5)
    assert scored("What did Caroline do?") == (0.5, 0.5, 0.5)


class _Terms:
    """term_stats and lexical_tokens over hand-made records: 100 records, each word in 5."""

    def __init__(self, cands):
        self.tokens = {c.rowid: Tokenizer().index_tokens(c.record.text) for c in cands}

    def term_stats(self, tokens):
        return 100, {t: 5 for t in tokens}

    def lexical_tokens(self, rowids):
        return {r: self.tokens[r] for r in rowids if r in self.tokens}


def test_named_speaker_spares_a_line_that_alone_says_what_is_asked():
    query = "What did Caroline realize after the charity race?"

    def scored(own_text, other_text, **overrides):
        own = cand(1, text=own_text, speaker_label="Caroline")
        other = cand(2, text=other_text, speaker_label="Melanie")
        c = _named_ctx(query, "Caroline", "Melanie", **overrides)
        c.readers.store, c.readers.tokenizer = _Terms([own, other]), Tokenizer()
        scoring.named_speaker([own, other], c)
        return other.score

    race = "The charity race made me realize how strong I am."
    # Caroline never spoke of the race: Melanie's line says what the question asks about
    assert scored("I went to a pottery class.", race) == 0.5
    # Caroline spoke of it as well: who said it counts again
    assert scored("I ran the charity race too and realize it helped.", race) == 0.45
    # the question's name is not a topic: "Thanks Caroline!" covers only the name
    assert scored("I went to a pottery class.", "Thanks Caroline! Nice weather.") == 0.45
    # off (1), or a margin above what the line adds: weighed down as before
    assert (
        scored("I went to a pottery class.", race, **{"scoring.named_speaker_spare": 1.0}) == 0.45
    )
    assert (
        scored("I went to a pottery class.", race, **{"scoring.named_speaker_spare": 0.8}) == 0.45
    )


def test_named_speaker_reads_a_chat_turns_names_in_its_newest_message():
    def scored(query):
        own, other = cand(1, speaker_label="Caroline"), cand(2, speaker_label="Melanie")
        scoring.named_speaker([own, other], _named_ctx(query, "Caroline", "Melanie"))
        return own.score, other.score

    assert scored("Caroline was here earlier.\nWho is allergic to peanuts?") == (0.5, 0.5)
    assert scored("Hi all!\nWhat did Caroline research?") == (0.5, 0.45)


def test_session_lift():
    c = ctx(cfg(**{"scoring.session_lift": 0.2}))
    best, mate, alone = (
        cand(1, score=0.9, session="a"),
        cand(2, score=0.3, session="a"),
        cand(3, score=0.3, session="b"),
    )
    scoring.session_lift([best, mate, alone], c.request)
    assert best.score == 0.9 and mate.score == pytest.approx(0.48) and alone.score == 0.3


def test_time_intent_boost_and_filter():
    window = TimeWindow(NOW - 7 * DAY, NOW, "last week")
    inside, outside = cand(1, age_days=3), cand(2, age_days=30)
    time_intent([inside, outside], ctx(time_window=window))
    assert inside.score == pytest.approx(1.0) and outside.score == 0.5  # + boost 0.5
    c = ctx(cfg(**{"time_intent.mode": "filter"}), time_window=window)
    assert [x.rowid for x in time_intent([cand(1, age_days=3), cand(2, age_days=30)], c)] == [1]
    assert c.report.dropped[0].stage == "time_intent" and "last week" in c.report.dropped[0].reason


def _vecs(*rows):
    return {i + 1: np.asarray(r, np.float32) / np.linalg.norm(r) for i, r in enumerate(rows)}


def test_demote_moves_near_duplicates_down_but_keeps_them():
    vectors = _vecs([1, 0, 0], [1, 0.01, 0], [0, 1, 0])
    c = ctx(vectors=vectors)
    out = diversity.diversity([cand(1, 0.9), cand(2, 0.8), cand(3, 0.7)], c)
    assert [x.rowid for x in out] == [1, 3, 2]
    assert "near-duplicate" in out[-1].notes[0]
    c_off = ctx(cfg(**{"diversity.mode": "off"}), vectors=vectors)
    assert [x.rowid for x in diversity.diversity([cand(1, 0.9), cand(2, 0.8)], c_off)] == [1, 2]


def test_a_near_duplicate_ranks_at_a_share_of_its_score_not_below_everything():
    """0.7 x 0.8 = 0.56: below the hit it repeats and a close one (0.6), above a far lower
    one (0.2), as in a haystack where other chats' lines fill the bottom; 0: the very end."""
    vectors = _vecs([1, 0, 0], [1, 0.01, 0], [0, 1, 0], [0, 0, 1])
    cands = [cand(1, 0.9), cand(2, 0.8), cand(3, 0.6), cand(4, 0.2)]
    out = diversity.diversity(list(cands), ctx(vectors=vectors))
    assert [x.rowid for x in out] == [1, 3, 2, 4]
    assert out[2].score == 0.8 and "0.7 x its score" in out[2].notes[0]
    last = ctx(cfg(**{"diversity.demote_factor": 0.0}), vectors=vectors)
    assert [x.rowid for x in diversity.diversity(list(cands), last)] == [1, 3, 4, 2]
    # a negative score is lowered too, never raised past the hit below it
    low = [cand(1, 0.9), cand(2, -0.5), cand(3, -0.6), cand(4, -0.8)]
    assert [x.rowid for x in diversity.diversity(low, ctx(vectors=vectors))] == [1, 3, 2, 4]


def test_a_repeat_never_jumps_the_hits_a_session_quota_moved():
    """With diversity.max_per_session the kept order is the quota's, not the scores': a
    repeat goes to the end rather than ahead of the session the quota made room for."""
    vectors = _vecs([1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0.01, 0])
    cands = [
        cand(1, 1.0, session="s1"),
        cand(2, 0.9, session="s1"),
        cand(3, 0.3, session="s2"),
        cand(4, 0.8, session="s1"),  # repeats 1
    ]
    quota = ctx(cfg(**{"diversity.max_per_session": 1}), vectors=vectors)
    assert [x.rowid for x in diversity.diversity(cands, quota)] == [1, 3, 2, 4]


def test_demote_needs_the_same_words_not_only_a_close_vector():
    # e5-small puts these two above 0.95: one topic, two different facts weeks apart
    plan = "我在练越野跑，准备报 5 月的一个 30 公里越野赛"
    done = "迟到的报告：5 月 10 号跑完了 30 公里越野赛，4 小时 52 分，完赛了"
    vectors = _vecs([1, 0, 0], [1, 0.01, 0], [0, 1, 0])
    cands = [cand(1, 0.9, text=plan), cand(2, 0.8, text=done), cand(3, 0.7)]
    assert [x.rowid for x in diversity.diversity(list(cands), ctx(vectors=vectors))] == [1, 2, 3]
    # the cosine alone (text_overlap 0) moves the later fact down, as before
    alone = ctx(cfg(**{"diversity.text_overlap": 0.0}), vectors=vectors)
    assert [x.rowid for x in diversity.diversity(list(cands), alone)] == [1, 3, 2]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("I moved to Lisbon.", "i moved to  Lisbon!"),
        ("明天開會，別遲到", "明天开会 别迟到"),  # Traditional and Simplified, other punctuation
    ],
)
def test_a_repeat_in_other_spacing_case_or_script_is_still_a_duplicate(a, b):
    vectors = _vecs([1, 0, 0], [1, 0.01, 0], [0, 1, 0])
    out = diversity.diversity(
        [cand(1, 0.9, text=a), cand(2, 0.8, text=b), cand(3, 0.7)], ctx(vectors=vectors)
    )
    assert [x.rowid for x in out] == [1, 3, 2]
    assert diversity.text_overlap(cand(1, text=a), cand(2, text=b)) == 1.0


def test_text_overlap_is_low_for_lines_that_only_share_a_topic():
    assert (
        diversity.text_overlap(
            cand(1, text="我在练越野跑，准备报 5 月的一个 30 公里越野赛"),
            cand(2, text="迟到的报告：5 月 10 号跑完了 30 公里越野赛，4 小时 52 分，完赛了"),
        )
        < 0.25
    )
    assert diversity.text_overlap(cand(1, text="!!"), cand(2, text="ok")) == 0.0


def test_a_duplicate_of_a_demoted_hit_is_judged_against_the_kept_ones_only():
    # 2 repeats 1 and moves down; 3 is close to 2 alone (not to 1): it stays
    vectors = _vecs([1, 0, 0], [1, 0.2, 0], [1, 0.45, 0])  # 1~2 0.981, 2~3 0.975, 1~3 0.912
    cands = [cand(1, 0.9), cand(2, 0.8), cand(3, 0.7)]
    config = cfg(**{"diversity.threshold": 0.97})
    assert [x.rowid for x in diversity.diversity(cands, ctx(config, vectors=vectors))] == [1, 3, 2]


def test_mmr_prefers_novelty():
    vectors = _vecs([1, 0, 0], [1, 0.05, 0], [0, 1, 0])
    c = ctx(cfg(**{"diversity.mode": "mmr", "diversity.mmr_lambda": 0.5}), vectors=vectors)
    out = diversity.diversity([cand(1, 0.9), cand(2, 0.85), cand(3, 0.6)], c)
    assert [x.rowid for x in out][:2] == [1, 3]


def test_candidates_without_vectors_are_never_duplicates():
    c = ctx(vectors=_vecs([1, 0, 0]))
    out = diversity.diversity([cand(1, 0.9), cand(2, 0.8)], c)
    assert [x.rowid for x in out] == [1, 2]


@pytest.mark.parametrize("query", ["How many concerts did I attend?", "我一共去了几次音乐会？"])
def test_aggregate_spread_moves_a_sessions_third_hit_below_other_sessions(query):
    cands = [
        cand(1, 0.9, session="a"),
        cand(2, 0.8, session="a"),
        cand(3, 0.7, session="a"),
        cand(4, 0.6, session="b"),
        cand(5, 0.5, session="c"),
    ]
    out = diversity.aggregate_spread(list(cands), ctx(query=query))
    assert [c.rowid for c in out] == [1, 2, 4, 5, 3]  # moved down, never dropped
    assert any("more than 2 hits" in n for n in out[-1].notes)


def test_aggregate_spread_leaves_other_questions_and_can_be_switched_off():
    cands = [
        cand(1, 0.9, session="a"),
        cand(2, 0.8, session="a"),
        cand(3, 0.7, session="a"),
        cand(4, 0.6, session="b"),
    ]
    assert [
        c.rowid for c in diversity.aggregate_spread(list(cands), ctx(query="Where is the hut?"))
    ] == [1, 2, 3, 4]
    off = ctx(cfg(**{"diversity.aggregate_max_per_session": 0}), query="How many huts?")
    assert [c.rowid for c in diversity.aggregate_spread(list(cands), off)] == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "query, spread",
    [
        # the assistant's count, or the user's count two messages back, is not asked now
        (
            "Priya: need a pet sitter\nAssistant: How many pets will they look after?\n"
            "Priya: you know my lot, write the ad for me",
            False,
        ),
        ("老王：下周要去亲戚家住几天\n助手：东西准备好了吗？\n老王：我每天要吃的药别忘了", False),
        ("Priya: need a pet sitter\nAssistant: Sure.\nPriya: how many cats do I have?", True),
        # the user's two messages in a row: the count is asked in the first
        (
            "Priya: need a pet sitter\nAssistant: Sure.\nPriya: how many cats do I have?\n"
            "Priya: it's for the booking form",
            True,
        ),
    ],
)
def test_aggregate_spread_reads_a_chat_turn_by_its_newest_message(query, spread):
    cands = [cand(1, 0.9, session="a"), cand(2, 0.8, session="a"), cand(3, 0.7, session="a")]
    cands.append(cand(4, 0.6, session="b"))
    out = [c.rowid for c in diversity.aggregate_spread(list(cands), ctx(query=query))]
    assert out == ([1, 2, 4, 3] if spread else [1, 2, 3, 4])


def test_a_capped_neighbour_stays_below_its_anchor_after_the_relevance_rescale():
    import math
    import random

    # the demo's "小屋一晚多少钱？": one float below its anchor, the lifted Chinese line tied
    # with the English answer once relevance rescaled both, and won the tie by rowid
    anchor, best = 0.7106506195227227, 0.5201736030835117
    assert best * math.nextafter(anchor, 0.0) / anchor == best * anchor / anchor
    assert best * anchor * (1 - scoring.BELOW) / anchor < best
    rng = random.Random(7)
    for _ in range(10_000):
        anchor, best = rng.uniform(1e-3, 3.0), rng.uniform(1e-3, 1.0)
        top = anchor * rng.uniform(1.0, 5.0)
        assert best * anchor * (1 - scoring.BELOW) / top < best * anchor / top


def test_indexed_tokens_reads_each_row_once_and_leaves_unindexed_rows_out():
    class Counting:
        def __init__(self):
            self.asked: list[list[int]] = []

        def lexical_tokens(self, rowids):
            self.asked.append(list(rowids))
            return {r: [f"t{r}"] for r in rowids if r != 3}  # row 3 is not indexed

    store = Counting()
    c = ctx(store=store)
    assert c.readers.indexed_tokens([2, 1, 3]) == {1: ["t1"], 2: ["t2"]}
    assert c.readers.indexed_tokens([3, 2, 4]) == {2: ["t2"], 4: ["t4"]}
    assert store.asked == [[1, 2, 3], [4]]  # 3 is not asked again: it was asked and is absent
    assert c.readers.indexed_tokens([1, 2]) == {1: ["t1"], 2: ["t2"]}
    assert store.asked == [[1, 2, 3], [4]]
