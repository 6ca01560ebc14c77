"""The question's words, weighed against the store: what it never saw."""

from remem.search.query_terms import UNSEEN_MIN_RECORDS, unseen_latin, unseen_share


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


def test_only_words_written_with_a_capital_are_names():
    from remem.search.query_terms import capitalised_tokens
    from remem.text.tokenize import Tokenizer

    tokens = capitalised_tokens(Tokenizer(), "Caroline 和 MySQL 的 checkup，iPhone 呢？")
    assert tokens == ["carolin", "mysql", "iphon"]  # "checkup" is an English word typed in


def test_short_and_repeated_letters_are_no_names():
    stats = (UNSEEN_MIN_RECORDS, {})
    assert unseen_latin(["wi", "fi", "x", "hhh", "max"], stats) == ("max",)


def test_a_word_whose_translation_the_store_holds_is_not_unseen(tmp_path):
    from remem import Config, Memory

    config = Config.load(env={}, overrides={"indexing.mode": "sync", "embed.provider": "none"})
    with Memory(tmp_path / "m.db", config) as mem:
        mem.ingest({"id": "t1", "session": "s", "speaker": "Ann", "text": "外婆今天去医院了"})
        translation = mem.searcher.translator.translate("Hospital 和 Caroline 在哪？")
    # "Hospital" is 医院, which the chat holds; "Caroline" is no word it holds in any script
    assert translation.held_english == {"hospit"}
