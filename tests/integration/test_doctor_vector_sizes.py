"""A store poisoned by a provider's mis-sized answer (as remem before the dimension guard
wrote them): `remem doctor` finds the vector and `--fix` re-embeds it."""

from __future__ import annotations

import numpy as np
from test_openai_provider import FakeOpenAI

from remem import Config, Memory
from remem.doctor import missized_vectors, run_doctor
from remem.store.queries import VectorWrite

MODEL_ID = "openai:fake-embed"


def test_missized_vector_is_found_and_re_embedded(tmp_path):
    server = FakeOpenAI(dim=8)
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "embed.provider": "openai",
            "embed.base_url": server.url,
            "embed.model": "fake-embed",
            "embed.backoff_s": 0.01,
        },
    )
    db = tmp_path / "x.db"
    try:
        with Memory(db, config) as mem:
            mem.ingest_many([{"id": f"r{i}", "text": f"note {i}"} for i in range(3)])
            poisoned = mem.get("r1").rowid
            # the stray 5-d answer an older process learned and stored under the same model id
            mem.store.put_vectors(
                VectorWrite(MODEL_ID, "openai", "fake-embed", [(poisoned, np.ones(5))])
            )
        with Memory(db, config) as mem:  # a restart: the size is learned afresh (8)
            assert missized_vectors(mem.store, MODEL_ID, 8) == {poisoned: "r1"}
            found = {f.check: f for f in run_doctor(mem)}
            assert found["vector sizes"].status == "error"
            assert (
                "1 openai:fake-embed vectors are not 8-dimensional" in found["vector sizes"].detail
            )
            assert found["vector index"].detail == "2 vectors loaded, 3 stored"
            assert found["missing vectors"].status == "ok"  # why --fix used to miss it
            fixed = {f.check: f for f in run_doctor(mem, fix=True)}
            assert fixed["vector sizes"].fixed
            assert "re-embedded 1, failed 0" in fixed["vector sizes"].detail
            again = {f.check: (f.status, f.detail) for f in run_doctor(mem)}
            assert {status for status, _ in again.values()} == {"ok"}, again
            assert again["vector index"][1] == "3 vectors loaded, 3 stored"
            assert missized_vectors(mem.store, MODEL_ID, 8) == {}
            hit = mem.search("note 1", k=1).hits[0]
            assert hit.record.id == "r1" and hit.explain.vector_rank == 1
    finally:
        server.close()
