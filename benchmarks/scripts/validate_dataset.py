"""Check a retrieval dataset in the ../shared/bench format, and a no-answer question set.

    python benchmarks/scripts/validate_dataset.py benchmarks/data/zh_groupchat
    python benchmarks/scripts/validate_dataset.py --no-answer benchmarks/data/no_answer/queries.jsonl

A dataset folder holds ``corpus.jsonl`` (one turn a line) and ``queries.jsonl`` (one question a
line). Errors (the data cannot be scored as it is) make the exit status 1. Questions whose
answer shares no token with its gold messages are only listed: that cheap check finds gold ids
pointing at the wrong message, but also flags honest paraphrases and translations (an English
answer to a Chinese message), so a person reads the list.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from remem.text.normalize import normalize_text

TURN_FIELDS = {
    "id": str,
    "conversation": str,
    "session": str,
    "timestamp": (int, float),
    "speaker": str,
    "role": str,
    "text": str,
}
QUERY_FIELDS = {
    "qid": str,
    "conversation": str,
    "query": str,
    "timestamp": (int, float),
    "gold": list,
    "gold_sessions": list,
    "category": str,
    "answer": str,
}
NO_ANSWER_FIELDS = {"qid": str, "query": str, "lang": str, "target": str}
ROLES = {"user", "assistant"}
NO_ANSWER_LANGS = {"en", "zh", "und"}  # "und": emoji or symbols only (BCP 47 "undetermined")
NO_ANSWER_TARGETS = {"locomo", "zh_groupchat", "both"}
UNANSWERABLE = "unanswerable"

_ASCII_WORD = re.compile(r"[a-z0-9][a-z0-9.\-]*")
_HAN_RUN = re.compile(r"[\u3400-\u9fff]+")


@dataclass
class DatasetReport:
    messages_per_conversation: Counter[str] = field(default_factory=Counter)
    questions_per_conversation: Counter[str] = field(default_factory=Counter)
    categories: Counter[str] = field(default_factory=Counter)
    categories_per_conversation: dict[str, Counter[str]] = field(default_factory=dict)
    speakers_per_conversation: dict[str, set[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    misaligned: list[str] = field(default_factory=list)

    @property
    def messages(self) -> int:
        return sum(self.messages_per_conversation.values())

    @property
    def questions(self) -> int:
        return sum(self.questions_per_conversation.values())

    def conversation_kinds(self) -> Counter[str]:
        """'private' for two speakers, 'group' for three or more (bots count as speakers)."""
        return Counter(
            "private" if len(speakers) == 2 else "group" if len(speakers) > 2 else "monologue"
            for speakers in self.speakers_per_conversation.values()
        )


@dataclass
class NoAnswerReport:
    langs: Counter[str] = field(default_factory=Counter)
    targets: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    @property
    def questions(self) -> int:
        return sum(self.langs.values())


def read_jsonl(path: Path, errors: list[str]) -> list[dict]:
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{path.name}:{lineno}: not JSON ({exc.msg})")
            continue
        if not isinstance(row, dict):
            errors.append(f"{path.name}:{lineno}: want a JSON object, got {type(row).__name__}")
            continue
        rows.append(row)
    return rows


def _check_fields(row: dict, spec: dict[str, type | tuple[type, ...]], where: str) -> list[str]:
    problems = []
    for name, kind in spec.items():
        if name not in row:
            problems.append(f"{where}: field {name!r} is missing")
        elif not isinstance(row[name], kind) or isinstance(row[name], bool):
            problems.append(f"{where}: field {name!r} has the wrong type: {row[name]!r}")
    return problems


def answer_tokens(text: str) -> set[str]:
    """Tokens for the alignment check: ASCII words and numbers, and Han character bigrams.

    Text is normalised first (NFKC, lower case, Traditional -> Simplified) so that an answer
    written in Simplified Chinese still matches a message written in Traditional Chinese.
    """
    norm = normalize_text(text)
    tokens = set(_ASCII_WORD.findall(norm))
    for run in _HAN_RUN.findall(norm):
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
        if len(run) == 1:
            tokens.add(run)
    return tokens


def answer_found(answer: str, gold_texts: list[str]) -> bool:
    """True when some token of the answer occurs in one of the gold messages."""
    haystack = normalize_text(" ".join(gold_texts))
    return any(token in haystack for token in answer_tokens(answer))


def validate_dataset(
    path: Path, categories: set[str] | None = None, *, require_answers: bool = True
) -> DatasetReport:
    """Check a dataset folder.

    ``categories``, when given, is the closed set of allowed categories. ``require_answers``
    makes an empty ``answer`` on a question with gold an error (LoCoMo's adversarial questions
    have none, so it is switched off for LoCoMo).
    """
    report = DatasetReport()
    for name in ("corpus.jsonl", "queries.jsonl"):
        if not (path / name).is_file():
            report.errors.append(f"{path / name}: not found; a dataset folder needs {name}")
    if report.errors:
        return report
    turns = read_jsonl(path / "corpus.jsonl", report.errors)
    queries = read_jsonl(path / "queries.jsonl", report.errors)

    by_id: dict[str, dict] = {}
    last_time: dict[str, float] = {}
    for n, turn in enumerate(turns, start=1):
        where = f"corpus.jsonl line {n}"
        problems = _check_fields(turn, TURN_FIELDS, where)
        report.errors.extend(problems)
        if problems:
            continue
        if turn["id"] in by_id:
            report.errors.append(f"{where}: id {turn['id']!r} is used twice")
        by_id[turn["id"]] = turn
        if turn["role"] not in ROLES:
            report.errors.append(f"{where}: role {turn['role']!r}; use user or assistant")
        if not turn["text"].strip():
            report.errors.append(f"{where}: text is empty")
        conv = turn["conversation"]
        if turn["timestamp"] < last_time.get(conv, float("-inf")):
            report.errors.append(f"{where}: {turn['id']!r} is older than the turn before it")
        last_time[conv] = turn["timestamp"]
        report.messages_per_conversation[conv] += 1
        report.speakers_per_conversation.setdefault(conv, set()).add(turn["speaker"])

    qids: set[str] = set()
    for n, query in enumerate(queries, start=1):
        where = f"queries.jsonl line {n}"
        problems = _check_fields(query, QUERY_FIELDS, where)
        report.errors.extend(problems)
        if problems:
            continue
        qid, category = query["qid"], query["category"]
        where = f"{where} ({qid})"
        if qid in qids:
            report.errors.append(f"{where}: qid is used twice")
        qids.add(qid)
        if categories is not None and category not in categories:
            report.errors.append(
                f"{where}: category {category!r}; use one of {', '.join(sorted(categories))}"
            )
        conv = query["conversation"]
        if conv not in report.messages_per_conversation:
            report.errors.append(f"{where}: conversation {conv!r} has no turns in the corpus")
        report.questions_per_conversation[conv] += 1
        report.categories[category] += 1
        report.categories_per_conversation.setdefault(conv, Counter())[category] += 1
        report.errors.extend(_check_gold(query, by_id, where, require_answers))
        if category != UNANSWERABLE and query["gold"] and query["answer"]:
            gold_texts = [by_id[g]["text"] for g in query["gold"] if g in by_id]
            if gold_texts and not answer_found(query["answer"], gold_texts):
                report.misaligned.append(f"{qid}: {query['query']} -> {query['answer']}")
    return report


def _check_gold(
    query: dict, by_id: dict[str, dict], where: str, require_answers: bool
) -> list[str]:
    problems = []
    gold, conv = query["gold"], query["conversation"]
    if query["category"] == UNANSWERABLE:
        if gold or query["gold_sessions"] or query["answer"]:
            problems.append(
                f'{where}: an unanswerable question needs gold [], gold_sessions [] and answer ""'
            )
        return problems
    if not gold:
        problems.append(f"{where}: gold is empty; give the evidence ids or use unanswerable")
    if require_answers and not query["answer"].strip():
        problems.append(f"{where}: answer is empty; write the short gold answer")
    if len(set(gold)) != len(gold):
        problems.append(f"{where}: gold lists an id twice")
    found = [by_id[g] for g in gold if g in by_id]
    for g in gold:
        if g not in by_id:
            problems.append(f"{where}: gold id {g!r} is not in the corpus")
        elif by_id[g]["conversation"] != conv:
            problems.append(
                f"{where}: gold id {g!r} belongs to {by_id[g]['conversation']!r}, not {conv!r}"
            )
    sessions = {t["session"] for t in found}
    if set(query["gold_sessions"]) != sessions:
        problems.append(
            f"{where}: gold_sessions {sorted(query['gold_sessions'])} but the gold ids are in "
            f"{sorted(sessions)}"
        )
    newest = max((t["timestamp"] for t in found), default=None)
    if newest is not None and query["timestamp"] < newest:
        problems.append(
            f"{where}: asked at {query['timestamp']} before its newest gold turn ({newest})"
        )
    return problems


def validate_no_answer(path: Path) -> NoAnswerReport:
    """Check a no-answer question set: ``qid, query, lang, target`` on every line."""
    report = NoAnswerReport()
    if not path.is_file():
        report.errors.append(f"{path}: not found")
        return report
    qids: set[str] = set()
    queries: set[str] = set()
    for n, row in enumerate(read_jsonl(path, report.errors), start=1):
        where = f"{path.name} line {n}"
        problems = _check_fields(row, NO_ANSWER_FIELDS, where)
        report.errors.extend(problems)
        if problems:
            continue
        if row["qid"] in qids:
            report.errors.append(f"{where}: qid {row['qid']!r} is used twice")
        qids.add(row["qid"])
        if not row["query"].strip():
            report.errors.append(f"{where}: query is empty")
        if row["query"] in queries:
            report.errors.append(f"{where}: query {row['query']!r} is asked twice")
        queries.add(row["query"])
        if row["lang"] not in NO_ANSWER_LANGS:
            report.errors.append(
                f"{where}: lang {row['lang']!r}; use one of {', '.join(sorted(NO_ANSWER_LANGS))}"
            )
        if row["target"] not in NO_ANSWER_TARGETS:
            report.errors.append(
                f"{where}: target {row['target']!r}; use one of "
                f"{', '.join(sorted(NO_ANSWER_TARGETS))}"
            )
        report.langs[row["lang"]] += 1
        report.targets[row["target"]] += 1
    return report


def _print_dataset(path: Path, report: DatasetReport) -> None:
    print(f"{path}: {report.messages} messages, {report.questions} questions")
    print(f"conversations: {dict(report.conversation_kinds())}")
    for conv, count in report.messages_per_conversation.items():
        speakers = len(report.speakers_per_conversation[conv])
        cats = dict(sorted(report.categories_per_conversation.get(conv, Counter()).items()))
        print(
            f"  {conv}: {count} messages, {speakers} speakers, "
            f"{report.questions_per_conversation[conv]} questions {cats}"
        )
    print(f"categories: {dict(sorted(report.categories.items()))}")
    if report.misaligned:
        print(f"{len(report.misaligned)} answers share no token with their gold messages:")
        for line in report.misaligned:
            print(f"  {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", nargs="*", type=Path, help="dataset folders to check")
    parser.add_argument(
        "--no-answer",
        type=Path,
        action="append",
        default=[],
        help="a no-answer queries.jsonl to check",
    )
    parser.add_argument(
        "--allow-empty-answers",
        action="store_true",
        help="accept questions with gold but no answer (LoCoMo adversarial)",
    )
    args = parser.parse_args(argv)
    if not args.dataset and not args.no_answer:
        parser.error("give a dataset folder or --no-answer FILE")
    errors: list[str] = []
    for path in args.dataset:
        report = validate_dataset(path, require_answers=not args.allow_empty_answers)
        _print_dataset(path, report)
        errors += report.errors
    for path in args.no_answer:
        na = validate_no_answer(path)
        print(
            f"{path}: {na.questions} questions, langs {dict(na.langs)}, targets {dict(na.targets)}"
        )
        errors += na.errors
    for error in errors:
        print(f"ERROR {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
