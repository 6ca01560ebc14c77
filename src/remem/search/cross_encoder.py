"""Local cross-encoder rerankers, from a model directory the user supplies.

No package ships reranker weights that load offline, so a local reranker is always a directory
the user points at (``rerank.local_path``). Two backends:

- ``onnx``: ``model.onnx`` (or ``onnx/model.onnx``) and ``tokenizer.json`` run by onnxruntime
  and the ``tokenizers`` library: no torch. Export any Hugging Face cross-encoder with
  ``optimum-cli export onnx --task text-classification``. Install ``remem[rerank]``.
- ``sentence-transformers``: the directory as ``CrossEncoder`` loads it (torch; installed by you).

``auto`` (the default) takes the ONNX backend when the ONNX files exist, else
sentence-transformers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from remem.errors import ConfigError

ONNX_FILES = ("model.onnx", "onnx/model.onnx", "model_quantized.onnx", "onnx/model_quantized.onnx")


def find_onnx(path: Path) -> Path | None:
    for name in ONNX_FILES:
        if (path / name).is_file():
            return path / name
    return None


class OnnxCrossEncoder:
    """A sequence-classification model over (query, document) pairs; the relevance is the
    single logit, or the last class's logit when the head has two classes."""

    def __init__(
        self, path: Path, *, max_length: int = 512, threads: int = 1, batch_size: int = 16
    ) -> None:
        model_file = find_onnx(path)
        if model_file is None:
            raise ConfigError(
                f"rerank.local_path {str(path)!r} has no model.onnx (looked for "
                f"{', '.join(ONNX_FILES)})"
            )
        if not (path / "tokenizer.json").is_file():
            raise ConfigError(
                f"rerank.local_path {str(path)!r} has no tokenizer.json (save the "
                "model's fast tokenizer next to model.onnx)"
            )
        # onnxruntime writes telemetry files unless told not to before it is imported.
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError:
            raise ConfigError(
                "the onnx reranker needs onnxruntime and tokenizers: pip install 'remem[rerank]'"
            ) from None
        self.name = f"local:{path.name}"
        self.probabilities = False  # raw logits: the relevance stage applies a sigmoid
        self.batch_size = batch_size
        try:
            self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        except Exception as exc:  # the Rust library raises a bare Exception
            raise ConfigError(f"cannot read {path / 'tokenizer.json'}: {exc}") from None
        self._tokenizer.enable_truncation(max_length=max_length)
        pad_id = self._tokenizer.token_to_id("[PAD]")
        if pad_id is None:
            pad_id = self._tokenizer.token_to_id("<pad>") or 0
        self._tokenizer.enable_padding(pad_id=pad_id)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(
                str(model_file), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ConfigError(f"cannot load {model_file}: {exc}") from None
        self._inputs = {i.name for i in self._session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise ConfigError(
                f"{model_file} has no input_ids input (inputs: "
                f"{', '.join(sorted(self._inputs))}); is it a cross-encoder?"
            )

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        out: list[float] = []
        for start in range(0, len(documents), self.batch_size):
            batch = documents[start : start + self.batch_size]
            encodings = self._tokenizer.encode_batch([(query, d) for d in batch])
            feed = {"input_ids": np.array([e.ids for e in encodings], dtype=np.int64)}
            if "attention_mask" in self._inputs:
                feed["attention_mask"] = np.array(
                    [e.attention_mask for e in encodings], dtype=np.int64
                )
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
            logits = np.asarray(self._session.run(None, feed)[0], dtype=np.float32)
            logits = logits.reshape(len(batch), -1)
            out.extend(float(v) for v in logits[:, -1])
        return out


class SentenceTransformersCrossEncoder:
    def __init__(self, path: Path) -> None:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise ConfigError(
                f"rerank.local_path {str(path)!r} has no model.onnx + tokenizer.json, and "
                "sentence-transformers is not installed: export the model to ONNX and pip "
                "install 'remem[rerank]', or pip install sentence-transformers"
            ) from None
        self.name = f"local:{path.name}"
        self.probabilities = True  # CrossEncoder.predict applies a sigmoid to a single logit
        self._model = CrossEncoder(str(path), local_files_only=True)

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        return [float(s) for s in self._model.predict([(query, d) for d in documents])]


def load_cross_encoder(
    path: Path, backend: str = "auto", *, max_length: int = 512, threads: int = 1
):
    path = Path(path).expanduser()
    if not path.is_dir():
        raise ConfigError(
            f"rerank.local_path {str(path)!r} is not a directory; give the folder "
            "that holds the cross-encoder"
        )
    if backend == "onnx" or (backend == "auto" and find_onnx(path) is not None):
        return OnnxCrossEncoder(path, max_length=max_length, threads=threads)
    return SentenceTransformersCrossEncoder(path)
