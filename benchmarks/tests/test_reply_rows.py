"""The reply inputs (remem.search.reply_evidence) in the rows fit_answerability.py dumps, and the
score's order of answerability_reply.py (the currency stage's leads first or kept in place)."""

from __future__ import annotations

import json

from bench_helpers import load_bench_script

from remem.engine import Memory
from remem.search.answerability import MODEL_FILE
from remem.search.reply_evidence import REPLY_INPUTS
from remem_bench.suite import ingest

TURNS = [
    ("Marta", "What are we reading for May?"),
    ("Grace", "The Book of Disquiet, fitting for the trip"),
    ("Ines", "Pessoa! Perfect"),
]


def test_a_reply_to_the_question_asked_just_before_it_is_seen(tmp_path, e5, config):
    fit_script = load_bench_script("fit_answerability")
    turns = [
        {"id": f"g:{i}", "session": "s1", "speaker": who, "text": text, "timestamp": 1e9 + i * 60}
        for i, (who, text) in enumerate(TURNS, 1)
    ]
    mem = Memory(tmp_path / "m.db", config, embedder=e5)
    ingest(mem, turns)
    q = {"qid": "q", "query": "Which book is the club reading for May?", "gold": ["g:2"]}
    with fit_script.Recorder() as rec:
        row = fit_script.ask(mem, rec, q, False)
    hits = {h["id"]: h["features"] for h in row["hits"]}
    assert {"g:1", "g:2"} <= set(hits)
    reply, question = hits["g:2"], hits["g:1"]
    assert reply["prev_asks"] == 1.0  # Marta asked, Grace answers
    assert reply["reply_lift"] > 0.0 and reply["prev_relevance"] > reply["relevance"]
    assert question == question | dict.fromkeys(
        ("prev_asks", "reply_subject", "reply_lift", "prev_relevance", "prev_subject"), 0.0
    )  # the session's first turn answers nothing
    assert all(name in hits["g:3"] for name in REPLY_INPUTS)
    assert hits["g:3"]["prev_asks"] == 0.0  # the turn before it asks nothing


def test_a_lead_goes_first_or_keeps_its_place_and_the_rest_follow_the_score():
    script = load_bench_script("answerability_reply")
    row = {
        "kind": "ans",
        "gold": ["a"],
        "hits": [
            {"id": "a", "gold": True},
            {"id": "b", "gold": False},
            {"id": "c", "gold": False, "lead": True},
        ],
    }
    scores = [0.5, 0.7, 0.1]
    assert script.score_order(row, scores, "first") == [2, 1, 0]
    assert script.score_order(row, scores, "slot") == [1, 0, 2]
    assert script.reciprocal_rank(row, None) == 1.0
    assert script.reciprocal_rank(row, scores, "first") == 1 / 3
    assert script.reciprocal_rank(row, scores, "slot") == 1 / 2


def test_the_fit_file_records_the_command_that_remakes_it_and_its_defaults_are_the_shipped_fits():
    script = load_bench_script("fit_answerability")
    argv = ["--rows", "r.jsonl", "--note", "a note, kept apart", "--write", "--note=x"]
    assert script.remade_by(argv) == "fit_answerability.py --rows r.jsonl --write"
    shipped = json.loads(MODEL_FILE.read_text("utf-8"))
    assert set(script.SHIPPED_LEAVE_OUT.split(",")) == set(shipped["left_out"])
    assert script.SHIPPED_NOT_FITTED.split(",") == shipped["measured_not_fitted"]
