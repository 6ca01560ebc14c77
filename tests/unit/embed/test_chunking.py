import numpy as np
import pytest

from remem.embed.base import embed_with_chunks, split_for_embedding
from remem.errors import EmbeddingError


def test_short_text_is_one_piece():
    assert split_for_embedding("hello", 100) == ["hello"]
    assert split_for_embedding("x" * 500, 0) == ["x" * 500]


def test_long_text_covers_everything_within_limit():
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    pieces = split_for_embedding(text, 300, overlap=50)
    assert all(len(p) <= 300 for p in pieces)
    assert len(pieces) > 10
    # every word of the text appears in some piece: nothing is truncated
    joined = " ".join(pieces)
    for i in range(200):
        assert f"number {i} " in joined


def test_cjk_text_without_spaces_is_split_too():
    text = "我喜欢爬山。" * 300
    pieces = split_for_embedding(text, 200)
    assert all(len(p) <= 200 for p in pieces)
    assert sum(len(p) for p in pieces) >= len(text)


class _Fake:
    provider, model, model_id, dim, default_chunk_chars = "t", "t", "t:t", 4, 0

    def __init__(self, dim_out=4):
        self.batches = []
        self.dim_out = dim_out

    def embed_passages(self, texts):
        self.batches.append(list(texts))
        out = np.zeros((len(texts), self.dim_out), np.float32)
        for i, t in enumerate(texts):
            out[i, len(t) % self.dim_out] = 1.0
        return out

    embed_queries = embed_passages


def test_chunks_are_averaged_and_normalised():
    fake = _Fake()
    vecs = embed_with_chunks(
        fake, ["a" * 10, "b" * 25], is_query=False, max_chars=10, overlap=0, batch_size=2
    )
    assert vecs.shape == (2, 4)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert sum(len(b) for b in fake.batches) == 1 + 3  # second text split in three


def test_wrong_dimension_is_an_error():
    with pytest.raises(EmbeddingError, match="dimension 3, expected 4"):
        embed_with_chunks(
            _Fake(dim_out=3), ["x"], is_query=True, max_chars=0, overlap=0, batch_size=8
        )
