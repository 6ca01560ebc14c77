"""Names in the embedded query: a person named by another form than their speaker label adds
the label to the query the model embeds; the labels come from the scopes searched, and a big
store's are read again in the background."""

from __future__ import annotations

import threading
import time

from helpers import HashEmbedder
from remem import Config, Memory
from remem.search import query_names as retrieve_names
from remem.search.query_names import CHEAP_READ_S, SpeakerNames, translated
from remem.store.memory import InMemoryStore
from remem.types import Filters

NOW = 1_790_000_000.0
LEXICAL = Config.load(env={}, overrides={"embed.provider": "none"})


def _turn(i: int, speaker: str, text: str, scope: str = "custom:hike") -> dict:
    return {
        "id": f"m{i}",
        "scope": scope,
        "session": scope,
        "speaker": speaker,
        "text": text,
        "timestamp": NOW + i,
    }


def test_translated_adds_only_labels_named_otherwise():
    assert translated("What drone does Lao Zhao fly?", {"赵磊": "lao zhao"}) == (
        "What drone does Lao Zhao fly? 赵磊"
    )
    assert translated("When did caroline paint?", {"Caroline": "caroline"}) == (
        "When did caroline paint?"
    )


def test_the_embedded_query_says_the_label_and_the_keywords_do_not(tmp_path):
    embedder = HashEmbedder()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=embedder) as mem:
        mem.ingest_many([_turn(1, "赵磊", "我的无人机是大疆 Mini 4 Pro"), _turn(2, "刘洋", "好的")])
        embedder.seen.clear()
        result = mem.search("What drone does Lao Zhao fly?", k=2, now=NOW + 10)
        assert embedder.seen == ["What drone does Lao Zhao fly? 赵磊"]
        assert "names: the embedded query also says 赵磊 (lao zhao)" in result.notes
        # a given vector is of the query as asked: the translated query is embedded instead
        embedder.seen.clear()
        vector = embedder.embed_queries(["What drone does Lao Zhao fly?"])[0]
        embedder.seen.clear()
        mem.search("What drone does Lao Zhao fly?", k=2, now=NOW + 10, query_vector=vector)
        assert embedder.seen == ["What drone does Lao Zhao fly? 赵磊"]
        # off: the query as asked
        mem.config.names.translate_vector = False
        embedder.seen.clear()
        mem.search("What drone does Lao Zhao fly?", k=2, now=NOW + 10)
        assert embedder.seen == ["What drone does Lao Zhao fly?"]


def test_labels_come_from_the_scopes_searched_and_follow_writes():
    store = InMemoryStore()
    names = SpeakerNames(store)
    with Memory(store=store, config=LEXICAL) as mem:
        mem.ingest_many([_turn(1, "赵磊", "你好", scope="custom:a")])
        mem.ingest_many([_turn(2, "王小明", "你好", scope="custom:b")])
        scope_a = "custom:a"
        assert set(names.named("Where is Xiaoming?", None)) == {"王小明"}
        assert names.named("Where is Xiaoming?", Filters(scopes=[scope_a])) == {}
        mem.ingest_many([_turn(3, "王小明", "我也在", scope="custom:a")])  # a cheap store
        assert set(names.named("Where is Xiaoming?", Filters(scopes=[scope_a]))) == {"王小明"}


def test_a_self_introduction_names_its_speaker_in_the_scopes_that_hold_it(tmp_path, monkeypatch):
    with Memory(tmp_path / "m.db", LEXICAL) as mem:
        names = SpeakerNames(mem.store)
        mem.ingest_many([_turn(1, "周婷婷", "欢迎小明！我是 Tina", scope="custom:a")])
        mem.ingest_many([_turn(2, "周婷婷", "你好", scope="custom:b")])
        assert names.named("How did Tina hurt herself?", None) == {"周婷婷": "tina"}
        assert names.named("How did Tina hurt herself?", Filters(scopes=["custom:b"])) == {}
        mem.delete("m1")  # forgotten: the name goes with the line, at the next refresh
        assert names.named("How did Tina hurt herself?", None) == {"周婷婷": "tina"}
        monkeypatch.setattr(retrieve_names, "REFRESH_S", 0.0)
        deadline = time.monotonic() + 10
        while names.named("How did Tina hurt herself?", None) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert names.named("How did Tina hurt herself?", None) == {}


class LateIntroductions(InMemoryStore):
    """The first read of the self-introductions misses them (it raced the write)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def speaker_lines_matching(self, patterns, filters=None, *, limit=10_000):
        self.reads += 1
        return [] if self.reads == 1 else super().speaker_lines_matching(patterns, filters)


def test_a_refresh_that_finds_new_names_is_used_without_a_write(monkeypatch):
    store = LateIntroductions()
    names = SpeakerNames(store)
    with Memory(store=store, config=LEXICAL) as mem:
        mem.ingest_many([_turn(1, "周婷婷", "欢迎小明！我是 Tina")])
        assert names.named("How did Tina hurt herself?", None) == {}  # the first read missed it
        monkeypatch.setattr(retrieve_names, "REFRESH_S", 0.0)
        deadline = time.monotonic() + 10
        while not names.named("How did Tina hurt herself?", None) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert names.named("How did Tina hurt herself?", None) == {"周婷婷": "tina"}


class BrokenIntroductions(InMemoryStore):
    def speaker_lines_matching(self, patterns, filters=None, *, limit=10_000):
        raise RuntimeError("database is locked")


def test_a_failed_read_of_introductions_leaves_the_labels_their_names():
    store = BrokenIntroductions()
    names = SpeakerNames(store)
    with Memory(store=store, config=LEXICAL) as mem:
        mem.ingest_many([_turn(1, "王小明", "我是 Tina")])
        assert set(names.named("Where is Xiaoming?", None)) == {"王小明"}


class SlowLabels(InMemoryStore):
    """Reading the labels takes as long as on a big store."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.read_done = threading.Event()

    def distinct_values(self, column, filters=None):
        self.reads += 1
        time.sleep(CHEAP_READ_S * 4)
        try:
            return super().distinct_values(column, filters)
        finally:
            self.read_done.set()


def test_a_big_stores_labels_are_read_again_in_the_background():
    store = SlowLabels()
    names = SpeakerNames(store)
    with Memory(store=store, config=LEXICAL) as mem:
        mem.ingest_many([_turn(1, "赵磊", "你好")])
        assert names.named("Lao Zhao?", None) == {"赵磊": "lao zhao"}  # the first read: now
        mem.ingest_many([_turn(2, "王小明", "你好")])
        store.read_done.clear()
        assert names.named("Xiaoming?", None) == {}  # changed, but read less than a minute ago
        assert store.reads == 1
        names._indexes[None] = (*names._indexes[None][:1], 0.0, *names._indexes[None][2:])
        assert names.named("Xiaoming?", None) == {}  # a minute on: the old set answers now ...
        assert store.read_done.wait(5)
        deadline = time.monotonic() + 5
        while names.named("Xiaoming?", None) == {} and time.monotonic() < deadline:
            time.sleep(0.01)
        assert set(names.named("Xiaoming?", None)) == {"王小明"}  # ... the new one next
        assert store.reads == 2


def test_a_big_stores_first_read_does_not_hold_the_search(monkeypatch):
    monkeypatch.setattr("remem.search.query_names.SMALL_STORE", 0)  # every store counts as big
    store = SlowLabels()
    names = SpeakerNames(store)
    with Memory(store=store, config=LEXICAL) as mem:
        mem.ingest_many([_turn(1, "赵磊", "你好")])
        assert names.named("Lao Zhao?", None) == {}  # the read runs in the background
        assert store.read_done.wait(5)
        deadline = time.monotonic() + 5
        while not names.named("Lao Zhao?", None) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert names.named("Lao Zhao?", None) == {"赵磊": "lao zhao"}
        assert store.reads == 1
