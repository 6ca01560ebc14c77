"""Answer-type evidence measured by itself (issue 45 item 1): how well it tells an
unanswerable near miss from an answerable question, before anything combines it.

For every question of the chosen datasets, the default pipeline's top hits are read with every
relevance floor read but none applied (``target_bounds.MarginProbe``: a near miss that today
returns nothing still has the hits a looser floor would show). The question's evidence is the
best ``remem.text.answer_types.answer_evidence`` over its top 3 hits, each read with its
immediate neighbours (the turns just before and after it in its session), each text as
"speaker: line". Reported per dataset and per language:

- ``typed``: the share of questions whose answer type is known (``asked_type`` is not None);
- ``auc``: the AUC of the evidence, answerable (positive) against unanswerable, over the
  questions whose type is known; ``auc_all`` counts an unknown type as 0.5 (no evidence either
  way) over every question;
- ``hand_written`` (near-miss sets): the same over the hand-written near misses only (a thing
  the chat talks about, an attribute of it never given), against every answerable question;
- ``margin_auc``: the AUC of today's best single signal on the same questions (the best margin
  over the relevance floors, ``target_bounds.py``), for comparison.

Datasets: changed_facts, zh_groupchat and zh_validation (held out: reported only) against their
own answerable questions; the near-miss sets (their questions asked of the conversation each is
about) against the answerable questions of those same conversations, at most
``--answerable-per-conversation`` of each (the first in file order).

PYTHONPATH=src:benchmarks python benchmarks/scripts/answer_type_auc.py \
    --datasets changed_facts,zh_groupchat,zh_validation,near_miss,near_miss_heldout \
    --json benchmarks/results/answer-type-evidence.json
(the suite's cached stores; a missing one is built as `remem bench --suite` builds it)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from suite_cli import add_suite_options, chosen_datasets, progress_every
from target_bounds import MarginProbe

from remem.config import Config
from remem.embed.factory import make_embedder
from remem.text.answer_types import answer_evidence, asked_type
from remem_bench.suite import (
    SuiteDataset,
    SuiteRun,
    conversations,
    hosted_conversations,
    ingest,
    is_unanswerable,
)

TOP = 3  # hits read per question
_HAN = re.compile(r"[\u3400-\u9fff]")


def neighbours_of(turns: list[dict]) -> dict[str, list[str]]:
    """Each turn's id -> [its "speaker: line", the one before, the one after], neighbours only
    from the same session."""
    out: dict[str, list[str]] = {}
    for i, turn in enumerate(turns):
        texts = [f"{turn['speaker']}: {turn['text']}"]
        for j in (i - 1, i + 1):
            if 0 <= j < len(turns) and turns[j]["session"] == turn["session"]:
                texts.append(f"{turns[j]['speaker']}: {turns[j]['text']}")
        out[turn["id"]] = texts
    return out


def stores(
    run: SuiteRun, dataset: SuiteDataset, per_conversation: int, hosts: set[str] | None = None
) -> list[tuple[SuiteDataset, int, list[dict], list[dict]]]:
    limit = run.limit_conversations
    """(dataset whose store it is, its index, turns, questions asked of it): a dataset's own
    conversations, or for a near-miss set the host conversations, with their answerable
    questions (the first ``per_conversation``) beside the near misses."""
    if not dataset.hosts:
        convs = conversations(dataset.path, [], limit)
        return [(dataset, ci, t, qs) for ci, (_c, t, qs) in enumerate(convs)]
    out = []
    own: dict[tuple[str, str], list[dict]] = {}
    for host, ci, turns, asked in hosted_conversations(dataset, limit):
        if hosts is not None and host.name not in hosts:
            continue
        if not any(h == host.name for h, _ in own):
            own |= {(host.name, c): qs for c, _t, qs in conversations(host.path, [])}
        mine = own[(host.name, asked[0]["conversation"])]
        answerable = [q for q in mine if not is_unanswerable(q)][:per_conversation]
        out.append((host, ci, turns, asked + answerable))
    return out


def measure(
    run: SuiteRun,
    dataset: SuiteDataset,
    probe: MarginProbe,
    per_conv: int,
    hosts: set[str] | None = None,
) -> list[dict]:
    """One row per question: its evidence, margin, type, language, answerable or not."""
    from remem.engine import Memory

    rows: list[dict] = []
    todo = stores(run, dataset, per_conv, hosts)
    total = sum(len(qs) for *_, qs in todo)
    progress = progress_every(30)
    for store_of, ci, turns, questions in todo:
        context = neighbours_of(turns)
        with Memory(run.db_path(store_of, ci), run.config, embedder=run.embedder) as mem:
            ingest(mem, turns)
            for q in questions:
                qvec = mem.searcher.embed_query(run.embedder, q["query"])
                found: list[Any] = []

                def search(q: dict = q, qvec: Any = qvec, found: list[Any] = found) -> None:
                    found[:] = mem.search(
                        q["query"], k=TOP, now=q.get("timestamp"), query_vector=qvec
                    ).hits

                margin = probe.margin(search)
                scores = [
                    answer_evidence(q["query"], context.get(h.record.id, [h.record.text]))
                    for h in found[:TOP]
                ]
                known = [s for s in scores if s is not None]
                rows.append(
                    {
                        "qid": q["qid"],
                        "query": q["query"],
                        "answerable": not is_unanswerable(q),
                        "lang": "zh" if _HAN.search(q["query"]) else "en",
                        "type": asked_type(q["query"]),
                        "evidence": max(known) if known else None,
                        "margin": round(margin, 4),
                        "hand_written": "present" in q,  # a near miss written one by one
                    }
                )
                progress(dataset.name, len(rows), total)
    return rows


def auc(pos: list[float], neg: list[float]) -> float | None:
    """P(a positive scores above a negative), ties counted half; None without both."""
    if not pos or not neg:
        return None
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return round(float((p > n).mean() + 0.5 * (p == n).mean()), 3)


def summarise(rows: list[dict]) -> dict[str, Any]:
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    typed = [r for r in rows if r["evidence"] is not None]

    def share(group: list[dict]) -> float | None:
        return (
            round(sum(r["evidence"] is not None for r in group) / len(group), 3) if group else None
        )

    def ev(group: list[dict], unknown: float | None) -> list[float]:
        return [
            r["evidence"] if r["evidence"] is not None else unknown
            for r in group
            if r["evidence"] is not None or unknown is not None
        ]

    by_type: dict[str, dict[str, Any]] = defaultdict(lambda: {"answerable": [], "unanswerable": []})
    for r in typed:
        by_type[r["type"]]["answerable" if r["answerable"] else "unanswerable"].append(
            r["evidence"]
        )
    return {
        "n_answerable": len(ans),
        "n_unanswerable": len(una),
        "typed": {"answerable": share(ans), "unanswerable": share(una)},
        "auc": auc(ev(ans, None), ev(una, None)),
        "auc_all": auc(ev(ans, 0.5), ev(una, 0.5)),
        "margin_auc": auc(
            [r["margin"] for r in typed if r["answerable"]],
            [r["margin"] for r in typed if not r["answerable"]],
        ),
        "margin_auc_all": auc([r["margin"] for r in ans], [r["margin"] for r in una]),
        "by_type": {
            kind: {
                "n_answerable": len(v["answerable"]),
                "n_unanswerable": len(v["unanswerable"]),
                "mean_answerable": round(float(np.mean(v["answerable"])), 3)
                if v["answerable"]
                else None,
                "mean_unanswerable": round(float(np.mean(v["unanswerable"])), 3)
                if v["unanswerable"]
                else None,
            }
            for kind, v in sorted(by_type.items())
        },
    }


def report(rows: list[dict]) -> dict[str, Any]:
    out = {"all": summarise(rows)}
    if any(r.get("hand_written") for r in rows):  # the nearest misses against every answerable
        out["hand_written"] = summarise([r for r in rows if r["answerable"] or r["hand_written"]])
    for lang in ("en", "zh"):
        mine = [r for r in rows if r["lang"] == lang]
        if mine:
            out[lang] = summarise(mine)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_options(
        ap, datasets="changed_facts,zh_groupchat,zh_validation,near_miss,near_miss_heldout"
    )
    ap.add_argument("--answerable-per-conversation", type=int, default=30)
    ap.add_argument(
        "--hosts", help="the near-miss sets' hosts to ask of (default: all; e.g. without locomo)"
    )
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--rows", help="write every question's row here (JSONL)")
    args = ap.parse_args()
    run = SuiteRun([], Config.load(env={}), Path(args.cache_dir))
    run.limit_conversations = args.limit_conversations  # the first N of each dataset or host
    run.embedder = make_embedder(run.config.embed)
    summary: dict[str, Any] = {}
    all_rows: list[dict] = []
    started = time.time()
    with MarginProbe() as probe:
        for d in chosen_datasets(args):
            hosts = set(args.hosts.split(",")) if args.hosts else None
            rows = measure(run, d, probe, args.answerable_per_conversation, hosts)
            summary[d.name] = {"held_out": d.held_out, **report(rows)}
            all_rows += [{"dataset": d.name, **r} for r in rows]
            s = summary[d.name]["all"]
            print(
                f"{d.name}: AUC {s['auc']} (typed {s['typed']}), all {s['auc_all']}; "
                f"margin AUC {s['margin_auc']} / {s['margin_auc_all']}",
                file=sys.stderr,
            )
    out = {
        "what": "AUC of answer-type evidence (max over the top 3 hits, each with its "
        "neighbours), answerable vs unanswerable; benchmarks/scripts/answer_type_auc.py",
        "top_hits": TOP,
        "answerable_per_conversation": args.answerable_per_conversation,
        "near_miss_hosts": args.hosts or "all",
        "limit_conversations": args.limit_conversations,
        "seconds": round(time.time() - started),
        "datasets": summary,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    if args.rows:
        with open(args.rows, "w") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in all_rows)


if __name__ == "__main__":
    main()
