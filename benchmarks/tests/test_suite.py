"""The suite's scoring: answerable questions are averaged, unanswerable ones and no-answer
probes are scored as false-hit rates (never as zeros in the recall mean), and a run over a
tiny two-conversation dataset routes every question to the right bucket."""

from __future__ import annotations

import json

import pytest
from bench_helpers import HashEmbedder, load_bench_script

from remem import Config
from remem_bench.benchmark import Variant
from remem_bench.suite import (
    SuiteDataset,
    SuiteRun,
    VariantScores,
    cache_key,
    is_unanswerable,
    macro_average,
    rate,
    run_suite,
    suite_datasets,
    summarise,
)


def test_unanswerable_is_no_gold_or_an_abstention_category():
    assert is_unanswerable({"gold": [], "category": "single_fact"})
    assert is_unanswerable({"gold": ["a"], "category": "abstention"})
    assert is_unanswerable({"gold": ["a"], "category": "unanswerable"})
    assert not is_unanswerable({"gold": ["a"], "category": "temporal"})


def test_rate_is_none_when_nothing_was_measured():
    assert rate([]) is None
    assert rate([True, False, False, False]) == 0.25


def _row(r10: float, mrr: float) -> dict[str, float]:
    return {
        "recall@5": r10,
        "recall@10": r10,
        "hit@10": 1.0 if r10 else 0.0,
        "session_recall@10": r10,
        "mrr": mrr,
    }


def test_summary_averages_answerable_only_and_counts_false_hits():
    s = VariantScores()
    s.add_answerable(_row(1.0, 1.0), "single")
    s.add_answerable(_row(0.5, 0.5), "multi")
    s.unanswerable_hits += [True, False]
    s.no_answer_hits += [False, False, False, True]
    s.latency_ms += [1.0, 2.0, 3.0]
    out = summarise(s)
    assert out["n_answerable"] == 2
    assert out["overall"]["recall@10"] == 0.75  # the unanswerable ones are not zeros here
    assert out["by_category"]["multi"] == {**_row(0.5, 0.5), "n": 1}
    assert out["unanswerable"] == {"n": 2, "false_hit_rate": 0.5}
    assert out["no_answer"] == {"n": 4, "false_hit_rate": 0.25}
    assert out["latency_ms"]["p50"] == 2.0


def test_macro_average_skips_datasets_without_answerable_questions():
    datasets = {
        "a": {"n_answerable": 2, "overall": {"recall@5": 0.4, "recall@10": 0.6, "mrr": 0.2}},
        "b": {"n_answerable": 1, "overall": {"recall@5": 0.8, "recall@10": 1.0, "mrr": 0.6}},
        "c": {"n_answerable": 0, "overall": {}},
    }
    assert macro_average(datasets) == {"recall@5": 0.6, "recall@10": 0.8, "mrr": 0.4}


def test_a_held_out_dataset_is_reported_but_never_averaged_in(tmp_path):
    datasets = {
        "a": {"n_answerable": 2, "overall": {"recall@5": 0.4, "recall@10": 0.6, "mrr": 0.2}},
        "held": {"n_answerable": 1, "overall": {"recall@5": 0.8, "recall@10": 1.0, "mrr": 0.6}},
    }
    assert macro_average(datasets, frozenset({"held"})) == {
        "recall@5": 0.4,
        "recall@10": 0.6,
        "mrr": 0.2,
    }
    for name in ("zh_groupchat", "zh_validation"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "queries.jsonl").write_text("")
    found = {d.name: d.held_out for d in suite_datasets(tmp_path / "none", tmp_path, quick=True)}
    assert found == {"zh_groupchat": False, "zh_validation": True}


def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


@pytest.fixture
def tiny_dataset(tmp_path):
    folder = tmp_path / "zh_groupchat"  # the name the no-answer targets use
    folder.mkdir()
    turns = [
        ("c1", "c1:0", "The hut on the ridge is booked for Saturday"),
        ("c1", "c1:1", "Great, I will buy a new headlamp"),
        ("c1", "c1:2", "Bring warm gloves, the forecast says snow"),
        ("c2", "c2:0", "The deploy moved to Thursday evening"),
        ("c2", "c2:1", "Staging runs on port 8443 now"),
    ]
    _write(
        folder / "corpus.jsonl",
        [
            {
                "id": i,
                "conversation": c,
                "session": f"{c}:s",
                "timestamp": 1_700_000_000 + n,
                "speaker": "A" if n % 2 else "B",
                "role": "user",
                "text": text,
            }
            for n, (c, i, text) in enumerate(turns)
        ],
    )
    q = {"timestamp": 1_700_001_000}
    _write(
        folder / "queries.jsonl",
        [
            {
                **q,
                "qid": "1",
                "conversation": "c1",
                "query": "which hut is booked",
                "gold": ["c1:0"],
                "gold_sessions": ["c1:s"],
                "category": "single",
            },
            {
                **q,
                "qid": "2",
                "conversation": "c2",
                "query": "staging port",
                "gold": ["c2:1"],
                "gold_sessions": ["c2:s"],
                "category": "single",
            },
            {
                **q,
                "qid": "3",
                "conversation": "c2",
                "query": "who won the cup",
                "gold": [],
                "gold_sessions": [],
                "category": "unanswerable",
            },
        ],
    )
    return SuiteDataset("zh_groupchat", folder)


def test_run_routes_each_question_and_caches_the_stores(tiny_dataset, tmp_path):
    probes = [
        {"qid": "na-1", "query": "zebra quantum", "target": "both"},
        {"qid": "na-2", "query": "hut", "target": "locomo"},  # not aimed at this dataset
    ]
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    kwargs = dict(
        no_answer=probes,
        config=config,
        cache_dir=tmp_path / "cache",
        variants=[Variant("lexical", ("lexical",))],
        embedder=HashEmbedder(),
    )
    result = run_suite([tiny_dataset], **kwargs)
    d = result["variants"]["lexical"]["datasets"]["zh_groupchat"]
    assert d["n_answerable"] == 2
    assert d["overall"]["recall@10"] == 1.0
    assert d["overall"]["mrr"] == 1.0
    # "who won the cup" shares no word with c2, lexical search finds nothing
    assert d["unanswerable"] == {"n": 1, "false_hit_rate": 0.0}
    # one probe aimed at this dataset, asked in both conversation stores
    assert d["no_answer"] == {"n": 2, "false_hit_rate": 0.0}
    stores = sorted(p.name for p in (tmp_path / "cache").rglob("conv-*.db"))
    assert stores == ["conv-0.db", "conv-1.db"]
    folders = [p.name for p in (tmp_path / "cache").iterdir()]
    assert folders == [cache_key(tiny_dataset, HashEmbedder.model_id)]
    again = run_suite([tiny_dataset], **kwargs)  # reuses the cached stores
    assert again["variants"]["lexical"]["datasets"]["zh_groupchat"] == {
        **d,
        "latency_ms": again["variants"]["lexical"]["datasets"]["zh_groupchat"]["latency_ms"],
    }


def test_a_cached_store_missing_vectors_is_completed_before_it_is_searched(tiny_dataset, tmp_path):
    from remem import Memory

    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    kwargs = dict(
        no_answer=[],
        config=config,
        cache_dir=tmp_path / "cache",
        variants=[Variant("vector", ("vector",))],
        embedder=HashEmbedder(),
    )
    first = run_suite([tiny_dataset], **kwargs)
    (db, *_) = sorted((tmp_path / "cache").rglob("conv-0.db"))
    with Memory(db, config, embedder=HashEmbedder()) as mem:  # as if cut off mid-embedding
        records = mem.count()
        assert mem.store.clear_vectors() == records
    again = run_suite([tiny_dataset], **kwargs)
    with Memory(db, config, embedder=HashEmbedder()) as mem:
        assert mem.missing_vectors(HashEmbedder.model_id) == 0
    assert (
        again["variants"]["vector"]["datasets"]["zh_groupchat"]["overall"]
        == (first["variants"]["vector"]["datasets"]["zh_groupchat"]["overall"])
    )


def test_a_near_miss_set_is_asked_of_its_hosts_conversation_stores(tiny_dataset, tmp_path):
    near = tmp_path / "near_miss"
    near.mkdir()
    asked = {"timestamp": 1_700_001_000, "gold": [], "gold_sessions": []}
    _write(
        near / "queries.jsonl",
        [
            # about c2: its deploy moved, but to which server? "staging" is said only in c2
            {
                **asked,
                "qid": "n1",
                "conversation": "c2",
                "target": "zh_groupchat",
                "query": "staging",
                "category": "unanswerable",
            },
            {
                **asked,
                "qid": "n2",
                "conversation": "c1",
                "target": "zh_groupchat",
                "query": "staging",
                "category": "unanswerable",
            },
            {
                **asked,
                "qid": "n3",
                "conversation": "c1",
                "target": "locomo",  # not a host here
                "query": "hut",
                "category": "unanswerable",
            },
        ],
    )
    near_miss = SuiteDataset("near_miss", near, hosts=(tiny_dataset,))
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    result = run_suite(
        [near_miss],
        no_answer=[],
        config=config,
        cache_dir=tmp_path / "cache",
        variants=[Variant("lexical", ("lexical",))],
        embedder=HashEmbedder(),
    )
    d = result["variants"]["lexical"]["datasets"]["near_miss"]
    # each question asked once, of its own conversation: "staging" finds c2's line, not c1's
    assert d["unanswerable"] == {"n": 2, "false_hit_rate": 0.5}
    assert d["n_answerable"] == 0 and d["no_answer"]["n"] == 0
    # the host's stores, cached under the host's key: the host's own run reuses them
    folders = [p.name for p in (tmp_path / "cache").iterdir()]
    assert folders == [cache_key(tiny_dataset, HashEmbedder.model_id)]


def test_the_near_miss_sets_are_in_the_suite_asked_of_their_hosts(tmp_path):
    for name in ("zh_groupchat", "changed_facts", "near_miss", "near_miss_heldout"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "queries.jsonl").write_text("")
    found = {d.name: d for d in suite_datasets(tmp_path / "none", tmp_path, quick=True)}
    assert not found["near_miss"].held_out and found["near_miss_heldout"].held_out
    hosts = {h.name for h in found["near_miss_heldout"].hosts}
    assert hosts == {"locomo", "zh_groupchat", "changed_facts"}


def test_a_cached_store_without_facts_gets_them_derived_before_it_is_searched(tmp_path):
    """A store cached before the fact layer (or by other rules) carries no facts, so the
    currency stage never ran in the suite: the suite derives them as a user's store has them."""
    from remem import Memory

    folder = tmp_path / "zh_groupchat"
    folder.mkdir()
    lines = ["I live in Shenzhen now", "Moved to Shanghai last week", "我在一家游戏公司上班"]
    _write(
        folder / "corpus.jsonl",
        [
            {
                "id": f"c1:{n}",
                "conversation": "c1",
                "session": "c1:s",
                "timestamp": 1_700_000_000 + n * 86_400,
                "speaker": "Tom",
                "role": "user",
                "text": text,
            }
            for n, text in enumerate(lines)
        ],
    )
    question = {"qid": "1", "conversation": "c1", "query": "Where does Tom live now?"}
    _write(folder / "queries.jsonl", [{**question, "gold": ["c1:1"], "timestamp": 1_701_000_000}])
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    kwargs = dict(
        no_answer=[],
        config=config,
        cache_dir=tmp_path / "cache",
        variants=[Variant("lexical", ("lexical",))],
        embedder=HashEmbedder(),
    )
    dataset = SuiteDataset("zh_groupchat", folder)
    run_suite([dataset], **kwargs)
    (db, *_) = sorted((tmp_path / "cache").rglob("conv-0.db"))
    with Memory(db, config, embedder=HashEmbedder()) as mem:
        derived = sorted((f.subject, f.attribute, f.value) for f in mem.store.facts())
        assert ("name:tom", "lives_in", "Shanghai") in derived
        mem.store.clear_facts()  # as a store cached before the fact layer is
    for stamp in db.parent.glob("*.facts"):
        stamp.unlink()
    run_suite([dataset], **kwargs)
    with Memory(db, config, embedder=HashEmbedder()) as mem:
        assert sorted((f.subject, f.attribute, f.value) for f in mem.store.facts()) == derived
    # a stamp of other rules: derived again
    with Memory(db, config, embedder=HashEmbedder()) as mem:
        mem.store.clear_facts()
    next(db.parent.glob("*.facts")).write_text("other-rules\n")
    run_suite([dataset], **kwargs)
    with Memory(db, config, embedder=HashEmbedder()) as mem:
        assert sorted((f.subject, f.attribute, f.value) for f in mem.store.facts()) == derived


def test_a_hosts_store_build_is_noted_step_by_step_and_only_once(tiny_dataset, tmp_path):
    """A near-miss run builds its hosts' stores (minutes each under load): ``note`` is told
    each slow step, naming the store; a second run finds them cached and notes nothing."""
    near = tmp_path / "near_miss"
    near.mkdir()
    asked = {"timestamp": 1_700_001_000, "gold": [], "gold_sessions": [], "target": "zh_groupchat"}
    _write(
        near / "queries.jsonl",
        [{**asked, "qid": "n1", "conversation": "c2", "query": "staging", "category": "x"}],
    )
    near_miss = SuiteDataset("near_miss", near, hosts=(tiny_dataset,))
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    for run_number in (1, 2):
        notes: list[str] = []
        run = SuiteRun(
            [Variant("lexical", ("lexical",))],
            config,
            tmp_path / "cache",
            embedder=HashEmbedder(),
            note=notes.append,
        )
        run.run(near_miss, [])
        if run_number == 1:
            assert notes[0] == (
                "zh_groupchat conversation 1: building the store: writing and embedding 2 turns"
            )
        else:
            assert notes == []


def test_floor_empties_asks_only_the_first_conversations_it_is_limited_to(tiny_dataset, tmp_path):
    floor_empties = load_bench_script("floor_empties")
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})

    def answered(limit: int | None) -> int:
        run = SuiteRun(
            [Variant("hybrid")],
            config,
            tmp_path / "cache",
            embedder=HashEmbedder(),
            limit_conversations=limit,
        )
        return floor_empties.run_dataset(run, tiny_dataset)["n"]

    assert answered(None) == 2  # one answerable question in each conversation
    assert answered(1) == 1
