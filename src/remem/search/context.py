"""What the stages of one search read, in parts by purpose (``StageContext``): the request, what
reading the query found, what the channels found, the readers, relevance's verdict for
answerability, and the report back (drops, warnings, notes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from remem.config import Config
from remem.search.candidates import Candidate
from remem.store.base import Store
from remem.text.timeexpr import TimeWindow
from remem.text.tokenize import Tokenizer
from remem.types import Filters

if TYPE_CHECKING:
    from remem.search.latent_reader import LatentReader
    from remem.search.query_names import SpeakerNames
    from remem.search.witness import CrossScriptWitness


@dataclass(slots=True)
class Dropped:
    """A candidate a stage removed, and why (the answer to "why was nothing recalled?")."""

    record_id: str | None
    rowid: int
    stage: str
    reason: str
    score: float

    def to_dict(self) -> dict:
        return {
            "id": self.record_id,
            "stage": self.stage,
            "reason": self.reason,
            "score": self.score,
        }


@dataclass(slots=True)
class Request:
    """What the caller asked: the query, its clock, how many hits, the settings, who asks and
    which records the search may see."""

    query: str
    now: float
    k: int
    config: Config
    asker: str | None = None  # the user asking, for the same-user boost
    same_user_boost: bool = False
    filters: Filters | None = None
    # whether superseded curated memories may be returned (Filters.include_superseded resolved)
    include_superseded: bool = False


@dataclass(slots=True)
class QueryUnderstanding:
    """What reading the query found before any candidate is scored: its time words, the people
    it names, its terms' weights and forms, and what it says in the other script."""

    time_window: TimeWindow | None = None
    # speaker label -> the alias the query names them by, casefolded (search/query_names.py)
    named: dict[str, str] = field(default_factory=dict)
    weights: dict[str, float] | None = None  # IDF of the query's terms, computed once
    unseen: float = 0.0  # the share of that IDF on terms no record holds
    # Latin-script words of the query that no record holds ("Caroline" in a Chinese question)
    unseen_latin: tuple[str, ...] = ()
    # another form's token -> the query's token it is a form of (text/word_forms.py)
    forms: dict[str, str] = field(default_factory=dict)
    # a chat so far: (how much each message counts, its words' weights) (query_terms.py)
    message_weights: list[tuple[float, dict[str, float]]] | None = None
    # the query's English tokens with a dictionary translation the store holds (translate.py)
    held_english: set[str] = field(default_factory=set)
    # IDF of the dictionary translations of the query's words (search/translate.py)
    translated_weights: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class ChannelFinds:
    """What the vector channel leaves for the stages: the query's vector, the candidates' stored
    vectors of the same model, and the query's cosine to the nearest neutral sentence."""

    query_vector: np.ndarray | None = None
    vectors: dict[int, np.ndarray] = field(default_factory=dict)  # rowid -> stored vector
    model_id: str | None = None
    baseline: float | None = None  # the query's cosine to the nearest neutral sentence


@dataclass(slots=True)
class Readers:
    """What the stages that look beyond the candidate list read through: the store, the
    tokenizer, the models a stage asks (rerank, relevance's second model, latent terms) and
    the people a text names (link lift)."""

    store: Store | None = None
    tokenizer: Tokenizer | None = None
    reranker: Any = None
    witness: CrossScriptWitness | None = None  # relevance's second model (search/witness.py)
    latent: LatentReader | None = None  # the best candidates' latent terms (latent_reader.py)
    speaker_names: SpeakerNames | None = None  # the people a text names (link lift)
    # rowid -> its indexed tokens, and every rowid already asked for (a row the index lacks
    # stays absent, so a stage falls back to tokenizing the text, as with a direct read)
    indexed: dict[int, list[str]] = field(default_factory=dict)
    indexed_asked: set[int] = field(default_factory=set)

    def indexed_tokens(self, rowids: list[int]) -> dict[int, list[str]]:
        """The records' indexed tokens (``Store.lexical_tokens``), read once per search: the
        speaker, link and relevance stages weigh many of the same candidates' words."""
        wanted = sorted({r for r in rowids if r not in self.indexed_asked})
        if wanted and self.store is not None:
            self.indexed.update(self.store.lexical_tokens(wanted))
            self.indexed_asked.update(wanted)
        return {r: self.indexed[r] for r in rowids if r in self.indexed}


@dataclass(slots=True)
class RelevanceVerdict:
    """What the relevance stage hands the answerability stage."""

    # why no candidate cleared its relevance floor, when none did and the answerability stage
    # decides whether the search answers anyway (search/answerability.py)
    floor_miss: str | None = None
    # the relevance stage judged this search with a calibrated model or a cross-encoder: only
    # then is the answerability fit (made on the bundled model's evidence) read
    calibrated: bool = False
    # the best candidate's relevance over its floor: the floors' own gate, now an input
    best_margin: float | None = None
    # the query is the chat so far by people the store knows (held to the chat's floor)
    own_chat: bool = False


@dataclass(slots=True)
class Report:
    """What the stages tell the caller: the candidates dropped and why, warnings, notes."""

    dropped: list[Dropped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def drop(self, cand: Candidate, stage: str, reason: str) -> None:
        rid = cand.record.id if cand.record else None
        self.dropped.append(Dropped(rid, cand.rowid, stage, reason, cand.score))


@dataclass(slots=True)
class StageContext:
    """One search's parts, each with one purpose: what was asked, what reading the query found,
    what the channels found, what the stages read through, relevance's verdict for
    answerability, and the report back."""

    request: Request
    understood: QueryUnderstanding = field(default_factory=QueryUnderstanding)
    found: ChannelFinds = field(default_factory=ChannelFinds)
    readers: Readers = field(default_factory=Readers)
    verdict: RelevanceVerdict = field(default_factory=RelevanceVerdict)
    report: Report = field(default_factory=Report)

    def read_vectors(self, rowids: list[int]) -> None:
        """Add the stored vectors (of the search's model) of records a stage brings in, so the
        relevance stage judges them by their own cosine to the query as every other hit: by
        their words alone, the lenient words-only calibration let off-topic questions through."""
        found, store = self.found, self.readers.store
        wanted = [r for r in rowids if r not in found.vectors]
        if not wanted or found.model_id is None or store is None:
            return
        for rowid, stored in store.vectors_of(wanted).items():
            for model_id, _provider, _model, blob in stored:
                if model_id == found.model_id:
                    found.vectors[rowid] = np.frombuffer(blob, np.float32)
