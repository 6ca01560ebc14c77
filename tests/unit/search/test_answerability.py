"""The answerability score: its shipped fit, its inputs, the gate on the best hit, and the
score as what a hit shows (Hit.score) with the pipeline's own in the trace."""

from __future__ import annotations

import json

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.recall.messages import answering
from remem.search.answerability import (
    FEATURE_LABELS,
    FEATURES,
    MODEL_FILE,
    QUESTION_FEATURES,
    QUESTION_INPUTS,
    AnswerabilityModel,
    answer_type_reader,
    deciding,
    shipped_model,
)

T = 1_800_000_000.0


def test_the_shipped_fit_names_its_inputs_datasets_and_date():
    data = json.loads(MODEL_FILE.read_text("utf-8"))
    assert data["date"] and data["datasets"] and data["held_out"]
    fit = data["fit"]
    assert set(data["inputs"]) == set(fit["coefficients"]) | set(fit["question"]["coefficients"])
    read = set(data["inputs"]) | {QUESTION_FEATURES.get(q, q) for q in data["inputs"]}
    assert read | set(data["left_out"]) == set(FEATURES) | set(QUESTION_INPUTS)
    # the held-out sets are never fitted on
    assert not set(data["held_out"]) & set(data["datasets"])
    assert shipped_model() is not None
    assert set(FEATURE_LABELS) == set(FEATURES) | set(QUESTION_INPUTS)


def test_a_missing_input_counts_as_its_mean():
    model = AnswerabilityModel(
        intercept=0.0,
        coefficients={"relevance": 2.0, "latent": 1.0},
        mean={"relevance": 0.5, "latent": 0.2},
        scale={"relevance": 0.25, "latent": 0.1},
    )
    assert model.probability({"relevance": 0.5, "latent": None}) == pytest.approx(0.5)
    assert model.contributions({"relevance": 0.75, "latent": None}) == {"relevance": 2.0}
    low, high = (model.probability({"relevance": r}) for r in (0.1, 0.9))
    assert 0 < low < 0.5 < high < 1


def test_the_trace_names_the_evidence_that_weighed_most():
    said = deciding({"subject_own": -2.5, "relevance": 1.2, "fused": -0.1, "margin": -0.4})
    assert said.startswith("against: subject match (the hit's words) (-2.50)")
    assert "relevance over its floor (-0.40)" in said and "for: relevance (+1.20)" in said
    assert deciding({}) == "no evidence either way"


def test_the_answer_type_input_is_read_only_when_its_module_is_there():
    try:
        from remem.text import answer_types  # type: ignore[attr-defined]  # noqa: F401
    except ImportError:
        assert answer_type_reader() is None
    else:
        assert callable(answer_type_reader())


def _mem(tmp_path, **overrides):
    # threshold 0: every hit is scored and none gated by it (the floors decide)
    settings = {"indexing.mode": "sync", "search.answerability_threshold": 0.0, **overrides}
    config = Config.load(env={}, overrides=settings)
    tmp_path.mkdir(parents=True, exist_ok=True)
    mem = Memory(tmp_path / "m.db", config, embedder=None)
    lines = [
        "the hut on the ridge is booked for Saturday",
        "bring warm gloves and a head torch",
        "the deploy moved to Thursday",
    ]
    mem.ingest_many(
        [
            {"id": f"m{i}", "session": "s", "role": "user", "text": t, "timestamp": T + i}
            for i, t in enumerate(lines)
        ]
    )
    return mem


def test_every_hit_shows_its_answerability_and_keeps_the_pipelines_score_in_the_trace(tmp_path):
    with _mem(tmp_path) as mem:
        result = mem.search("which hut is booked", k=3, now=T + 10, channels=("lexical",))
    assert result.hits
    for hit in result.hits:
        assert hit.score == hit.explain.answerability and 0.0 <= hit.score <= 1.0
        assert hit.explain.evidence and hit.explain.stages  # inputs and stage scores kept
        assert "answers " in hit.explain.one_line()
    assert result.hits[0].record.id == "m0"


def test_a_search_under_every_floor_answers_only_when_its_best_hit_is_likely_enough(tmp_path):
    # no relevance reaches 1.0: no candidate clears its floor
    strict = {"search.relevance_floor": 1.0, "search.answerability_threshold": 1.0}
    with _mem(tmp_path, **strict) as mem:
        result = mem.search("which hut is booked", k=3, now=T + 10, channels=("lexical",))
    assert result.hits == []
    assert {d["stage"] for d in result.dropped} == {"answerability"}
    note = next(n for n in result.notes if n.startswith("answerability gate"))
    assert "search.relevance_floor 1.0" in note and "search.answerability_threshold 1.0" in note
    assert "against:" in note or "for:" in note
    lenient = {"search.relevance_floor": 1.0, "search.answerability_threshold": 0.001}
    with _mem(tmp_path / "b", **lenient) as mem:
        result = mem.search("which hut is booked", k=3, now=T + 10, channels=("lexical",))
    assert result.hits and result.hits[0].record.id == "m0"
    assert any(
        n.startswith("answerability: answered though nothing relevant") for n in result.notes
    )
    floors_alone = {"search.relevance_floor": 1.0, "search.answerability_threshold": 0.0}
    with _mem(tmp_path / "c", **floors_alone) as mem:
        result = mem.search("which hut is booked", k=3, now=T + 10, channels=("lexical",))
    assert result.hits == [] and {d["stage"] for d in result.dropped} == {"relevance"}


def test_auto_recall_keeps_the_hits_that_reach_its_threshold(tmp_path):
    with _mem(tmp_path) as mem:
        hits = mem.search("which hut is booked", k=3, now=T + 10, channels=("lexical",)).hits
    scores = sorted(h.score for h in hits)
    middle = scores[len(scores) // 2]
    kept = answering(hits, middle)
    assert kept and all(h.score >= middle for h in kept)
    assert [h.record.id for h in kept] == [h.record.id for h in hits if h.score >= middle]
    assert answering(hits, 0.0) == hits


@pytest.mark.slow
def test_auto_recall_says_which_evidence_held_some_hits_back(tmp_path):
    from remem import Turn
    from remem.recall.messages import held_back

    # the line with the number answers; the other two lines about Lin Wei score far less
    with _typed_mem(tmp_path, **{"recall.answerability_threshold": 0.5}) as mem:
        asked = {"id": "q", "session": "s", "speaker": "Sam", "timestamp": T + 5}
        mem.ingest_many([{**asked, "text": "What is Lin Wei's new phone number?"}], wait=True)
        searched = mem.search("What is Lin Wei's new phone number?", k=10, now=T + 6).hits
        out = mem.recall_for_turn(Turn(session="s", inputs=["q"], now=T + 6))
    assert "t0" in [h.record.id for h in out.hits]  # fewer, not none
    assert out.skipped_reason is None and out.held_back is not None
    assert out.held_back.startswith("held back ")
    assert " hits under recall.answerability_threshold 0.5: the best of them 0." in out.held_back
    assert "against:" in out.held_back
    assert held_back(searched, searched[:1], 0.9).startswith(
        f"held back {len(searched) - 1} of {len(searched)} hits"
    )


def test_a_search_without_the_stage_shows_the_pipelines_score(tmp_path):
    with _mem(tmp_path) as mem:
        hits = mem.search(
            "which hut is booked",
            k=3,
            now=T + 10,
            channels=("lexical",),
            disable=("answerability",),
        ).hits
    assert hits and all(h.explain.answerability is None for h in hits)
    assert all(h.score == h.explain.stages[-1][1] for h in hits)


def test_a_model_without_a_relevance_calibration_keeps_the_pipelines_score(tmp_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "h.db", config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"id": "a", "session": "s", "text": "the kayak is red", "timestamp": T}])
        hits = mem.search("kayak colour", k=2, now=T + 1).hits
    assert hits and hits[0].explain.answerability is None
    assert hits[0].score == hits[0].explain.stages[-1][1]
    assert answering(hits, 0.99) == hits  # nothing to gate on


def test_a_monotone_calibration_keeps_the_order_and_reads_the_observed_share():
    model = AnswerabilityModel(
        intercept=0.0,
        coefficients={"relevance": 4.0},
        mean={"relevance": 0.5},
        scale={"relevance": 0.25},
        knots=((0.1, 0.02), (0.5, 0.3), (0.9, 0.8)),
    )
    assert model.calibrated(0.05) == 0.02  # below the first knot: its share
    assert model.calibrated(0.3) == pytest.approx(0.16)  # halfway between two knots
    assert model.calibrated(0.95) == 0.8
    scores = [model.probability({"relevance": r}) for r in (0.0, 0.3, 0.5, 0.7, 1.0)]
    assert scores == sorted(scores) and scores[2] == pytest.approx(0.3)


def test_the_shipped_fit_reads_answer_type_evidence():
    # issue 45: the fit has the answer-type inputs (the hit's, and the best of the search's
    # hits in the question's part), so the stage computes them; a fit without them cannot
    # tell a near miss
    model = shipped_model()
    assert model is not None
    assert "answer_type" in model.coefficients and model.coefficients["answer_type"] > 0
    assert model.question is not None and model.question.coefficients["q_answer_type"] > 0


def test_the_shipped_fit_reads_the_asked_attribute():
    # issue 45: whether the best hits state the asked attribute (not only a span of its type)
    # is an input of the question's part: a search none of whose lines says a password or a
    # pet is less likely to hold the answer
    model = shipped_model()
    assert model is not None and model.question is not None
    assert "attribute" in model.coefficients
    # read with split evidence (the subject matched, the attribute stated by no best hit),
    # whose fitted weight takes most of what the asked attribute says: the two together
    stated = model.question._logistic({"q_attribute": 1.0, "q_split": 0.0})
    unstated = model.question._logistic({"q_attribute": 0.0, "q_split": 1.0})
    assert stated > unstated


def test_the_shipped_fit_reads_split_evidence_against_answering():
    # issue 45: the subject matched by the best hits while none states the asked attribute
    # (split evidence) weighs against the search holding an answer, and the trace names it
    model = shipped_model()
    assert model is not None and model.question is not None
    assert model.question.coefficients["q_split"] < 0
    assert {"attribute", "fact_whose", "named_speaker", "subject_near"} <= model.inputs()
    said = deciding(model.question.contributions({"q_split": 1.0}))
    assert said.startswith("against: split evidence: the subject matched")


def _typed_mem(tmp_path, **overrides):
    config = Config.load(env={}, overrides={"indexing.mode": "sync", **overrides})
    mem = Memory(tmp_path / "t.db", config)  # the bundled model: the fit reads its evidence
    lines = [
        ("Lin Wei", "My phone number changed, the new one is 138-0013-8000."),
        ("Lin Wei", "Yes, same apartment. You can all crash there on Saturday night."),
        ("Priya", "Lin Wei, is your place still near the university?"),
    ]
    mem.ingest_many(
        [
            {"id": f"t{i}", "session": "s", "speaker": who, "text": text, "timestamp": T + i}
            for i, (who, text) in enumerate(lines)
        ],
        wait=True,
    )
    return mem


@pytest.mark.slow
def test_a_hit_without_an_answer_of_the_asked_type_is_scored_against(tmp_path):
    with _typed_mem(tmp_path) as mem:
        hits = mem.search("What is Lin Wei's new phone number?", k=3, now=T + 10).hits
    by_id = {h.record.id: h for h in hits}
    number = by_id["t0"].explain.evidence or {}
    # the line with the number carries an answer of the asked type; the others do not
    assert number.get("answer_type", 0) > 0
    others = [by_id[i].explain.evidence or {} for i in ("t1", "t2") if i in by_id]
    assert others and all(e.get("answer_type", 0) < number["answer_type"] for e in others)


def test_auto_recall_says_which_evidence_kept_everything_out(tmp_path):
    from remem.recall.messages import unanswered

    with _mem(tmp_path) as mem:
        hits = mem.search("which hut is booked", k=3, now=T + 10, channels=("lexical",)).hits
    best = max(h.score for h in hits)
    said = unanswered(hits, 0.99)
    assert said.startswith(
        f"no hit reached recall.answerability_threshold 0.99: best answerability {best:.3f}; "
    )
    assert "against:" in said or "for:" in said
