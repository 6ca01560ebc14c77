"""Split evidence (issue 45): the question's subject matched by the best hits, the asked
attribute stated by none of them (or only about another subject)."""

from __future__ import annotations

from remem.search.answerability import question_row
from remem.search.split_evidence import split_evidence

# hit rows as the answerability stage computes them (``FEATURES``), best first
ABOUT_LIN_WEI = {"named_speaker": 1.0, "subject_near": 0.1, "attribute": 0.0, "fact_whose": None}
ABOUT_HIS_PLACE = {"named_speaker": 0.0, "subject_near": 0.6, "attribute": 0.0, "fact_whose": None}
OFF_SUBJECT = {"named_speaker": 0.0, "subject_near": 0.0, "attribute": 0.0, "fact_whose": None}


def test_the_subject_matched_and_the_attribute_stated_nowhere_is_split():
    # "What's the wifi password at Lin Wei's place?": his lines, none says a password
    assert split_evidence([ABOUT_LIN_WEI, ABOUT_HIS_PLACE, OFF_SUBJECT]) == 1.0
    assert split_evidence([OFF_SUBJECT, ABOUT_HIS_PLACE]) == 1.0  # his place, by its words


def test_a_line_that_states_the_attribute_is_not_split():
    says_it = {**OFF_SUBJECT, "attribute": 1.0}
    assert split_evidence([ABOUT_LIN_WEI, says_it]) == 0.0


def test_an_unmatched_subject_is_not_split_evidence():
    # nothing about the subject: an off-topic question, for the other inputs to judge
    assert split_evidence([OFF_SUBJECT, OFF_SUBJECT]) == 0.0


def test_the_attribute_stated_only_about_another_subject_is_split():
    # "Where does Tom live?": the fact layer reads only Ann's home in the best hits
    annes_home = {**ABOUT_LIN_WEI, "attribute": None, "fact_whose": 0.0}
    unsaid = {**OFF_SUBJECT, "attribute": None, "fact_whose": 0.0}
    assert split_evidence([annes_home, unsaid]) == 1.0
    toms = {**OFF_SUBJECT, "attribute": None, "fact_whose": 1.0}
    assert split_evidence([annes_home, toms]) == 0.0


def test_a_question_of_no_known_attribute_has_no_split_evidence():
    unknown = {**ABOUT_LIN_WEI, "attribute": None}
    assert split_evidence([unknown, {**OFF_SUBJECT, "attribute": None}]) is None
    assert split_evidence([]) is None


def test_the_question_part_reads_it_over_the_best_hits():
    assert question_row([ABOUT_LIN_WEI, OFF_SUBJECT])["q_split"] == 1.0
    # only the best NEIGHBOUR_TOP (10) hits count: a statement further down does not
    rows = [ABOUT_LIN_WEI] * 10 + [{**OFF_SUBJECT, "attribute": 1.0}]
    assert question_row(rows)["q_split"] == 1.0
