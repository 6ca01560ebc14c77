"""The question's words, weighed against the store: what it never saw."""

from remem.retrieve.query_terms import UNSEEN_MIN_RECORDS, unseen_latin, unseen_share


def test_the_latin_script_words_no_record_holds():
    tokens = ["参加", "支持", "carolin", "gpu", "3", "12"]
    stats = (UNSEEN_MIN_RECORDS, {"支持": 5, "gpu": 2})
    # numbers are not names, Chinese words are left to the rest of the stage
    assert unseen_latin(tokens, stats) == ("carolin",)
    assert unseen_latin(tokens, (UNSEEN_MIN_RECORDS - 1, stats[1])) == ()  # too small to tell


def test_the_share_of_the_weight_on_words_no_record_holds():
    weights = {"mariana": 3.0, "trench": 3.0, "deep": 2.0}
    assert unseen_share(weights, (200, {"deep": 10})) == 0.75
    assert unseen_share(weights, (50, {"deep": 10})) == 0.0  # the store has not had room
