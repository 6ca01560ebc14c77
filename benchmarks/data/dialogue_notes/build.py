"""Build corpus.jsonl and queries.jsonl of dialogue_notes from its hand-written sources.

``source/<user>.txt``, one file per user:

    @conversation en01          the user's id (en* files go to the English store, zh* to the Chinese one)
    @user Lily                  the user's name: first-person notes are stored as said by them
    note {coffee} Lily drinks flat whites ...     one memory note; "{label}" names it for dialogues
    dialogue {coffee}           a question: the dialogue lines that follow, up to the next blank
    Lily: morning! ...          line or directive; its gold is the labelled note(s) ("{a b}" for two)

Notes in the third person are stored with the speaker "memory"; notes in the first person (they
start with I / I'm / I've / My / Our / We / 我) with the user as the speaker. All users of one
language share a store, so every note about someone else is a distractor. Run from anywhere:

    python build.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
START = 1_767_225_600  # 2026-01-01T00:00:00Z: notes are one minute apart from here
ASKED_AT = START + 200 * 86_400
_FIRST_PERSON = re.compile(r"^(I|I'm|I've|My|Our|We|我)")
_NOTE = re.compile(r"^note \{(?P<label>[\w-]+)\} (?P<text>.+)$")
_DIALOGUE = re.compile(r"^dialogue \{(?P<labels>[\w -]+)\}$")


def parse(path: Path) -> tuple[str, str, list[dict], list[tuple[list[str], list[str]]]]:
    user_id = user = ""
    notes: list[dict] = []
    dialogues: list[tuple[list[str], list[str]]] = []
    current: list[str] | None = None
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        where = f"{path.name}:{lineno}"
        if not line:
            current = None
        elif line.startswith("@conversation "):
            user_id = line.split(maxsplit=1)[1]
        elif line.startswith("@user "):
            user = line.split(maxsplit=1)[1]
        elif m := _NOTE.match(line):
            current = None
            notes.append({"label": m["label"], "text": m["text"]})
        elif m := _DIALOGUE.match(line):
            current = []
            dialogues.append((m["labels"].split(), current))
        elif current is not None:
            current.append(line)
        else:
            raise ValueError(f"{where}: cannot read {line!r}")
    if not user_id or not user:
        raise ValueError(f"{path}: needs '@conversation ID' and '@user NAME'")
    return user_id, user, notes, dialogues


def build(source: Path = HERE / "source") -> tuple[list[dict], list[dict]]:
    corpus: list[dict] = []
    queries: list[dict] = []
    for path in sorted(source.glob("*.txt")):
        user_id, user, notes, dialogues = parse(path)
        store = user_id[:2]
        ids: dict[str, str] = {}
        for index, note in enumerate(notes, start=1):
            if note["label"] in ids:
                raise ValueError(f"{path.name}: label {{{note['label']}}} is used twice")
            ids[note["label"]] = f"{user_id}:n{index}"
            first = bool(_FIRST_PERSON.match(note["text"]))
            corpus.append(
                {
                    "id": ids[note["label"]],
                    "conversation": store,
                    "session": f"{store}:{user_id}",
                    "timestamp": START + 60 * len(corpus),
                    "speaker": user if first else "memory",
                    "role": "user" if first else "assistant",
                    "text": note["text"],
                }
            )
        for labels, lines in dialogues:
            missing = [label for label in labels if label not in ids]
            if missing or not 2 <= len(lines) <= 8:
                raise ValueError(
                    f"{path.name}: dialogue {labels}: unknown {missing} or {len(lines)} lines"
                )
            queries.append(
                {
                    "qid": f"{user_id}:q{sum(q['qid'].startswith(user_id + ':') for q in queries) + 1}",
                    "conversation": store,
                    "query": "\n".join(lines),
                    "timestamp": ASKED_AT,
                    "gold": [ids[label] for label in labels],
                    "gold_sessions": [f"{store}:{user_id}"],
                    "category": "dialogue",
                    "answer": "",
                }
            )
    return corpus, queries


def main(here: Path = HERE) -> None:
    """Write ``here``'s corpus.jsonl and queries.jsonl from ``here/source`` (the other sets
    in this format build themselves with it: remem_bench.chat_sources.write_dialogues)."""
    corpus, queries = build(here / "source")
    for name, rows in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (here / name).write_text(text, encoding="utf-8")
    print(f"{len(corpus)} notes, {len(queries)} dialogues")


if __name__ == "__main__":
    main()
