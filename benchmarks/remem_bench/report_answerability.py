"""The answerability section of docs/benchmarks.md (``report.render`` calls ``section``), from
``results/answerability.json`` (benchmarks/scripts/answerability_eval.py)."""

from __future__ import annotations

from typing import Any

ORDER = (
    "locomo",
    "zh_groupchat",
    "changed_facts",
    "mixed_script",
    "dialogue_notes",
    "near_miss en",
    "near_miss zh",
    "locomo + near_miss",
    "zh_groupchat + near_miss",
    "changed_facts + near_miss",
    "zh_validation",
    "changed_facts_heldout",
    "near_miss_heldout en",
    "near_miss_heldout zh",
)


def _f(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value * 100:.1f}%" if pct else f"{value:.3f}"


def _names(result: dict[str, Any]) -> list[str]:
    found = result["after"]
    return [n for n in ORDER if n in found] + sorted(n for n in found if n not in ORDER)


def _label(name: str, result: dict[str, Any]) -> str:
    """A dataset's or a group's name ("zh_groupchat + near_miss", "near_miss en"), marked when
    a held-out set is in it."""
    held = any(part in result["held_out"] for part in name.replace("+", " ").split())
    return f"{name} (held out)" if held else name


def figures_table(result: dict[str, Any]) -> list[str]:
    """Per dataset: AUC, near misses under 0.5, answers over 0.5, injection, recall@10."""
    rows = [
        "| dataset | AUC unanswerable (before) | AUC off-topic probes | unanswerable best < 0.5 "
        "| answer >= 0.5 | auto-recall injects: unanswerable / probes | auto-recall empties "
        "answerable | search empties answerable (before) | recall@10 (before) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in _names(result):
        a, b = result["after"][name], result["before"][name]
        rows.append(
            f"| {_label(name, result)} "
            f"| {_f(a['auc_unanswerable'])} ({_f(b['auc_unanswerable (best floor margin)'])}) "
            f"| {_f(a['auc_probes'])} "
            f"| {_f(a['unanswerable_best_below_0.5'], True)} "
            f"| {_f(a['answer_found_at_0.5'], True)} "
            f"| {_f(a['recall_injects_unanswerable'], True)} / "
            f"{_f(a['recall_injects_probes'], True)} "
            f"| {_f(a['recall_empties_answerable'], True)} "
            f"| {_f(a['search_empties_answerable'], True)} ({_f(b['empties_answerable'], True)}) "
            f"| {_f(a['recall@10_gated'])} ({_f(b['recall@10'])}) |"
        )
    return rows


def reliability_table(result: dict[str, Any]) -> list[str]:
    """Predicted against observed per bin of the score (every returned hit), per dataset:
    "observed (n)" in each cell. Datasets only: a group's hits are its datasets'."""
    names = [n for n in _names(result) if " " not in n]
    bins = [b["bin"] for b in result["after"][names[0]]["reliability"]]
    rows = [
        "| score bin | " + " | ".join(_label(n, result) for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for i, label in enumerate(bins):
        cells = []
        for name in names:
            cell = result["after"][name]["reliability"][i]
            cells.append("-" if not cell["n"] else f"{cell['observed']:.2f} ({cell['n']})")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return rows


CURVE_POINTS = (0.05, 0.1, 0.15, 0.2)


def tradeoff_table(tradeoff: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """Auto-recall's operating point per dataset (``answerability-tradeoff.json``): the
    highest recall threshold that empties at most 3% of the answerable questions and what it
    injects there, the trade-off at a few thresholds, and the cut of the score closest to both
    0.5 shares."""
    found = tradeoff["datasets"]
    names = [n for n in ORDER if n in found] + sorted(n for n in found if n not in ORDER)
    names = [n for n in names if n not in ("near_miss", "near_miss_heldout")]  # no answerable
    rows = [
        "| dataset | threshold at 3% emptied | injects there: unanswerable / probes | "
        + " | ".join(f"at {t:.2f}: injects / empties" for t in CURVE_POINTS)
        + " | closest to both 0.5 shares: answers >= / near misses < |",
        "|---|---|---|" + "---|" * (len(CURVE_POINTS) + 1),
    ]
    for name in names:
        entry = found[name]
        at3 = entry.get("at 3% emptied")
        curve = {p["threshold"]: p for p in entry["curve"]}
        cells = [
            f"{_f(curve[t]['injects unanswerable'] if curve[t]['injects unanswerable'] is not None else curve[t]['injects probes'], True)}"
            f" / {_f(curve[t]['empties answerable'], True)}"
            for t in CURVE_POINTS
        ]
        cut = entry.get("both 0.5 targets, best cut")
        rows.append(
            f"| {_label(name, result)} "
            f"| {'-' if at3 is None else _f(at3['threshold'])} "
            f"| {'-' if at3 is None else _f(at3['injects unanswerable'], True)} / "
            f"{'-' if at3 is None else _f(at3['injects probes'], True)} "
            f"| {' | '.join(cells)} "
            f"| {'-' if cut is None else _f(cut['answers at or above'], True)} / "
            f"{'-' if cut is None else _f(cut['unanswerable best below'], True)} |"
        )
    return rows


def section(result: dict[str, Any], tradeoff: dict[str, Any] | None = None) -> list[str]:
    t = result["thresholds"]
    return [
        "## Answerability: the score every surface shows",
        "",
        "The probability that a hit answers the question (`remem/search/answerability.py`, "
        f"fitted on {', '.join(result['fitted_on'])}; inputs: {', '.join(result['inputs'])}): "
        "the chance that the search holds an answer at all (the question's part: answer-type "
        "evidence, whether they state the asked attribute and the asked subject's fact, subject "
        "match and relevance of its best hits, split evidence: the subject matched while no "
        "best hit states the asked attribute) times the chance that this hit is it (the hit's "
        "part; *whose* value it states: `search/fact_evidence.py`). A search "
        "where no candidate clears its relevance floor still answers when its best hit scores "
        f"at least `search.answerability_threshold` ({t['search.answerability_threshold']}); "
        "pre-turn recall injects only the hits at or above `recall.answerability_threshold` "
        f"({t['recall.answerability_threshold']}). AUC: the best hit's score, unanswerable "
        "questions (near misses) against answerable ones, and the no-answer set's "
        "off-topic probes against them; *before*: the relevance floors alone on the same hits "
        "(the AUC of the best margin over them). *answer >= 0.5*: among answerable questions "
        "whose answer is in the top 10. *near_miss en / zh*: the near-miss set's questions in "
        "that language against the answerable questions of the conversations they are about; "
        "*X + near_miss*: dataset X with the near misses about its conversations added to its "
        "unanswerable questions.",
        "",
        *figures_table(result),
        "",
        "Reliability (predicted against observed): in each bin of the score, the share of "
        "returned hits that are an answer, and how many hits fell in the bin. A calibrated score "
        "has each bin's share inside the bin.",
        "",
        *reliability_table(result),
        *([] if tradeoff is None else ["", *tradeoff_section(tradeoff, result)]),
    ]


def tradeoff_section(tradeoff: dict[str, Any], result: dict[str, Any]) -> list[str]:
    return [
        "Auto-recall's operating point (`benchmarks/scripts/answerability_tradeoff.py`, "
        "`answerability-tradeoff.json`; shipped `recall.answerability_threshold` "
        f"{tradeoff['recall.answerability_threshold']}): per dataset, the highest recall "
        "threshold that empties at most 3% of its answerable questions (issue 45's bound) and "
        "what auto-recall injects there; the trade-off at a few thresholds (injects: the "
        "unanswerable questions, or the off-topic probes where a set has none); and the cut of "
        "the score that comes closest to both 0.5 shares of the issue (an answer at or above "
        "it for 80%, a near miss's best hit below it for 90%): a recalibration only moves "
        "where 0.5 falls, so where no cut meets both, no calibration of this fit does.",
        "",
        *tradeoff_table(tradeoff, result),
    ]
