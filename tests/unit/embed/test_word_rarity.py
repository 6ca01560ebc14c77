"""What a word says in general language, from the bundled USE tokenizer's unigram model."""

from __future__ import annotations

from remem.embed.word_rarity import MOST, WordRarity, word_rarity


def test_rare_words_weigh_more_than_common_ones():
    weights = word_rarity().weights(["take", "ago", "smoker", "rachel", "the"])
    assert weights is not None
    assert weights["the"] == 0.0  # at or below the commonest words' level
    assert weights["take"] < weights["ago"] < weights["smoker"] < weights["rachel"]
    assert all(w >= 0 for w in weights.values())


def test_any_script_is_weighed_and_nothing_beyond_the_cap():
    weights = word_rarity().weights(["小屋", "钱", "東京", "வணக்கம்", "abc123def456abc789"])
    assert weights is not None and all(0 < w <= MOST for w in weights.values())
    # a character the model lacks is as surprising as its segmentation says, not free
    assert weights["வணக்கம்"] == MOST and weights["abc123def456abc789"] == MOST
    assert word_rarity().weights([]) is None  # nothing to weigh: nothing loaded for it


def test_without_the_bundled_tokenizer_there_are_no_weights(monkeypatch):
    import remem.embed.local as local

    def missing(model: str, **_: object) -> None:
        raise local.EmbeddingError("no package")

    calls = []
    monkeypatch.setattr(
        local, "verify_weights", lambda model, **kw: calls.append(model) or missing(model)
    )
    rarity = WordRarity()
    assert rarity.weights(["smoker"]) is None
    assert rarity.weights(["smoker"]) is None
    assert calls == ["use-multilingual-v3"]  # tried once, then off
