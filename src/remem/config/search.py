"""The search section of the configuration: fusion, channels, floors and gates of the read
pipeline (the stages after fusion have theirs in ``stages.py``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from remem.config.fields import NonNegativeFloat, NonNegativeInt, PositiveInt, Share, setting
from remem.config.sections import _Section


class SearchConfig(_Section):
    fusion: Literal["rrf", "weighted"] = setting(
        "weighted",
        "how the vector and keyword rankings combine: weighted (normalised "
        "scores, vector_weight / lexical_weight) or rrf (reciprocal rank fusion)",
    )
    rrf_k: PositiveInt = setting(60, "rrf: the rank offset k in 1 / (k + rank)")
    rrf_vector_weight: NonNegativeFloat = setting(1.0, "vector channel in RRF")
    rrf_lexical_weight: NonNegativeFloat = setting(1.0, "lexical channel in RRF")
    vector_weight: NonNegativeFloat = setting(0.4, "weighted fusion: the vector channel's weight")
    # 0.9 lifts zh_groupchat recall@10 0.770 -> 0.780 and changed_facts 0.963 -> 0.968, but
    # ranks the demo's English answer to "小屋一晚多少钱？" (found through its dictionary
    # translation) under a Chinese line about huts: left at search.vector_weight until a
    # cross-script answer keeps its place (docs/decisions/0022-chat-embedding.md)
    cjk_vector_weight: NonNegativeFloat = setting(
        0.4,
        "weighted fusion: the vector channel's weight for a question written in "
        "Chinese or Japanese (not for the chat so far; search.vector_weight for the others)",
    )
    lexical_weight: NonNegativeFloat = setting(
        0.6, "weighted fusion: the keyword (BM25) channel's weight"
    )
    min_vector_span: float = Field(
        default=0.05,
        ge=0,
        le=2,
        description="weighted fusion: cosine gaps are scaled by at least this span",
    )
    candidate_pool: PositiveInt = setting(50, "floor of each channel's top-N")
    candidate_factor: PositiveInt = setting(4, "each channel fetches k x this")
    max_k: PositiveInt = setting(1000, "largest k a caller may ask for")
    max_query_chars: PositiveInt = setting(
        10_000, "longer queries are refused (the chat path trims)"
    )
    # 32: measured with remem-bench's long_queries.py (a question after cross-talk: zh recall@10
    # 0.495 whole, 0.553 at 24, 0.540 at 32, 0.523 at 48) and free on the suite's own
    # questions (LoCoMo 4 of 1,982 and LongMemEval 69 of 479 are longer; -0.005 recall@10 on
    # those 69), and it bounds the query embedding (a 4000-character turn took seconds whole).
    query_embed_tokens: NonNegativeInt = setting(
        32,
        "the vector channel embeds the query's last this many tokens (estimated; "
        "newest messages first); the lexical channel matches all of it. 0 = the whole query",
    )
    # 128 lifts dialogue_notes' recall@10 0.715 -> 0.755; a chat whose named speakers the
    # store has never heard of is embedded by query_embed_tokens (search/chat_budget.py), so
    # unrelated chats are answered no more often than at 32 (docs/decisions/0022-chat-embedding.md)
    chat_embed_tokens: NonNegativeInt = setting(
        128,
        'for a query that is the chat so far (two or more "Name: text" lines): '
        "the vector channel embeds its last this many tokens (0 = the whole chat); a chat "
        "whose named speakers no record holds or is said by gets search.query_embed_tokens",
    )
    # a label says whose notes answer (dialogue_long's user is found by it); weighed as one
    # word among a long chat's many, it ranked every note naming the user over one in the
    # first person. 1.5, chosen on dialogue_notes and dialogue_long: hybrid recall@10 0.965 /
    # 0.871 -> 0.975 / 0.871, MRR 0.792 / 0.552 -> 0.803 / 0.557, the keyword channel alone
    # 0.915 / 0.688 -> 0.930 / 0.758; held out 1.000 / 0.820 -> 1.000 / 0.840; off-topic
    # chats answered unchanged (benchmarks/results/chat-label-weight.json)
    chat_label_weight: NonNegativeFloat = setting(
        1.5,
        'for a query that is the chat so far (two or more "Name: text" lines): the keyword '
        "channel's weight of its people's names (its speaker labels, not 'Assistant') against "
        "its other words (1 = the same; 0 = left out)",
    )
    role_filter_factor: PositiveInt = setting(
        8, "k x this per channel when a role filter will drop hits"
    )
    context_weight: NonNegativeFloat = setting(
        0.2, "BM25 weight of the context column (0 = own text only)"
    )
    lexical_max_df: float = Field(
        default=0.05,
        gt=0,
        le=1,
        description="in big stores, skip query words found in more than this share of records",
    )
    lexical_prune_min_docs: NonNegativeInt = setting(
        20_000, "...only once the store holds this many records"
    )
    lexical_postings_budget: NonNegativeInt = setting(
        20_000,
        "...and ask only for the rarest query words whose records add up to at "
        "most this many (keyword search time stays flat as the store grows; 0 = no limit)",
    )
    index_build: Literal["background", "manual"] = setting(
        "background",
        "background: a process that searches rebuilds the vector index files "
        "when they fall behind, in a thread of its own; manual: only `remem index` (and the "
        "end of `remem import`) does. The CLI's one-shot commands default to manual: their "
        "process exits before a build ends",
    )
    lexical_first_pass_budget: NonNegativeInt = setting(
        2_500,
        "...and when those words hold more records than this, search in two "
        "passes: the rarest words up to this many records first, then only the rows found "
        "scored for every word (0 = one pass)",
    )
    min_semantic: Share = setting(0.0, "drop vector hits whose cosine is below (0 = off)")
    min_score: NonNegativeFloat = setting(0.0, "drop hits whose final score is below (0 = off)")
    # Off by default: measured on the development suite it lifts zh_groupchat (+0.048
    # recall@10) and lowers LoCoMo (-0.013): a change that wins one dataset and loses another
    # is not a default (remem-bench's HISTORY.md, "Development suite").
    adaptive_full_coverage: Share = setting(
        0.0,
        "weighted fusion: the lexical weight scales down while its best hits hold "
        "less than this share of the query's words (0 = fixed weights)",
    )
    # Without latent terms (another model, search.latent_top = 0, a failing sparse head):
    # 0.25, the highest floor that costs no dataset more than 0.01 recall@10 with the cross-script
    # witness (LoCoMo 0, zh_groupchat 0.003, LongMemEval 0.005; 0.3 costs LongMemEval 0.0105);
    # no-answer probes answered 51% (LoCoMo) and 40% (zh_groupchat) instead of 100%
    # (remem-bench's suite-defaults.json, longmemeval-full.json).
    relevance_floor: Share = setting(
        0.25,
        "return nothing when the best hit's calibrated relevance is below, unless "
        "latent terms were read (then search.latent_relevance_floor); 0 = off",
    )
    # e5-small matches a question to a line in another script poorly: the bundled USE model
    # reads the best candidates in the other script for the relevance stage (search/witness.py)
    cross_script_witness: bool = setting(
        True,
        "relevance asks the bundled USE model about the best candidates written in "
        "another script than the question (bundled e5 only)",
    )
    witness_top: int = Field(
        default=10, ge=1, le=100, description="how many of the best candidates it may read"
    )
    # e5's sparse head tells answers from off-topic hits better than its dense cosine: the
    # relevance stage reads the latent terms of the best candidates (search/latent_reader.py),
    # kept beside the vectors (ingest/latent_fill.py), for the best 10 in the question's
    # script (across scripts their terms barely meet: zh_groupchat's cross_lingual questions
    # lost 0.048 recall@10 when they were read too). Floor 0.6 for those judged with them: the
    # strictest that costs no recall@10 over 0.55 (0.65: zh -0.005); LongMemEval -0.004 against
    # no latent terms (remem-bench's latent-same-script-floors.json).
    latent_top: int = Field(
        default=10,
        ge=0,
        le=50,
        description="relevance reads the sparse latent terms of this many of the best "
        "candidates (bundled e5 only; 0 = off)",
    )
    latent_relevance_floor: Share = setting(
        0.6,
        "the relevance floor of a candidate whose latent terms were read and "
        "that holds one of the question's words (search.relevance_floor = 0 turns both off)",
    )
    # 0.35: the highest that costs zh_groupchat's cross_lingual questions nothing (0.4: -0.016
    # recall@10); probes answered LoCoMo 26% -> 23%, zh_groupchat 29% -> 21%
    # (remem-bench's latent-cross-script-floors.json)
    cross_script_relevance_floor: Share = setting(
        0.35,
        "with latent terms on: the floor of a candidate in another script than "
        "the question (judged by the dense evidence and the witness, not by latent terms) "
        "that holds one of its words or their translations, or whose question names a speaker",
    )
    wordless_relevance_floor: Share = setting(
        0.9,
        "with latent terms on: the floor of a candidate in the question's script "
        "that holds none of the question's words (search.latent_relevance_floor for the "
        "others)",
    )
    # 0.2 answers 10.7% of LoCoMo's no-answer probes instead of 15.3% for 0.001 of its
    # recall@10, but costs LongMemEval 0.015 (advice and multi-session questions whose
    # answers share few words: remem-bench's worded-coverage.json), so it is off by default
    worded_min_coverage: float = Field(
        default=0.0,
        ge=0,
        lt=1,
        description="with latent terms on, for a question in Latin script: the share of its "
        "words' IDF a candidate in its script must hold to be held to the latent floor "
        "(else search.wordless_relevance_floor); a Chinese or Japanese question's candidates "
        "need any of its words",
    )
    # 0.05 (decision 0025): judged on the whole chat (128 tokens) a note answering a chat
    # through an inference ("remind me what I usually get" -> "Lily drinks flat whites")
    # scored 0.01-0.56, and the latent floor (0.6) emptied 40 of dialogue_notes' 100 English
    # chats (recall@10 0.753; 0.1: 0.928; 0.05 and 0: 0.943). A strangers' chat is read as a
    # question and keeps a question's floors (search/chat_budget.py)
    dialogue_relevance_floor: Share = setting(
        0.05,
        'for a query that is the chat so far (two or more "Name: text" lines) by people '
        "the store knows (a strangers' chat is judged as a question): no candidate holding "
        "one of its words is held to a floor above this one (1 = the floors of a question)",
    )
    dialogue_words_coverage: Share = setting(
        0.0,
        "for a query that is the chat so far: a candidate in its script holding at "
        "least this share of one message's words' IDF (older messages counting less) clears "
        "its floor (0 = off)",
    )
    cross_script_words_coverage: Share = setting(
        0.0,
        "a candidate in another script than the question holding at least this "
        "share of the IDF of the question's dictionary translations clears its relevance "
        "floor (the per-candidate keyword gate across scripts; 0 = off)",
    )
    unseen_question_share: Share = setting(
        0.5,
        "with latent terms on, for a question in Latin script: when at least this "
        "share of its words' IDF is carried by words no record holds (in a store of 100 "
        "records or more), every candidate in its script is held to "
        "search.wordless_relevance_floor (0 = off)",
    )
    cross_script_unlinked_floor: Share = setting(
        0.6,
        "with latent terms on: the floor of a candidate in another script that "
        "holds none of the question's words nor of their dictionary translations, under a "
        "question naming no speaker (the embeddings alone cross scripts loosely); "
        "search.cross_script_relevance_floor for the others",
    )
    # 0.3: on the development suite it answers dialogue_notes questions the floors emptied
    # (recall@10 +0.085) for +0.7 points of LoCoMo's off-topic probes answered (0.2: +2.5);
    # the score alone at a threshold that keeps recall@10 answered 15-17% of probes instead of
    # 6-10% (docs/decisions/0014-answerability.md, remem-bench's answerability.json)
    answerability_threshold: Share = setting(
        0.3,
        "a search where no candidate clears its relevance floor still answers when "
        "its best hit's answerability (the probability that it answers the question, the score "
        "every surface shows) is at least this, so an answer just under a floor is not lost; "
        "0 = the floors alone decide",
    )
    # 0 (decision 0014, "the chat input"): a known person's unrelated chat is answered by
    # search every time, and the score tells it from a related one at AUC 0.64-0.76 only: at
    # 0.03 it still answers 97-100% of them (recall@10 kept), at 0.05 93-98% while the held-out
    # Chinese chats lose 0.03 recall@10, at 0.1 75-79% for -0.04 to -0.08 on dialogue_notes
    chat_answerability_threshold: Share = setting(
        0.0,
        'for a query that is the chat so far (two or more "Name: text" lines) by people the '
        "store knows, which search.dialogue_relevance_floor lets any line of its speakers "
        "clear: the search answers only when its best hit's answerability is at least this "
        "(0 = the floors alone decide)",
    )
    # answerability (decision 0014, "The hits in the score's order"): on every development set
    # MRR >= the pipeline order's (changed_facts 0.916 -> 0.924, dialogue_notes 0.678 -> 0.783,
    # LoCoMo 0.628 -> 0.638) and recall@5 up on all; the held-out sets rose as well
    hit_order: Literal["pipeline", "answerability"] = setting(
        "answerability",
        "the order of the hits a search returns: pipeline (the scoring stages' own score) or "
        "answerability (the score every surface shows, so it falls down the list, except "
        "that a hit the currency stage placed, what is true now, keeps its place); the same k "
        "hits either way",
    )
    latent_cross_script: bool = setting(
        False,
        "also read the latent terms of candidates in another script than the "
        "question (their terms barely meet across languages; the witness judges them)",
    )
