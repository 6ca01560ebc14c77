"""search.hit_order: the k hits a search returns, in the pipeline's order or by the score every
surface shows (search/candidates.py ``in_hit_order``)."""

from __future__ import annotations

import pytest

from remem.config import Config
from remem.errors import ConfigError
from remem.search.candidates import Candidate, in_hit_order


def hits(
    *answerability: float | None, lead: tuple[int, ...] = (), below: dict[int, int] | None = None
) -> list[Candidate]:
    below = below or {}
    return [
        Candidate(rowid=i, answerability=a, lead=i in lead, below=below.get(i))
        for i, a in enumerate(answerability)
    ]


def rowids(cands: list[Candidate]) -> list[int]:
    return [c.rowid for c in cands]


def test_the_score_order_is_the_default_and_the_pipeline_order_left_as_it_is() -> None:
    assert Config().search.hit_order == "answerability"
    assert rowids(in_hit_order(hits(0.1, 0.9, 0.5), "pipeline")) == [0, 1, 2]


def test_by_answerability_the_scores_fall_down_the_list_and_ties_keep_the_pipeline_order() -> None:
    ordered = in_hit_order(hits(0.1, 0.9, 0.5, 0.9), "answerability")
    assert rowids(ordered) == [1, 3, 2, 0]
    shown = [c.answerability for c in ordered]
    assert shown == sorted(shown, reverse=True)


def test_what_the_currency_stage_placed_keeps_its_place() -> None:
    # the current value's line (0.3) scored below a stale line naming the same place: it stays
    # first; the others follow the score around it, never moving the lead down the list
    assert rowids(in_hit_order(hits(0.3, 0.8, 0.6, lead=(0,)), "answerability")) == [0, 1, 2]
    # a lead the pipeline placed third (above its own stale value, below two better answers)
    # stays third: it does not jump above hits the currency stage did not judge
    assert rowids(in_hit_order(hits(0.2, 0.9, 0.1, 0.5, lead=(2,)), "answerability")) == [
        1,
        3,
        2,
        0,
    ]


def test_an_unscored_hit_keeps_the_pipeline_order() -> None:
    assert rowids(in_hit_order(hits(0.1, None, 0.9), "answerability")) == [0, 1, 2]


def test_an_unknown_order_is_refused_by_the_configuration() -> None:
    with pytest.raises(
        ConfigError, match=r"search\.hit_order='score'.*'pipeline' or 'answerability'"
    ):
        Config.load(env={}, overrides={"search.hit_order": "score"})


def test_a_question_stays_below_the_reply_it_was_put_under() -> None:
    # the question (0.9) names what was asked, its reply (0.4) holds the answer: the reply
    # stage put the question under the reply, and the score's order keeps it there
    assert rowids(in_hit_order(hits(0.4, 0.9, 0.6, below={1: 0}), "answerability")) == [2, 0, 1]
