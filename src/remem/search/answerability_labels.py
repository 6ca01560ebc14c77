"""What the explain trace calls each input of the answerability score
(``remem.search.answerability``'s ``FEATURES`` and ``QUESTION_INPUTS``), and which inputs
decided a hit's score."""

from __future__ import annotations

# what the explain trace calls each input when it says which decided
FEATURE_LABELS = {
    "relevance": "relevance",
    "margin": "relevance over its floor",
    "search_margin": "the search's best relevance over its floor",
    "rank": "rank",
    "relevance_gap": "relevance below the best hit's",
    "subject_own": "subject match (the hit's words)",
    "subject_near": "subject match (the hit and its neighbours)",
    "named_speaker": "the question names its speaker",
    "both_channels": "channel agreement",
    "vector_rank": "vector rank",
    "lexical_rank": "keyword rank",
    "fused_rank": "fused rank",
    "fused": "fused score",
    "latent": "latent terms",
    "cross_script": "written in the other script",
    "answer_type": "answer-type evidence",
    "attribute": "the asked attribute stated",
    "fact_whose": "whose value of the asked attribute its facts state",
    "speaker_whose": "a first-person line by the asked person",
    "chat_words": "what one message of the chat says, held (names left out)",
    # the reply inputs (reply_evidence.py)
    "prev_asks": "the turn before it asks, by someone else",
    "reply_subject": "the question's words in the turn it replies to",
    "reply_lift": "the turn it replies to is more relevant",
    "prev_relevance": "the turn before it is relevant",
    "prev_rank": "the turn before it ranks",
    "prev_subject": "subject match of the turn before it",
}
FEATURE_LABELS |= {  # the question's inputs
    "q_answer_type": "answer-type evidence of the best hits",
    "q_attribute": "the asked attribute stated by the best hits",
    "q_subject": "subject match of the best hits (with neighbours)",
    "q_subject_own": "subject match of the best hits",
    "q_relevance": "the best hit's relevance",
    "q_margin": "the search's best relevance over its floor",
    "q_latent": "the best latent terms",
    "q_fact_whose": "the asked subject's fact stated by the best hits",
    "q_chat_words": "what one message of the chat says, held by the best hits",
    "q_split": "split evidence: the subject matched, the asked attribute stated by no best hit",
}


def deciding(evidence: dict[str, float]) -> str:
    """Which inputs weighed most against (and for) a hit, for the explain trace."""
    against = sorted((v, k) for k, v in evidence.items() if v < 0)[:2]
    helped = sorted(((v, k) for k, v in evidence.items() if v > 0), reverse=True)[:1]
    parts = [f"against: {FEATURE_LABELS[k]} ({v:+.2f})" for v, k in against]
    parts += [f"for: {FEATURE_LABELS[k]} ({v:+.2f})" for v, k in helped]
    return ", ".join(parts) or "no evidence either way"
