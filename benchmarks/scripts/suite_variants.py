"""Score search variants over chosen suite datasets in one pass (stores cached between runs).

PYTHONPATH=src python benchmarks/scripts/suite_variants.py --datasets zh_groupchat --variants default,lexical
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from suite_cli import add_suite_options, chosen_datasets, progress_every

from remem.config import Config
from remem_bench.benchmark import Variant
from remem_bench.suite import load_no_answer, run_suite

H = ("vector", "lexical")
REPO = Path(__file__).resolve().parents[2]
LIFTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.8)


def _link(lift: float, kinds: list[str], entities: str, below: bool, top: int) -> dict:
    return {
        "scoring.link_lift": lift,
        "scoring.link_kinds": kinds,
        "scoring.link_entities": entities,
        "scoring.link_below_top": below,
        "scoring.link_top": top,
    }


VARIANTS = {
    "default": Variant("default"),
    "vector": Variant("vector", ("vector",)),
    "lexical": Variant("lexical", ("lexical",)),
    "no-floor": Variant("no-floor", H, {"search.relevance_floor": 0.0}),
    "fixed-weights": Variant("fixed-weights", H, {"search.adaptive_full_coverage": 0.0}),
    # without the latent terms (the default before they were stored): the dense evidence alone
    "no-latent": Variant("no-latent", H, {"search.latent_top": 0}),
    # the top k ordered by the score every surface shows (search.hit_order)
    "order-answer": Variant("order-answer", H, {"search.hit_order": "answerability"}),
    "order-pipeline": Variant("order-pipeline", H, {"search.hit_order": "pipeline"}),
    # the per-candidate keyword gate across scripts (search.cross_script_words_coverage)
    **{
        f"xscript-{v}": Variant(f"xscript-{v}", H, {"search.cross_script_words_coverage": v})
        for v in (0.3, 0.5, 0.7, 0.9)
    },
    # the defaults before the two stages of who said it (2026-12-02)
    "before-speakers": Variant(
        "before-speakers", H, {"scoring.self_reference": 1.0, "scoring.named_speaker": 1.0}
    ),
    # other speakers' records under a question that names a speaker (scoring.named_speaker)
    **{
        f"named-{v}": Variant(f"named-{v}", H, {"scoring.named_speaker": v})
        for v in (1.0, 0.9, 0.8, 0.7, 0.5)
    },
    # other speakers' lines that say what the question asks about, spared (named_speaker_spare)
    **{
        f"spare-{v}": Variant(f"spare-{v}", H, {"scoring.named_speaker_spare": v})
        for v in (0.0, 0.1, 0.2, 0.3, 0.4, 1.0)
    },
    # an assistant's records under a question about the asker (scoring.self_reference)
    **{
        f"self-ref-{v}": Variant(f"self-ref-{v}", H, {"scoring.self_reference": v})
        for v in (1.0, 0.75, 0.5, 0.25, 0.0)
    },
    # once latent terms were read: the floor of candidates in the other script
    **{
        f"cross-floor-{v}": Variant(
            f"cross-floor-{v}", H, {"search.cross_script_relevance_floor": v}
        )
        for v in (0.25, 0.3, 0.35, 0.4, 0.5)
    },
    # the floor of a candidate in the other script that nothing but the embeddings ties to the
    # question (search.cross_script_unlinked_floor; 0.35 = the cross-script floor, as before)
    **{
        f"unlinked-{v}": Variant(f"unlinked-{v}", H, {"search.cross_script_unlinked_floor": v})
        for v in (0.35, 0.5, 0.6, 0.7, 1.0)
    },
    # the floor of a candidate in the question's script holding none of its words
    # (search.wordless_relevance_floor; 0.6 = the latent floor, as before)
    **{
        f"wordless-{v}": Variant(f"wordless-{v}", H, {"search.wordless_relevance_floor": v})
        for v in (0.6, 0.7, 0.8, 0.9, 1.0)
    },
    # the share of a Latin-script question's IDF a candidate must hold to count as saying its
    # words (search.worded_min_coverage; 0 = any word, as before)
    **{
        f"worded-{v}": Variant(f"worded-{v}", H, {"search.worded_min_coverage": v})
        for v in (0.0, 0.1, 0.15, 0.2, 0.25, 0.3)
    },
    # a question's "buy" without "bought" (text/word_forms.py)
    "no-word-forms": Variant("no-word-forms", H, {"text.word_forms": False}),
    # a named day's (or week's) own best records not added to each channel's candidates
    "no-window-candidates": Variant("no-window-candidates", H, {"time_intent.candidates": 0}),
    # a Latin-script question whose words the store mostly never saw: wordless floor for all
    **{
        f"unseen-{v}": Variant(f"unseen-{v}", H, {"search.unseen_question_share": v})
        for v in (0.3, 0.4, 0.5, 0.6, 0.7)
    },
    **{
        f"worded-0.2-unseen-{v}": Variant(
            f"worded-0.2-unseen-{v}",
            H,
            {"search.worded_min_coverage": 0.2, "search.unseen_question_share": v},
        )
        for v in (0.5, 0.6)
    },
    # latent terms for candidates in the other script too (how they were first measured)
    "latent-cross-script": Variant("latent-cross-script", H, {"search.latent_cross_script": True}),
    **{
        f"floor-{v}": Variant(
            f"floor-{v}", H, {"search.latent_top": 0, "search.relevance_floor": v}
        )
        for v in (0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
    },
    # the best candidates' latent terms as relevance evidence, at the floors they allow
    **{
        f"latent{top}-{v}": Variant(
            f"latent{top}-{v}",
            H,
            {"search.latent_top": top, "search.latent_relevance_floor": v},
        )
        for top in (5, 10)
        for v in (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
    },
    "no-context": Variant("no-context", H, {"search.context_weight": 0.0}),
    "no-nb": Variant("no-nb", H, disable=("neighbour_lift",)),
    "lexical-no-nb": Variant("lexical-no-nb", ("lexical",), disable=("neighbour_lift",)),
    "nb-cap": Variant("nb-cap", H, {"scoring.neighbour_cap": True}),
    # each stage that is on by default, off (the suite-wide ablation)
    **{
        f"no-{name}": Variant(f"no-{name}", H, disable=(stage,))
        for name, stage in (
            ("time", "time_intent"),
            ("diversity", "diversity"),
            ("spread", "aggregate_spread"),
            ("importance", "importance"),
            ("length", "length"),
            ("noise", "noise"),
            ("authority", "authority"),
            ("currency", "currency"),  # with no facts in a store the stage has nothing to do
        )
    },
    "no-translate": Variant("no-translate", H, {"translate.keyword": False}),
    # the translations in the embedded query too (the query is embedded again)
    "translate-vector": Variant("translate-vector", H, {"translate.vector": True}),
    # diversity's near-duplicate test: the cosine alone (0, before) or also shared words
    **{
        f"div-text-{v}": Variant(f"div-text-{v}", H, {"diversity.text_overlap": v})
        for v in (0.0, 0.3, 0.5, 0.7)
    },
    "nb-uncapped": Variant("nb-uncapped", H, {"scoring.neighbour_cap": False}),
    **{
        f"adapt-{v}": Variant(f"adapt-{v}", H, {"search.adaptive_full_coverage": v})
        for v in (0.3, 0.5, 0.7, 0.9)
    },
    "rrf": Variant("rrf", H, {"search.fusion": "rrf"}),
    "no-witness": Variant("no-witness", H, {"search.cross_script_witness": False}),
    "no-names": Variant("no-names", H, {"names.translate_vector": False}),
    # the link channel (search/links.py), each kind alone and together, every key explicit
    # (the measured runs predate the defaults): ent = names, o/q = only names the query does
    # not / does say, term = rare words, below = under the weakest followed hit
    **{
        name: Variant(name, H, _link(lift, kinds, entities, below, top))
        for name, lift, kinds, entities, below, top in [
            *((f"link-ent-{v}", v, ["entity"], "any", False, 5) for v in LIFTS),
            *((f"link-ent-q-{v}", v, ["entity"], "query", False, 5) for v in LIFTS),
            *((f"link-ent-o-{v}", v, ["entity"], "other", False, 5) for v in LIFTS),
            *(
                (f"link-ent-{m[0]}top{t}-{v}", v, ["entity"], m, False, t)
                for m in ("any", "other")
                for t in (3, 10)
                for v in LIFTS
            ),
            *((f"link-term-{v}", v, ["term"], "any", False, 5) for v in LIFTS),
            *((f"link-ent-o-term-{v}", v, ["entity", "term"], "other", False, 5) for v in LIFTS),
            *((f"link-ent-o-below-{v}", v, ["entity"], "other", True, 5) for v in LIFTS),
            *((f"link-term-below-{v}", v, ["term"], "any", True, 5) for v in LIFTS),
            *(
                (f"link-ent-o-term-below-{v}", v, ["entity", "term"], "other", True, 5)
                for v in LIFTS
            ),
            ("link-src", 0.2, ["source"], "any", False, 5),
            ("link-sup", 0.2, ["supersession"], "any", False, 5),
            *(
                (f"link-all-{v}", v, ["entity", "source", "supersession"], "any", False, 5)
                for v in LIFTS
            ),
        ]
    },
    # around the default (link_lift 0.2, entity + term, other names, below the top 5)
    "no-link": Variant("no-link", H, {"scoring.link_lift": 0.0}),
    **{f"link-top{t}": Variant(f"link-top{t}", H, {"scoring.link_top": t}) for t in (3, 10)},
    **{
        f"vw-{w}": Variant(
            f"vw-{w}", H, {"search.vector_weight": w, "search.lexical_weight": 1 - w}
        )
        for w in (0.3, 0.5, 0.6, 0.7)
    },
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="default,lexical")
    ap.add_argument("--set", action="append", default=[], help="section.key=value override")
    add_suite_options(ap)
    ap.add_argument("--out")
    args = ap.parse_args()
    overrides: dict = {"indexing.mode": "sync"}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = json.loads(value) if value[:1] in "[{0123456789-tf" else value
    result = run_suite(
        chosen_datasets(args),
        no_answer=load_no_answer(REPO / "benchmarks" / "data" / "no_answer" / "queries.jsonl"),
        config=Config.load(env={}, overrides=overrides),
        cache_dir=Path(args.cache_dir),
        variants=[VARIANTS[v] for v in args.variants.split(",")],
        progress=progress_every(20),
        limit_conversations=args.limit_conversations,
    )
    if args.out:  # first: a summary line that fails must not lose the run
        Path(args.out).write_text(json.dumps(result, indent=1))
    for vname, v in result["variants"].items():
        for dname, d in v["datasets"].items():
            o = d["overall"]  # empty for a set with only unanswerable questions (near_miss)
            print(
                f"{vname:14s} {dname:20s} r@5 {o.get('recall@5', 0):.3f} "
                f"r@10 {o.get('recall@10', 0):.3f} mrr {o.get('mrr', 0):.3f} "
                f"unans-fh {d['unanswerable']['false_hit_rate']} "
                f"noans-fh {d['no_answer']['false_hit_rate']} p50 {d['latency_ms']['p50']}ms"
            )
        m = v["macro"]
        print(f"{vname:14s} {'macro':20s} r@10 {m['recall@10']:.3f} mrr {m['mrr']:.3f}")


if __name__ == "__main__":
    main()
