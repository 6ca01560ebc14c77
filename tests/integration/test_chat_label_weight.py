"""search.chat_label_weight: the keyword channel weighs a chat's people's names (its speaker
labels, not "Assistant") by this against the chat's other words; a question is unchanged."""

from __future__ import annotations

from helpers import HashEmbedder
from remem import Config, Memory

NOTES = [
    "Lily is allergic to penicillin.",
    "Lily runs the Bath half marathon in March.",
    "Priya needs antibiotics for her chest infection, the GP said.",
    "Priya works as a teaching assistant.",
    # a store large enough for IDF to mean something
    "Sam plays the cello on Sundays.",
    "Grace grows tomatoes in her greenhouse.",
    "Marcus drives a blue van for work.",
    "Noah is learning Spanish at night school.",
    "Ava collects old postcards from Wales.",
    "Leo cycles to the office every day.",
    "Mia bakes sourdough on Saturdays.",
    "Omar supports Leeds United.",
    "Zara paints watercolours of the coast.",
    "Ben fixes vintage radios.",
    "Ivy volunteers at the food bank.",
    "Theo builds model railways.",
]
CHAT = (
    "Lily: the GP wants to prescribe antibiotics for my chest infection\n"
    "Assistant: Anything to tell the doctor?\n"
    "Lily: yes, what should I mention?"
)


def _keyword_scores(tmp_path, query: str, weight: float) -> dict[str, float]:
    config = Config.load(
        env={}, overrides={"indexing.mode": "sync", "search.chat_label_weight": weight}
    )
    with Memory(tmp_path / f"m{weight}.db", config, embedder=HashEmbedder()) as mem:
        # one session each: no line is matched through the turn before it
        mem.ingest_many([{"text": t, "session": f"s{i}"} for i, t in enumerate(NOTES)])
        hits = mem.search(query, k=10, channels=("lexical",)).hits
        return {h.record.text: h.explain.lexical_score or 0.0 for h in hits}


def test_a_chats_names_weigh_by_the_setting_and_its_other_words_do_not(tmp_path):
    same = _keyword_scores(tmp_path, CHAT, 1.0)
    more = _keyword_scores(tmp_path, CHAT, 1.5)
    for note in NOTES[:2]:  # the name is all they share with the chat
        assert same[note] > 0
        assert abs(more[note] - 1.5 * same[note]) < 1e-6
    # no name: the same score, the role label ("Assistant") not weighed as a name
    for note in NOTES[2:4]:
        assert abs(more[note] - same[note]) < 1e-6
    # 0: the names count for nothing, so a note holding nothing else scores nothing by words
    zero = _keyword_scores(tmp_path, CHAT, 0.0)
    assert all(abs(zero.get(note, 0.0)) < 1e-9 for note in NOTES[:2])


def test_a_question_naming_someone_is_not_weighed(tmp_path):
    question = "What is Lily allergic to?"
    assert _keyword_scores(tmp_path, question, 1.0) == _keyword_scores(tmp_path, question, 3.0)
