"""Build corpus.jsonl and queries.jsonl of zh_groupchat from the hand-written sources.

The chat text and the questions are written by hand in ``source/<conversation>.chat.txt`` and
``source/<conversation>.queries.txt``; this script only assigns ids and timestamps, so that the
ids stay stable and the writer never types a Unix time. Run from anywhere:

    python benchmarks/data/zh_groupchat/build.py

Chat source lines (see README.md for the full conventions):

    @conversation hike           conversation id (first directive of the file)
    @role 群助手 assistant        speaker whose role is not the default "user"
    === 2026-03-07 20:12         a new session (a day or a sitting), Beijing time (UTC+8)
    +40m                         the clock jumps 40 minutes (also +2h, +90s) inside a session
    {move} 小明: 我搬到杭州了      one message; "{label}" is optional and names it for queries

A message is one source line; a literal ``\\n`` in its text becomes a line break, for the
quoted replies that WeChat shows on several lines ("「王妈妈：几点到校」\\n- - -\\n8 点前").

Query source lines: ``category | labels | query | answer`` with labels separated by spaces,
or ``-`` when nothing answers the question.

``../zh_validation/build.py`` builds the held-out set with these functions.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "source"
# One fixed order, so that corpus.jsonl and queries.jsonl do not depend on the file system.
CONVERSATIONS = ("hike", "family", "devteam", "friends", "assistant")
BEIJING = timezone(timedelta(hours=8))
# Questions are asked one day after the last message of their conversation.
QUERY_DELAY_S = 86_400
CATEGORIES = {
    "single_fact",
    "multi_message",
    "temporal",
    "update",
    "cross_lingual",
    "unanswerable",
    "aggregate",
}

_SESSION = re.compile(r"^=== (\d{4}-\d{2}-\d{2} \d{2}:\d{2})$")
_JUMP = re.compile(r"^\+(\d+)([smh])$")
_MESSAGE = re.compile(r"^(?:\{(?P<label>[\w-]+)\} )?(?P<speaker>[^:]+?): (?P<text>.+)$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600}


@dataclass
class Conversation:
    name: str
    turns: list[dict] = field(default_factory=list)
    labels: dict[str, dict] = field(default_factory=dict)


def _typing_gap_s(text: str) -> int:
    """Seconds before a message: 15-170 s, fixed by the text so rebuilding gives the same data."""
    return 15 + zlib.crc32(text.encode()) % 156


def parse_chat(path: Path) -> Conversation:
    conv: Conversation | None = None
    roles: dict[str, str] = {}
    session_no, index, clock = 0, 0, 0
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        where = f"{path.name}:{lineno}"
        if not line or line.startswith("#"):
            continue
        if line.startswith("@conversation "):
            conv = Conversation(line.split(maxsplit=1)[1])
            continue
        if conv is None:
            raise ValueError(f"{where}: the file must start with '@conversation NAME'")
        if line.startswith("@role "):
            _, speaker, role = line.rsplit(maxsplit=2)
            roles[speaker] = role
        elif m := _SESSION.match(line):
            start = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=BEIJING)
            new_clock = int(start.timestamp())
            if new_clock <= clock:
                raise ValueError(f"{where}: session starts before the previous message")
            session_no, index, clock = session_no + 1, 0, new_clock
        elif m := _JUMP.match(line):
            clock += int(m.group(1)) * _UNIT_S[m.group(2)]
        elif m := _MESSAGE.match(line):
            if session_no == 0:
                raise ValueError(f"{where}: a message before the first '=== date time' line")
            if index > 0:
                clock += _typing_gap_s(m.group("text"))
            index += 1
            speaker = m.group("speaker").strip()
            turn = {
                "id": f"{conv.name}:s{session_no:02d}:{index}",
                "conversation": conv.name,
                "session": f"{conv.name}:s{session_no:02d}",
                "timestamp": clock,
                "speaker": speaker,
                "role": roles.get(speaker, "user"),
                "text": m.group("text").strip().replace("\\n", "\n"),
            }
            conv.turns.append(turn)
            if label := m.group("label"):
                if label in conv.labels:
                    raise ValueError(f"{where}: label {{{label}}} is used twice")
                conv.labels[label] = turn
        else:
            raise ValueError(f"{where}: cannot read {line!r}")
    if conv is None:
        raise ValueError(f"{path}: empty")
    return conv


def parse_queries(
    path: Path, conv: Conversation, categories: frozenset[str] | set[str] = CATEGORIES
) -> list[dict]:
    asked_at = conv.turns[-1]["timestamp"] + QUERY_DELAY_S
    queries = []
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 4:
            raise ValueError(f"{path.name}:{lineno}: want 'category | labels | query | answer'")
        category, labels, query, answer = parts
        if category not in categories:
            raise ValueError(f"{path.name}:{lineno}: unknown category {category!r}")
        names = [] if labels == "-" else labels.split()
        missing = [n for n in names if n not in conv.labels]
        if missing:
            raise ValueError(f"{path.name}:{lineno}: unknown labels {missing}")
        gold = [conv.labels[n] for n in names]
        queries.append(
            {
                "qid": f"{conv.name}:q{len(queries) + 1}",
                "conversation": conv.name,
                "query": query,
                "timestamp": asked_at,
                "gold": [t["id"] for t in gold],
                "gold_sessions": sorted({t["session"] for t in gold}),
                "category": category,
                "answer": answer,
            }
        )
    return queries


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text(to_jsonl(rows), encoding="utf-8")


def build(
    source: Path = SOURCE,
    conversations: tuple[str, ...] = CONVERSATIONS,
    categories: frozenset[str] | set[str] = CATEGORIES,
) -> tuple[list[dict], list[dict]]:
    """Read the hand-written sources; returns (corpus turns, questions). Other sets built
    with these functions name their own ``categories``."""
    corpus: list[dict] = []
    queries: list[dict] = []
    for name in conversations:
        chat = source / f"{name}.chat.txt"
        if not chat.is_file():
            raise FileNotFoundError(
                f"{chat}: missing; every conversation in CONVERSATIONS needs one"
            )
        conv = parse_chat(chat)
        if conv.name != name:
            raise ValueError(f"{chat}: '@conversation {conv.name}' but the file says {name}")
        corpus.extend(conv.turns)
        qfile = source / f"{name}.queries.txt"
        if qfile.exists():
            queries.extend(parse_queries(qfile, conv, categories))
    return corpus, queries


def to_jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(
    here: Path = HERE,
    conversations: tuple[str, ...] = CONVERSATIONS,
    categories: frozenset[str] | set[str] = CATEGORIES,
) -> None:
    corpus, queries = build(here / "source", conversations, categories)
    _write_jsonl(here / "corpus.jsonl", corpus)
    _write_jsonl(here / "queries.jsonl", queries)
    print(f"{len(corpus)} messages, {len(queries)} questions")


if __name__ == "__main__":
    main()
