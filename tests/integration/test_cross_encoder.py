"""The local ONNX cross-encoder path, with a real onnxruntime session and a real tokenizer.

No offline package ships reranker weights, so the test builds a tiny sequence-classification
graph of the same shape as an exported cross-encoder (input_ids, attention_mask,
token_type_ids -> logits [batch, 1]): each document-side token adds its learned weight, so a
document mentioning "berlin" scores high. That exercises loading, pair tokenisation, padding,
batching and the reranker stage end to end.
"""

from __future__ import annotations

import json
import math

import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
tokenizers = pytest.importorskip("tokenizers")

from onnx import TensorProto, helper  # noqa: E402

from helpers import HashEmbedder  # noqa: E402
from remem import Config, Memory  # noqa: E402
from remem.errors import ConfigError  # noqa: E402
from remem.search.cross_encoder import OnnxCrossEncoder, load_cross_encoder  # noqa: E402
from remem.search.rerank import make_reranker  # noqa: E402

WORDS = [
    "where",
    "does",
    "alice",
    "live",
    "she",
    "lives",
    "in",
    "berlin",
    "paris",
    "likes",
    "tea",
    "coffee",
    "moved",
    "to",
    "now",
]
WEIGHTS = {"berlin": 5.0, "moved": 1.0, "paris": 0.5}
NOW = 1_750_000_000.0


def build_model(path, *, two_classes: bool = False) -> None:
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
    for w in WORDS:
        vocab[w] = len(vocab)
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = tokenizers.normalizers.Lowercase()
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    tok.save(str(path / "tokenizer.json"))

    table = [[WEIGHTS.get(w, 0.0)] for w in sorted(vocab, key=vocab.get)]
    nodes = [
        helper.make_node("Gather", ["emb", "input_ids"], ["g"]),  # [B, T, 1]
        helper.make_node("Squeeze", ["g", "axis2"], ["w"]),  # [B, T]
        helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["t"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["w", "m"], ["wm"]),
        helper.make_node("Mul", ["wm", "t"], ["wmt"]),  # only the document's tokens count
        helper.make_node("ReduceSum", ["wmt", "axis1"], ["score"], keepdims=1),  # [B, 1]
    ]
    out_dim = 1
    if two_classes:  # [not relevant, relevant] = [-score, score]
        nodes.append(helper.make_node("Neg", ["score"], ["neg"]))
        nodes.append(helper.make_node("Concat", ["neg", "score"], ["logits"], axis=1))
        out_dim = 2
    else:
        nodes.append(helper.make_node("Identity", ["score"], ["logits"]))
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", out_dim])],
        initializer=[
            helper.make_tensor(
                "emb", TensorProto.FLOAT, [len(table), 1], [v for row in table for v in row]
            ),
            helper.make_tensor("axis1", TensorProto.INT64, [1], [1]),
            helper.make_tensor("axis2", TensorProto.INT64, [1], [2]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path / "model.onnx"))


@pytest.fixture
def model_dir(tmp_path):
    d = tmp_path / "tiny-reranker"
    d.mkdir()
    build_model(d)
    return d


def test_scores_pairs_in_batches_with_padding(model_dir):
    enc = OnnxCrossEncoder(model_dir, batch_size=2)
    docs = ["she lives in paris", "she moved to berlin now", "likes tea", "berlin berlin"]
    scores = enc.score("where does alice live", docs)
    assert scores == pytest.approx([0.5, 6.0, 0.0, 10.0])
    # The query's own tokens never count (type id 0): same scores for another query.
    assert enc.score("berlin berlin berlin", docs) == pytest.approx(scores)


def test_two_class_head_uses_the_relevant_logit(tmp_path):
    d = tmp_path / "two"
    d.mkdir()
    build_model(d, two_classes=True)
    assert OnnxCrossEncoder(d).score("q", ["berlin", "tea"]) == pytest.approx([5.0, 0.0])


def test_truncation_to_max_length(model_dir):
    enc = OnnxCrossEncoder(model_dir, max_length=6)
    # [CLS] where [SEP] tea tea ... : "berlin" falls beyond the 6-token limit.
    assert enc.score("where", ["tea tea tea berlin"]) == pytest.approx([0.0])


def test_auto_backend_picks_onnx_and_names_missing_files(tmp_path, model_dir):
    assert isinstance(load_cross_encoder(model_dir), OnnxCrossEncoder)
    (model_dir / "tokenizer.json").unlink()
    with pytest.raises(ConfigError, match=r"tokenizer\.json"):
        load_cross_encoder(model_dir, "onnx")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match=r"model\.onnx"):
        load_cross_encoder(empty, "onnx")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not a model")
    (broken / "tokenizer.json").write_text(json.dumps({}))
    with pytest.raises(ConfigError):
        load_cross_encoder(broken)


def test_search_reranks_with_the_local_model(tmp_path, model_dir):
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "rerank.provider": "local",
            "rerank.local_path": str(model_dir),
            "rerank.weight": 1.0,
        },
    )
    assert make_reranker(config.rerank).name == "local:tiny-reranker"
    with Memory(tmp_path / "m.db", config, embedder=HashEmbedder()) as mem:
        mem.add("Alice lives in Paris", created_at=NOW - 100)
        mem.add("Alice likes tea", created_at=NOW - 90)
        mem.add("Alice moved to Berlin", created_at=NOW - 80)
        result = mem.search("where does Alice live", k=3, now=NOW)
    assert result.hits[0].record.text == "Alice moved to Berlin"
    stages = [name for name, _ in result.hits[0].explain.stages]
    assert "rerank (local:tiny-reranker)" in stages
    assert not result.warnings


def _gated_config(model_dir, floor: float) -> Config:
    return Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "rerank.provider": "local",
            "rerank.local_path": str(model_dir),
            "search.relevance_floor": floor,
        },
    )


def test_the_cross_encoder_judges_relevance_in_the_gate(tmp_path, model_dir):
    """With a cross-encoder configured, its probability (sigmoid of the logit) is a hit's
    relevance: the gate returns nothing when it finds nothing relevant, even with an
    uncalibrated embedding model (which alone never abstains)."""
    with Memory(tmp_path / "m.db", _gated_config(model_dir, 0.9), embedder=HashEmbedder()) as mem:
        mem.add("Alice likes tea", created_at=NOW - 90)
        mem.add("Alice likes coffee", created_at=NOW - 80)
        nothing = mem.search("where does Alice live", k=3, now=NOW)
        assert nothing.hits == []  # logits 0: relevance 0.5 < 0.9
        assert any("relevance gate" in n for n in nothing.notes)
        mem.add("Alice moved to Berlin", created_at=NOW - 70)
        found = mem.search("where does Alice live", k=3, now=NOW)
    assert found.hits[0].record.text == "Alice moved to Berlin"
    assert found.hits[0].score == pytest.approx(1 / (1 + math.exp(-6.0)), abs=1e-6)


def test_without_a_floor_the_cross_encoder_still_sets_scores_in_0_1(tmp_path, model_dir):
    with Memory(tmp_path / "m.db", _gated_config(model_dir, 0.0), embedder=HashEmbedder()) as mem:
        mem.add("Alice likes tea", created_at=NOW - 90)
        result = mem.search("where does Alice live", k=3, now=NOW)
    assert [h.score for h in result.hits] == [pytest.approx(0.5)]
