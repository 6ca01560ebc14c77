"""The relevance floors (0.6 for a candidate judged by latent terms, 0.9 for one holding no
word of the question, 0.35 for one in the other script, 0.25 without latent terms)
and the neighbour cap (off by default) with the real bundled model, on the bundled sample
conversation (the one `remem demo` shows): nothing relevant means nothing returned and nothing
injected, scores stay in [0, 1], and the demo's questions find their answer first."""

from __future__ import annotations

import pytest

from helpers import HashEmbedder, sample_conversation
from remem import Config, Memory, Turn
from remem.text.budget import tail_within

SAMPLE = sample_conversation()
NOW = 1_790_000_000.0
# the settings under test, as a user turns them on
FLOOR_AND_CAP = {
    "indexing.mode": "sync",
    "search.relevance_floor": 0.25,
    "scoring.neighbour_cap": True,
}


OFF_TOPIC = ["What is the capital of Australia?", "我昨天晚上看了一场足球比赛，太精彩了"]
NOISE = ["😀", "ok", "thanks", "谢谢", "...", "🎉🎉🎉"]  # greetings, acknowledgements, emoji


def _sample_store(tmp_path_factory, e5, overrides):
    config = Config.load(env={}, overrides=overrides)
    with Memory(tmp_path_factory.mktemp("demo") / "d.db", config, embedder=e5) as mem:
        mem.ingest_many(SAMPLE, wait=True)
        yield mem


@pytest.fixture(scope="module")
def demo(tmp_path_factory, e5):
    yield from _sample_store(tmp_path_factory, e5, FLOOR_AND_CAP)


@pytest.fixture(scope="module")
def demo_defaults(tmp_path_factory, e5):
    yield from _sample_store(tmp_path_factory, e5, {"indexing.mode": "sync"})


@pytest.fixture(scope="module")
def demo_dense(tmp_path_factory, e5):
    # without the latent terms (as with another model): the dense evidence and its floor
    yield from _sample_store(
        tmp_path_factory, e5, {"indexing.mode": "sync", "search.latent_top": 0}
    )


@pytest.mark.parametrize("query", OFF_TOPIC)
def test_off_topic_questions_return_nothing_by_the_latent_floor(demo_defaults, query):
    assert Config().search.latent_relevance_floor == 0.6
    assert Config().search.wordless_relevance_floor == 0.9
    result = demo_defaults.search(query, k=5)
    assert result.hits == []
    # the best candidate holds a word of the question (0.6) or none (0.9)
    gates = ("< search.latent_relevance_floor 0.6", "< search.wordless_relevance_floor 0.9")
    assert any(g in n for n in result.notes for g in gates)


@pytest.mark.parametrize("query", OFF_TOPIC)
def test_without_latent_terms_the_dense_floor_decides(demo_dense, query):
    result = demo_dense.search(query, k=5)
    assert result.hits == []
    assert any("< search.relevance_floor 0.25" in n for n in result.notes)
    assert not any("latent terms" in n for n in result.notes)


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("Who has a food allergy?", "allergic to peanuts"),
        # 什么时候 ("when") is no keyword: its 时候 matched "登山的时候帮我提醒一下大家"
        ("小明什么时候有空？", "中旬以后都有空"),
        ("小屋一晚多少钱？", "The hut costs 65 euros"),
        ("Where does Alice work now?", "robotics startup in Munich"),
    ],
)
def test_with_latent_terms_the_demo_questions_still_find_their_answer(demo_defaults, query, answer):
    result = demo_defaults.search(query, k=3)
    hits = result.hits
    assert any(answer in h.record.text for h in hits), [h.record.text for h in hits]
    assert any(n.startswith("relevance: the latent terms of the best") for n in result.notes)
    assert all(0.0 <= h.score <= 1.0 for h in hits)


class CountingLatentTerms:
    """The bundled model, counting the texts it reads latent terms of."""

    def __init__(self, model) -> None:
        self._model = model
        self.read: list[str] = []

    def __getattr__(self, name):
        return getattr(self._model, name)

    def latent_terms(self, texts, *, query=False):
        self.read += list(texts)
        return self._model.latent_terms(texts, query=query)


def test_a_search_reads_the_stored_latent_terms_and_computes_only_the_questions(demo_defaults, e5):
    store = demo_defaults.store
    assert store.count_missing_latent_terms(e5.latent_model_id) == 0  # the sync ingest's
    counting = CountingLatentTerms(e5)
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(store.path, config, embedder=counting) as mem:
        result = mem.search("Who has a food allergy?", k=3)
    assert "allergic to peanuts" in result.hits[0].record.text
    assert counting.read == ["Who has a food allergy?"]


def test_an_english_question_keeps_a_chinese_answer_by_the_witness_not_latent_terms(
    demo_defaults,
):
    # the sparse head's terms barely meet across languages: candidates in the other script
    # are judged by the dense floor with the cross-script witness
    result = demo_defaults.search("Who is allergic to peanuts?", k=5)
    assert any("allergic to peanuts" in h.record.text for h in result.hits)


@pytest.mark.parametrize("query", OFF_TOPIC)
def test_nothing_relevant_returns_nothing_and_names_the_gate(demo, query):
    result = demo.search(query, k=5)
    assert result.hits == []
    # under every floor and without a likely answer: the answerability stage names both
    assert any(n.startswith("answerability gate: nothing relevant") for n in result.notes)
    assert {d["stage"] for d in result.dropped} >= {"answerability"}


@pytest.mark.parametrize("query", OFF_TOPIC)
def test_the_default_floor_returns_nothing_for_off_topic_questions(demo_defaults, query):
    assert Config().search.relevance_floor == 0.25
    assert Config().search.latent_top == 10
    result = demo_defaults.search(query, k=5)
    assert result.hits == []
    assert any(n.startswith("answerability gate: nothing relevant") for n in result.notes)
    # and the demo's own questions still find their answer
    assert demo_defaults.search("Who has a food allergy?", k=5).hits


@pytest.mark.parametrize("query", NOISE)
def test_a_noise_query_returns_nothing_and_names_the_noise_gate(demo_defaults, query):
    result = demo_defaults.search(query, k=5)
    assert result.hits == [] and result.dropped == []
    assert result.notes == [
        "noise gate: the query is only a greeting, acknowledgement, emoji or punctuation"
    ]


def test_without_the_noise_gate_the_relevance_floor_still_rejects_an_emoji(demo_defaults):
    result = demo_defaults.search("😀", k=5, disable=("noise",))
    assert result.hits == []
    assert any(n.startswith("answerability gate: nothing relevant") for n in result.notes)
    # and a word that the sample says ("谢谢Alice", "Thanks Xiaoming") is found when asked for
    assert demo_defaults.search("thanks", k=5, disable=("noise",)).hits


CROSS_LINGUAL = pytest.mark.xfail(
    strict=True,
    reason="the answer is an English line whose one word in common with the question is "
    "'booked' (订, book: word_senses.CHINESE_SENSES); the Chinese line about booking huts "
    "ahead matches 小屋 and 预订 and e5-small ranks it first, the answer third (issue 17, "
    "cross-lingual recall)",
)


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("Who has a food allergy?", "allergic to peanuts"),
        # 什么时候 ("when") is no keyword: its 时候 matched "登山的时候帮我提醒一下大家"
        ("小明什么时候有空？", "中旬以后都有空"),
        pytest.param("哪个山间小屋已经订好了？", "I booked Rifugio Firenze", marks=CROSS_LINGUAL),
        # an English answer to a Chinese question: the dictionary's 'hut', 'night' find it
        ("小屋一晚多少钱？", "The hut costs 65 euros"),
        # the employer is described ("a robotics startup in Munich"), not named: read as
        # Alice's current works_at, the currency stage puts its line above "Small team, ..."
        ("Where does Alice work now?", "robotics startup in Munich"),
    ],
)
def test_demo_questions_find_their_answer_first_with_scores_in_0_1(demo_defaults, query, answer):
    hits = demo_defaults.search(query, k=5).hits  # as `make demo` asks them
    assert all(0.0 <= h.score <= 1.0 for h in hits)  # each hit's answerability
    # the hits come in the order of the score they show (search.hit_order), unless the
    # currency stage placed one (what is true now keeps its place)
    if not any(name == "currency" for h in hits for name, _ in h.explain.stages):
        shown = [h.score for h in hits]
        assert shown == sorted(shown, reverse=True)
    assert answer in hits[0].record.text, [h.record.text for h in hits]


def test_a_lifted_neighbour_stays_below_the_hit_that_lifted_it(tmp_path):
    config = Config.load(env={}, overrides=FLOOR_AND_CAP)
    turns = [
        ("t1", "We booked the mountain hut near the pass for Saturday"),
        ("t2", "Nice, that mountain hut has a great view"),  # a weaker match of its own
        ("t3", "Completely unrelated: my bike needs new tyres"),
    ]
    with Memory(tmp_path / "n.db", config, embedder=HashEmbedder()) as mem:
        mem.ingest_many(
            [
                {"id": i, "session": "s", "speaker": "A", "text": t, "timestamp": NOW + n}
                for n, (i, t) in enumerate(turns)
            ]
        )
        hits = mem.search("booked mountain hut", k=3, now=NOW + 10, channels=("lexical",)).hits
    assert [h.record.id for h in hits] == ["t1", "t2", "t3"]
    t1, t2 = dict(hits[0].explain.stages), dict(hits[1].explain.stages)
    # t2's own score plus its lift (half of t1's) would pass t1; the cap keeps it below
    assert t2["importance"] + 0.5 * t1["importance"] > t1["importance"]
    assert t2["importance"] < t2["neighbour_lift"] < t1["importance"]


@pytest.mark.parametrize("text", ["😀", "我昨天晚上看了一场足球比赛，太精彩了"])
def test_an_off_topic_turn_injects_nothing(demo, text):
    demo.ingest(
        {
            "id": f"turn-{len(text)}",
            "session": "group:hiking-club",
            "speaker": "小明",
            "text": text,
            "timestamp": NOW,
        }
    )
    out = demo.recall_for_turn(
        Turn(session="group:hiking-club", inputs=[f"turn-{len(text)}"], now=NOW + 1)
    )
    assert out.hits == []
    assert out.block == ""


def test_the_shipped_neutral_vectors_are_the_bundled_models_own():
    """The relevance baseline's NEUTRAL vectors ship with the bundled model (a first search
    does not embed them); when NEUTRAL or the model changes, they must be written again with
    `python -m remem.embed.calibrations`."""
    import numpy as np

    from remem.embed.calibrations import NEUTRAL, shipped_neutral_vectors
    from remem.embed.local import E5Embedder

    embedder = E5Embedder()
    shipped = shipped_neutral_vectors(embedder.model_id)
    assert shipped is not None
    fresh = np.asarray(embedder.embed_passages(list(NEUTRAL)), np.float32)
    assert shipped.shape == fresh.shape
    assert np.allclose(shipped, fresh, atol=1e-4)
    assert shipped_neutral_vectors("local:use-multilingual-v3") is None
    assert shipped_neutral_vectors("openai:multilingual-e5-small") is None


# A user's notes (dialogue_notes' en01, written for remem) and a chat whose newest message is
# a follow-up: the note answering it is about the chat's first message (issue 46)
LILY = [
    "Lily drinks flat whites with oat milk and never takes sugar.",
    "Lily's daughter Emma is eight and has been learning the violin since September.",
    "Lily is allergic to penicillin; she had a bad reaction to it as a teenager.",
    "Lily works as a physiotherapist at a sports clinic in Bristol.",
    "Lily is training for the Bath half marathon in March and runs three times a week.",
    "Lily drives a grey Skoda Octavia estate.",
    "Lily's mother lives alone in Cardiff and Lily visits her every other Sunday.",
    'Lily loved "Tomorrow, and Tomorrow, and Tomorrow" and wants more novels like it.',
    "Lily grows tomatoes and courgettes in a small allotment near her house.",
    "Lily tries to avoid red meat during the week.",
    "Lily is scared of flying and prefers trains for trips in Europe.",
    "Lily's wedding anniversary with her husband Tom is on 14 June.",
]
KNEE_CHAT = (
    "Lily: my knee is sore after today's session\n"
    "Assistant: Sorry about that. Was it a long run?\n"
    "Lily: 16 km. Should I worry, given what I'm training for and when it is?"
)


def test_a_chat_is_judged_by_more_than_its_newest_message(db_path, config, e5):
    # embedded by its last 32 tokens (the newest message and a half), the chat's relevance to
    # the marathon note fell under every floor and the search returned nothing; by default
    # (search.chat_embed_tokens = 128, decision 0022) a chat by someone the store knows is
    # judged on the whole chat
    with Memory(db_path, config, embedder=e5) as memory:
        marathon = _store_lily(memory)[4]
        hits = memory.search(KNEE_CHAT, k=10, now=1_784_505_600).hits
        assert hits and hits[0].record.id == marathon


def test_a_strangers_chat_is_embedded_as_a_question(db_path, config, e5):
    # the same chat said by someone the store has never heard of is someone else's: its
    # older messages only bring its small talk nearer to the store's own (decision 0022:
    # unrelated chats answered 8.7 / 7.5 points more often at 128), so the vector channel and
    # the relevance stage read its last search.query_embed_tokens as for a question
    config.search.chat_embed_tokens = 128
    stranger = KNEE_CHAT.replace("Lily:", "Marcus:")
    with Memory(db_path, config, embedder=e5) as memory:
        _store_lily(memory)
        searcher = memory.searcher
        embedded = searcher.embed_query(e5, stranger)
        as_question = e5.embed_queries([tail_within(stranger, config.search.query_embed_tokens)])
        as_chat = e5.embed_queries([tail_within(stranger, 128)])
        assert float(embedded @ as_question[0]) > 0.9999
        assert float(embedded @ as_chat[0]) < 0.99
        # Lily's own chat keeps the chat's budget
        own = searcher.embed_query(e5, KNEE_CHAT)
        assert float(own @ e5.embed_queries([tail_within(KNEE_CHAT, 128)])[0]) > 0.9999


def _store_lily(memory: Memory) -> list[str]:
    """Lily's notes, a minute apart on 2026-01-01; their ids."""
    start = 1_767_225_600  # the notes a minute apart on 2026-01-01, the chat in July
    notes = [
        {
            "text": t,
            "session": "lily",
            "speaker": "memory",
            "role": "assistant",
            "timestamp": start + 60 * i,
        }
        for i, t in enumerate(LILY)
    ]
    return [r.id for r in memory.ingest_many(notes)]


# dialogue_notes' en01 chats whose notes answer them through an inference, not their words:
# judged on the whole chat (128 tokens) their notes scored 0.01-0.56 under the latent floor
# (0.6), and the searches returned nothing (issue 46: 40 of dialogue_notes' 100 English chats)
INFERRED = {
    "Lily: we're planning a week in Italy in May\n"
    "Assistant: Sounds wonderful! Rome, Florence?\n"
    "Lily: Florence and Venice. How should we get there from London, thinking about "
    "what I'm like?": 10,
    "Lily: the car is making a weird rattling noise\n"
    "Assistant: That's annoying. When did it start?\n"
    "Lily: yesterday on the motorway. Which garages near me service my make?": 5,
}


@pytest.mark.parametrize("chat", INFERRED)
def test_a_chat_by_someone_the_store_knows_is_not_emptied_by_the_latent_floor(
    db_path, config, e5, chat
):
    # search.dialogue_relevance_floor (0.05, decision 0025) holds the lines of a chat by
    # someone the store knows that hold one of its words: its note is found among the best
    with Memory(db_path, config, embedder=e5) as memory:
        answer = _store_lily(memory)[INFERRED[chat]]
        result = memory.search(chat, k=10, now=1_784_505_600)
        assert answer in [h.record.id for h in result.hits], result.notes


def test_a_strangers_chat_keeps_the_floors_of_a_question(db_path, config, e5):
    # the same chats said by someone the store has never heard of are read as questions and
    # held to a question's floors: none of them finds anything in Lily's notes
    with Memory(db_path, config, embedder=e5) as memory:
        _store_lily(memory)
        for chat in INFERRED:
            stranger = chat.replace("Lily:", "Marcus:")
            assert memory.search(stranger, k=10, now=1_784_505_600).hits == []


# A chat by Lily about something her notes never mention: it holds none of their words but
# her name, so only her name links it to the store
UNRELATED_CHAT = (
    "Lily: my laptop keeps freezing when I open too many tabs\n"
    "Assistant: That sounds frustrating. Is it an old one?\n"
    "Lily: about four years old. Should I buy a new one or upgrade the memory?"
)


def test_a_known_persons_chat_can_be_held_to_an_answerability_threshold(db_path, e5):
    # search.dialogue_relevance_floor lets any of Lily's notes answer a chat of hers (decision
    # 0025); search.chat_answerability_threshold holds such a chat to its best hit's score
    # (off by default: the score tells such chats apart too weakly, decision 0014)
    assert Config().search.chat_answerability_threshold == 0.0
    strict = {"indexing.mode": "sync", "search.chat_answerability_threshold": 0.9}
    with Memory(db_path, Config.load(env={}, overrides=strict), embedder=e5) as memory:
        _store_lily(memory)
        result = memory.search(UNRELATED_CHAT, k=10, now=1_784_505_600)
        assert result.hits == []
        note = next(n for n in result.notes if n.startswith("answerability gate"))
        assert "a chat by people the store knows" in note
        assert "search.chat_answerability_threshold 0.9" in note
        # a question is not a chat: the threshold does not hold it
        question = memory.search("What does Lily drink?", k=10, now=1_784_505_600)
        assert question.hits and question.hits[0].record.text.startswith("Lily drinks")
    with Memory(db_path.with_name("d.db"), config_default(), embedder=e5) as memory:
        _store_lily(memory)
        assert memory.search(UNRELATED_CHAT, k=10, now=1_784_505_600).hits  # the floors alone


def config_default() -> Config:
    return Config.load(env={}, overrides={"indexing.mode": "sync"})
