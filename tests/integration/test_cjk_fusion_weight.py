"""search.cjk_vector_weight: the vector channel's fusion weight for a Chinese or Japanese
question (not for the chat so far, nor for a question in Latin script)."""

from __future__ import annotations

import pytest

from helpers import HashEmbedder
from remem import Config, Memory

LINES = [
    "我们下周五去杭州看西湖",
    "周末的会议改到周一上午十点",
    "我最喜欢的水果是芒果",
    "We are moving to Lisbon next spring",
    "The standup is at half past nine",
]


def _fusion_scores(tmp_path, query: str, cjk_weight: float) -> dict[str, tuple]:
    config = Config.load(
        env={},
        overrides={"indexing.mode": "sync", "search.cjk_vector_weight": cjk_weight},
    )
    with Memory(tmp_path / f"m{cjk_weight}.db", config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": t, "session": "s"} for t in LINES])
        hits = mem.search(query, k=10).hits
        return {
            h.record.text: (h.explain.vector_score, h.explain.lexical_score, h.explain.fused_score)
            for h in hits
        }


@pytest.mark.parametrize(
    "query, weighted",
    [
        ("我们什么时候去西湖", True),  # a Chinese question
        ("Alice: 我们什么时候去西湖\nBob: 下周五吧，我查一下", False),  # the chat so far
        ("When are we moving to Lisbon", False),  # a question in Latin script
    ],
)
def test_the_cjk_weight_reaches_the_fusion_of_a_cjk_question_only(tmp_path, query, weighted):
    # vector weight 0 for CJK questions: their fused score is the keyword channel's alone
    # (a line only the vector channel found fuses to 0); other queries keep search.vector_weight
    scores = _fusion_scores(tmp_path, query, 0.0)
    vector_only = [fused for vec, lex, fused in scores.values() if lex is None and vec is not None]
    assert vector_only, scores  # the hash vectors find every line
    if weighted:
        assert all(fused == 0.0 for fused in vector_only)
    else:
        assert any(fused > 0.0 for fused in vector_only)
