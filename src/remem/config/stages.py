"""The settings of the read pipeline's stages after fusion: scoring and lifts (the link channel
included), names and translations across scripts, time intent and the calendar it reads,
diversity and noise."""

from __future__ import annotations

from datetime import UTC, tzinfo
from functools import lru_cache
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator

from remem.config.fields import NonNegativeFloat, NonNegativeInt, PositiveFloat, Share, setting
from remem.config.sections import _Section


class RecallConfig(_Section):
    # 0.09: the highest (of 0.01 steps) at which auto-recall empties at most 3% of the
    # answerable questions of every development set (issue 45's bound; zh_groupchat 2.8%,
    # mixed_script 3.0%), against 1-2% at 0.05: near misses injected 50% -> 36% (English),
    # 51% -> 43% (Chinese); dialogue_notes, whose search gate alone empties 22%, 24.5%
    # (docs/decisions/0014-answerability.md, "The operating point")
    answerability_threshold: Share = setting(
        0.09,
        "pre-turn recall of the archive injects only the hits whose answerability "
        "(the probability that a hit answers the message, the score search shows) is at least "
        "this, after the search's own gate (so it never injects what search would not return): "
        "split evidence injects fewer hits rather than none (0 = every hit search returns)",
    )


class ScoringConfig(_Section):
    recency_weight: NonNegativeFloat = setting(0.0, "additive boost for new records")
    recency_half_life_days: PositiveFloat = setting(
        14.0, "recency_weight: the age at which the bonus halves"
    )
    importance: bool = setting(True, "x (0.7 + 0.3 x importance)")
    authority: float = Field(
        default=0.25,
        ge=0,
        le=4,
        description="a curated memory kept on purpose x (1 + authority), one captured "
        "automatically x (1 + authority / 2): chat that matches about as well does not outrank "
        "it (0 = off)",
    )
    length_anchor: NonNegativeInt = setting(500, "texts longer than this are damped (0 = off)")
    decay: bool = setting(False, "x (0.5 + 0.5 x exp(-age / half-life))")
    decay_half_life_days: PositiveFloat = setting(
        60.0, "decay: the age at which x (0.5 + 0.5 exp(-age / half-life)) is halfway"
    )
    reinforcement_factor: NonNegativeFloat = setting(
        0.5, "each explicit recall stretches the half-life by this"
    )
    reinforcement_cap: float = Field(default=3.0, ge=1, description="at most this x half-life")
    access_debounce_s: NonNegativeFloat = setting(
        30.0, "explicit recalls are written at most this often"
    )
    access_boost: NonNegativeFloat = setting(
        0.0,
        "x (1 + this x ln(1 + explicit recalls)), at most reinforcement_cap x; "
        "0 = off (memory-lancedb-pro's access reinforcement)",
    )
    access_window_s: NonNegativeFloat = setting(
        1800.0, "explicit recalls of one record within this many seconds count once"
    )
    time_weight: Share = setting(0.0, "(1-w) x score + w x exp(-0.1 x days); 0 = off")
    same_user_boost: float = Field(
        default=2.0, ge=1, description="x when the asking user wrote or is mentioned in it"
    )
    session_lift: Share = setting(0.0, "share of a session's best score lent to its turns")
    named_speaker: Share = setting(
        0.9,
        "x for the records of other speakers when the question names a speaker "
        "('What did Caroline research?', '小明什么时候有空？'): who said it is evidence "
        "(1 = off)",
    )
    named_speaker_spare: Share = setting(
        0.2,
        "an other speaker's line keeps its score under a question naming someone "
        "when its own words cover the question (names aside) by more than this over every "
        "candidate line of the named person: the topic is theirs (1 = never spared)",
    )
    self_reference: Share = setting(
        0.5,
        "x for an assistant's records when the question speaks of the asker in the "
        "first person without addressing anyone ('How many classes do I take?'): what the "
        "asker said answers it (1 = off)",
    )
    neighbour_lift: Share = setting(
        0.5, "share of a hit's score given to the turns next to it in its session"
    )
    neighbour_window: int = Field(default=2, ge=0, le=5, description="turns each side")
    neighbour_top: NonNegativeInt = setting(10, "lift the neighbours of this many")
    # Off by default: +0.012 recall@10 on zh_groupchat, -0.016 on LoCoMo.
    neighbour_cap: bool = setting(
        False,
        "lift never moves a turn past the hit that lifted it (only its own "
        "match with the query can rank it higher)",
    )
    currency: bool = setting(
        True,
        "a question about now (or naming no time) ranks the record stating a "
        "fact's current value above those stating its earlier values, a question about the "
        "past the reverse, from the facts the store keeps (search/currency.py)",
    )
    # 0: with the full fact extractor, lead 3 lifted "now" rank 1 0.53 -> 0.65 on
    # changed_facts but dropped "stable" rank 1 0.65 -> 0.50 (decision record 0015)
    currency_lead: NonNegativeInt = setting(
        0,
        "currency: when one of this many best candidates states a changed fact, "
        "that fact's answer (the current value, or the earlier one for a question about the "
        "past) goes first, not only above the stale line (0 = only above it)",
    )
    currency_ask: bool = setting(
        True,
        "currency: read whose fact and which attribute the question asks for "
        "(remem.facts.question); when that one chain changed, its current value's record "
        "goes first (the value before it for a question about the past)",
    )
    reply_after_question: bool = setting(
        True,
        "a question put to the other person ('What made you choose that "
        "shade?') ranks below the reply right after it, when that reply is a candidate",
    )
    # The link channel (search/links.py), off: its best shape (0.2, the settings below) adds
    # 0.004 macro recall@10, found among ~40 shapes tried on the same two datasets, and costs
    # 2-3 ms p50 / up to 12 ms p95 of stages at 100k records (remem-bench's link-channel.json)
    link_lift: Share = setting(
        0.0, "share of a hit's score lent to records linked to it (0 = off; 0.2 measured)"
    )
    link_top: NonNegativeInt = setting(5, "follow the links of this many hits")
    link_below_top: bool = setting(True, "linked records stay below them all")
    link_kinds: list[Literal["entity", "source", "supersession", "term"]] = setting(
        ["entity", "term"], "which links to follow"
    )
    link_entities: Literal["any", "query", "other"] = setting(
        "other", "names a hit links by: any, the query's, or the others"
    )


class NamesConfig(_Section):
    """People a query names by another form than their speaker label (``remem.text.names``:
    Chinese nicknames, pinyin)."""

    translate_vector: bool = setting(
        True,
        "a name written otherwise than the label ('Lao Zhao', 'Xiaoming', '老赵') "
        "adds the person's label to the embedded query (remem-bench's entity-names.json)",
    )


class TranslateConfig(_Section):
    """Dictionary translations (CC-CEDICT) of a question asked in one script about messages in
    another (``remem.search.translate``); only words the store holds are added."""

    keyword: bool = setting(
        True,
        "the keyword search also matches the translations of the question's words "
        "(remem-bench's translate.json)",
    )
    vector: bool = setting(
        False, "the embedded query also says the translations of the question's words"
    )
    weight: Share = setting(
        1.0,
        "a translated word's share of a line's keyword score, against 1 for the "
        "question's own words (remem-bench's translation-effect.json)",
    )


class TimeIntentConfig(_Section):
    enabled: bool = setting(
        True,
        'read time expressions in a question ("last week", "上周", "2023-10-13") '
        "as a window of time",
    )
    mode: Literal["boost", "filter"] = setting(
        "boost", "boost: records inside the window gain `boost`; filter: keep only them"
    )
    boost: NonNegativeFloat = setting(0.5, "added to hits inside the window")
    candidates: NonNegativeInt = setting(
        10,
        "each channel's best records from inside a named window of at most 31 "
        "days, added to its candidates (a line of that day the whole store's top-N left out)",
    )


class CalendarConfig(_Section):
    timezone: str = setting(
        "UTC",
        "the time zone whose calendar a question's days are read in (yesterday, "
        "上周, October 13), whose clock recalled lines, listings and the web UI show, and on "
        "which times handed in without a UTC offset are read: an IANA name such as "
        "Asia/Shanghai or Europe/Berlin",
    )

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, name: str) -> str:
        known_zone(name)
        return name

    def zone(self) -> tzinfo:
        """The time zone, ready for ``datetime``."""
        return zone_named(self.timezone)


ZONE_FIX = "give an IANA time zone name such as 'Asia/Shanghai', 'America/New_York' or 'UTC'"


# files of the zone database that are no zone of a place ("localtime" is the server's own)
_NOT_ZONES = ("localtime", "posixrules", "factory")


def known_zone(name: str) -> tzinfo:
    """The zone of an IANA name; ValueError naming the fix for anything else."""
    try:
        if name.strip().lower() in _NOT_ZONES or name.lower().startswith(("posix/", "right/")):
            raise ValueError(name)
        return zone_named(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # 'America' is a folder
        raise ValueError(f"{name!r} is no IANA time zone name; {ZONE_FIX}") from None


@lru_cache(maxsize=64)
def zone_named(name: str) -> tzinfo:
    """``UTC`` as ``datetime.UTC``, any other name from the IANA database (the system's, or
    the ``tzdata`` package where the system has none)."""
    if name.upper() in ("UTC", "ETC/UTC"):
        return UTC
    return ZoneInfo(name)


class DiversityConfig(_Section):
    mode: Literal["off", "demote", "mmr"] = setting(
        "demote",
        "near-duplicates: demote (ranked as if they scored demote_factor x their "
        "score), mmr (maximal marginal relevance) or off",
    )
    threshold: float = Field(default=0.95, gt=0, le=1, description="demote: cosine to a better hit")
    # 0.3: e5's cosine alone moved different lines on one topic (a plan and, weeks later, its
    # outcome) out of the top 10. On the suite (remem-bench's diversity-text.json) 0.3 lowers no
    # dataset on any metric: r@10 zh_groupchat 0.720 -> 0.776, LoCoMo 0.787 -> 0.788, all of
    # LongMemEval 0.879 (unchanged); 0.5-0.7 add LongMemEval recall (0.881-0.886) but cost it
    # session recall (0.987 -> 0.981 at 0.7) and multi-session questions
    text_overlap: Share = setting(
        0.3,
        "demote: and at least this share of character pairs in common with it "
        "(0 = the cosine alone)",
    )
    # 0.7: below every other candidate (0, before) the last version of an assistant's table
    # fell behind other chats' lines in a LongMemEval haystack. Over the suite (r@10 / MRR)
    # 0, 0.3, 0.5, 0.7 and off (1): LongMemEval 0.930 / 0.799 at 0 -> 0.943 / 0.800 at 0.7,
    # zh_groupchat 0.765 -> 0.772, LoCoMo 0.806 -> 0.807, its haystack 0.835 -> 0.855
    # (remem-bench's diversity-demotion.json); off leaves zh_groupchat at 0.765 / 0.514
    demote_factor: Share = setting(
        0.7,
        "demote: a near-duplicate ranks as if it scored this share of its score "
        "(0 = below every other candidate)",
    )
    mmr_lambda: Share = setting(0.7, "mmr: relevance vs novelty")
    session_coverage: Share = setting(
        0.0,
        "a session missing from the top k gets a place for its best hit if it "
        "scores at least this share of the top score (0 = off)",
    )
    max_per_session: NonNegativeInt = setting(
        0, "hits of one session beyond this move down (0 = off)"
    )
    aggregate_max_per_session: NonNegativeInt = setting(
        2,
        "for questions that count, sum, compare or order things across occasions "
        "('how many', 'in total', 'which first', '一共', '几次'): hits of one session beyond "
        "this move down (0 = off)",
    )


class NoiseConfig(_Section):
    enabled: bool = setting(True, "drop greetings, refusals, heartbeats and memory meta-talk")
