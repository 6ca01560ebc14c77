"""What never asserts or closes anything: questions, uncertainty, hypotheticals, quotes,
sarcasm, examples, said alone or as one sentence of several (issue 48)."""

from __future__ import annotations

import pytest

from unit.facts.reading import facts

ISSUE_LIST = [
    "I forgot where I live",
    "I live where again",
    "guess where I live",
    "I'm not sure where I live now",
    "I live in Porto, don't I",
    "I live in Madrid or Lisbon",
    "my favourite food is what again",
    "不知道我在哪家公司上班",
    "我住在北京吧",
]


@pytest.mark.parametrize("text", ISSUE_LIST)
def test_the_issue_list_states_nothing(text):
    assert facts(text) == set()


@pytest.mark.parametrize(
    "text",
    [
        "Do I still work at Initech?",  # question
        "我住在哪里？",
        "我在哪上班来着",  # question without its mark
        "I think I might move to Madrid",  # uncertainty
        "我可能会去云帆网络",
        "If I moved to Paris I'd learn French.",  # hypothetical, conditional
        "如果我搬到成都，天天吃火锅",
        "My mum keeps saying I should move to Paris.",  # someone else's words
        '他说"我住在北京"，我不信。',
        "Yeah right, I live on the moon.",  # sarcasm
        "我开的是劳斯莱斯，呵呵",
        'For example, you could say "I live in Paris".',  # an example
        '举个例子："我在腾讯上班"',
    ],
)
def test_non_statements_state_nothing(text):
    assert facts(text) == set()


def test_a_question_beside_a_statement_does_not_silence_it():
    assert facts("Where do you live? I live in Porto now.") == {
        ("Ann", "lives_in", "Porto", "assert")
    }


def test_a_hedged_sentence_beside_a_statement_states_only_the_statement():
    assert facts("I work at Globex. Maybe I'll move to Madrid.") == {
        ("Ann", "works_at", "Globex", "assert")
    }


def test_an_assistant_states_nothing_about_anyone():
    assert facts("I live in Porto now. Tom lives in Shanghai.", role="assistant") == set()


def test_a_long_run_is_read_clause_by_clause_and_a_record_only_so_far():
    from remem.facts.extract import MAX_SENTENCE, MAX_SENTENCES, sentences

    run = "I live in Porto, " + "and then " * 60 + "more"
    assert len(run) > MAX_SENTENCE
    assert facts(run) == {("Ann", "lives_in", "Porto", "assert")}
    assert facts("x " * 400 + "I live in Porto") == set()  # one unbroken run: a paste, not said
    assert len(sentences("I live in Porto. " * (MAX_SENTENCES + 10))) == MAX_SENTENCES
