"""What is true now (issue 48), with the real bundled model: Tom's move from Shenzhen to
Shanghai in a 27-line English/Chinese group chat, and the superseded curated memory.

Facts are put into the store from the records with the extractor as it is (``statements_of``
and ``fold``) until the facts service keeps them current from the indexing path."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from remem import Config, Memory
from remem.facts.extract import statements_of
from remem.facts.fold import fold
from remem.store.memory import InMemoryStore
from remem.store.queries import RecordPage
from remem.types import Turn


def ts(day: str, clock: str = "10:00") -> float:
    return datetime.fromisoformat(f"{day}T{clock}:00").replace(tzinfo=UTC).timestamp()


# (day, time, speaker, text): Tom, Lin, Ann and Wei in one group
TOM_CHAT = [
    ("2026-11-02", "09:10", "tom", "Tom", "I live in Shenzhen now, the new flat is near the bay"),
    ("2026-11-02", "09:12", "lin", "Lin", "Nice! Shenzhen is great in winter"),
    ("2026-11-02", "09:15", "ann", "Ann", "Tom, send pictures of the flat"),
    ("2026-11-02", "09:20", "tom", "Tom", "Will do once the boxes are gone"),
    ("2026-11-03", "20:01", "wei", "Wei", "周末有人去爬山吗？"),
    ("2026-11-03", "20:05", "lin", "Lin", "我去！天气预报说周六晴天"),
    ("2026-11-03", "20:07", "tom", "Tom", "我这周末要加班，下次吧"),
    ("2026-11-05", "12:30", "ann", "Ann", "Has anyone tried the new ramen place downtown?"),
    ("2026-11-05", "12:34", "wei", "Wei", "Yes, the broth is amazing but the queue is long"),
    ("2026-11-08", "18:00", "tom", "Tom", "Shenzhen traffic is something else, 50 minutes to work"),
    ("2026-11-08", "18:03", "lin", "Lin", "深圳的地铁还好吧？"),
    ("2026-11-08", "18:05", "tom", "Tom", "地铁挺方便的，就是早上人太多"),
    ("2026-11-12", "21:00", "wei", "Wei", "下个月我生日，大家来吃火锅"),
    ("2026-11-12", "21:02", "ann", "Ann", "Count me in for the hotpot!"),
    (
        "2026-11-15",
        "10:00",
        "tom",
        "Tom",
        "Big news: I'm leaving Shenzhen, the company is moving me",
    ),
    (
        "2026-11-15",
        "10:01",
        "tom",
        "Tom",
        "I moved to Shanghai on December 1st, new office in Pudong",
    ),
    ("2026-11-15", "10:03", "lin", "Lin", "Wow, that is fast. Congrats Tom!"),
    ("2026-11-15", "10:05", "ann", "Ann", "We will miss having you close by"),
    ("2026-11-20", "19:00", "wei", "Wei", "汤姆搬家需要帮忙吗？"),
    ("2026-11-20", "19:04", "tom", "Tom", "谢谢，搬家公司都安排好了"),
    ("2026-12-02", "08:30", "lin", "Lin", "Tom, how is the new city treating you?"),
    ("2026-12-08", "22:10", "tom", "Tom", "First week in Shanghai done, the food is great"),
    ("2026-12-08", "22:12", "ann", "Ann", "Try the soup dumplings at Jia Jia Tang Bao"),
    ("2026-12-09", "09:00", "wei", "Wei", "上海冬天挺冷的，多穿点"),
    ("2026-12-09", "09:05", "tom", "Tom", "上海的生活已经习惯了，欢迎大家来玩"),
    ("2026-12-10", "11:00", "lin", "Lin", "I miss the Shenzhen dim sum we had with Tom"),
    ("2026-12-10", "11:02", "ann", "Ann", "Same, those were good times"),
]
ASKED_AT = ts("2026-12-20", "12:00")


def put_facts(mem: Memory) -> None:
    """Facts from every record, with the extractor as it is (the facts service will do this)."""
    records = mem.store.list_records(RecordPage(limit=None, newest_first=False))
    mem.store.put_facts(fold(s for r in records for s in statements_of(r)))


def ingest_tom(mem: Memory) -> dict[str, str]:
    """The chat as messages of one group session; their ids by text."""
    ids = {}
    for day, clock, speaker_id, name, text in TOM_CHAT:
        when = ts(day, clock)
        rec = mem.ingest(
            {
                "text": text,
                "session": "group-1",
                "role": "user",
                "speaker_id": speaker_id,
                "speaker_label": name,
                "created_at": when,
                "event_time": ts("2026-12-01", "00:00") if "December 1st" in text else when,
            },
            wait=True,
        )
        ids[text] = rec.id
    put_facts(mem)
    return ids


StoreFactory = Callable[[Path], Memory]


def _in_memory(_tmp: Path, e5) -> Memory:
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    return Memory(store=InMemoryStore(), config=config, embedder=e5)


def _sqlite(tmp: Path, e5) -> Memory:
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    return Memory(tmp / "remem.db", config, embedder=e5)


@pytest.fixture(
    params=[
        pytest.param(_in_memory, id="memory"),
        pytest.param(_sqlite, id="sqlite"),
    ]
)
def mem(request, tmp_path, e5) -> Iterator[Memory]:
    with request.param(tmp_path, e5) as m:
        yield m


@pytest.fixture(params=[pytest.param(_in_memory, id="memory"), pytest.param(_sqlite, id="sqlite")])
def any_mem(request, tmp_path, e5) -> Iterator[Memory]:
    """Either store: what needs no facts runs on SQLite today."""
    with request.param(tmp_path, e5) as m:
        yield m


SHANGHAI = "I moved to Shanghai on December 1st, new office in Pudong"
SHENZHEN = "I live in Shenzhen now, the new flat is near the bay"


def test_where_does_tom_live_now_ranks_the_move_first(mem: Memory) -> None:
    ids = ingest_tom(mem)
    hits = mem.search("Where does Tom live now?", k=5, now=ASKED_AT).hits
    assert hits[0].record.id in {ids[SHANGHAI]}
    stale = [h for h in hits if h.record.id == ids[SHENZHEN]]
    if stale:  # the Shenzhen line, when still shown, says it is no longer true
        assert stale[0].explain.earlier is not None
        assert stale[0].explain.earlier[1] is not None
        assert any(n.startswith("earlier; since 2026-") for n in stale[0].explain.notes)


def test_a_question_about_the_past_ranks_the_earlier_value_first(mem: Memory) -> None:
    ids = ingest_tom(mem)
    hits = mem.search("Where did Tom live before he moved?", k=10, now=ASKED_AT).hits
    order = [h.record.id for h in hits]
    assert order.index(ids[SHENZHEN]) < order.index(ids[SHANGHAI])


def test_the_stage_can_be_switched_off_by_name(mem: Memory) -> None:
    ingest_tom(mem)
    on = mem.search("Where does Tom live now?", k=10, now=ASKED_AT)
    off = mem.search("Where does Tom live now?", k=10, now=ASKED_AT, disable=("currency",))
    assert any(name == "currency" for h in on.hits for name, _ in h.explain.stages)
    assert not any(name == "currency" for h in off.hits for name, _ in h.explain.stages)


def order_of(hits, record_id: str) -> int:
    return [h.record.id for h in hits].index(record_id)


def ask_in_group(mem: Memory, text: str):
    asked = mem.ingest(
        {
            "text": text,
            "session": "group-1",
            "role": "user",
            "speaker_id": "ann",
            "speaker_label": "Ann",
            "created_at": ASKED_AT,
        },
        wait=True,
    )
    return mem.recall_for_turn(Turn(session="group-1", inputs=[asked.id], now=ASKED_AT))


def test_the_chat_bot_hook_block_leads_with_the_move_and_marks_the_old_line(
    mem: Memory,
) -> None:
    ids = ingest_tom(mem)
    recall = ask_in_group(mem, "Where does Tom live now?")
    top = recall.hits[0].record.text
    assert "Shanghai" in top or "上海" in top  # a line of Tom's life in Shanghai leads
    assert order_of(recall.hits, ids[SHANGHAI]) < order_of(recall.hits, ids[SHENZHEN])
    assert "I moved to Shanghai on December 1st" in recall.block
    stale = [line for line in recall.block.splitlines() if "Shenzhen now" in line]
    assert stale, "the old line is shown beside the move, marked"
    assert all("(earlier; since 2026-12-01: Shanghai)" in line for line in stale)


def test_which_city_to_visit_tom_in_never_injects_the_old_line_unmarked(mem: Memory) -> None:
    ingest_tom(mem)
    block = ask_in_group(mem, "Which city should I visit Tom in now?").block
    assert "Shanghai" in block
    for line in block.splitlines():
        if "Shenzhen now" in line:
            assert "(earlier; since 2026-12-01: Shanghai)" in line


def capture(mem: Memory, text: str, user: str | None = "ann", agent: str = "remy"):
    turn = Turn(agent=agent, user_id=user, inputs=[{"role": "user", "text": text}])
    return mem.capture_after_turn(turn)


def test_a_superseded_memory_is_left_out_of_every_search_unless_asked(any_mem: Memory) -> None:
    mem = any_mem
    old = capture(mem, "I live in Shenzhen.").stored[0]
    new = capture(mem, "I live in Shanghai.")
    assert new.superseded == [old.id]
    for question in ("Where do I live?", "我住在哪里？"):
        found = {h.record.id for h in mem.search(question, k=10).hits}
        assert old.id not in found and new.stored[0].id in found
        asked = mem.search(question, k=10, filters={"include_superseded": True})
        assert old.id in {h.record.id for h in asked.hits}
    tools = mem.tools("remy", user="ann")
    recalled = tools.call("memory_recall", {"query": "Where do I live?"})["memories"]
    assert old.id not in {m["id"] for m in recalled}
    asked = tools.call("memory_recall", {"query": "Where do I live?", "include_superseded": True})
    assert old.id in {m["id"] for m in asked["memories"]}
    injected = mem.recall_memories("Where do I live?", agent="remy", user="ann")
    assert "Shenzhen" not in injected.block and "Shanghai" in injected.block
    # its history and listing still hold it
    assert old.id in {r.id for r in mem.history(new.stored[0].id)}
    assert old.id in {r.id for r in mem.list(limit=None)}


def test_anns_first_person_fact_is_hers_alone(any_mem: Memory) -> None:
    mem = any_mem
    stored = capture(mem, "I live in Paris.").stored[0]
    assert stored.metadata["about"] == "speaker:ann"

    def injected(question: str, user: str | None) -> str:
        return mem.recall_memories(question, agent="remy", user=user, preview=True).block

    assert "Paris" in injected("Where do I live?", "ann")
    assert "Paris" not in injected("Where do I live?", None)
    assert "Paris" not in injected("Where do I live?", "bob")
    assert "Paris" in injected("Where does Ann live?", "bob")  # named, within remy's scopes
    bob = mem.tools("remy", user="bob").call("memory_recall", {"query": "Where do I live?"})
    assert stored.id not in {m["id"] for m in bob["memories"]}


def test_a_statement_the_fact_rules_read_supersedes_like_any_other(any_mem: Memory) -> None:
    mem = any_mem
    lisbon = capture(mem, "I moved to Lisbon last month.").stored[0]
    porto = capture(mem, "I'm living in Porto these days.")
    assert porto.superseded == [lisbon.id]
    assert porto.stored[0].metadata["fact_value"] == "Porto"
    for doubt in ("I'm not sure where I live now", "I live in Madrid or Lisbon"):
        assert not capture(mem, doubt).superseded  # non-statements close nothing


@pytest.mark.parametrize("order", ["pipeline", "answerability"])
def test_the_current_value_leads_in_either_hit_order(mem: Memory, order: str) -> None:
    mem.config.search.hit_order = order
    ids = ingest_tom(mem)
    now = mem.search("Where does Tom live now?", k=5, now=ASKED_AT).hits
    assert now[0].record.id == ids[SHANGHAI]
    before = mem.search("Where did Tom live before he moved?", k=10, now=ASKED_AT).hits
    order_ids = [h.record.id for h in before]
    assert order_ids.index(ids[SHENZHEN]) < order_ids.index(ids[SHANGHAI])
    if order == "answerability":  # after the move's line, the scores fall down the list
        shown = [h.score for h in now[1:]]
        assert shown == sorted(shown, reverse=True)
