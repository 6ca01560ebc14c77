"""``Memory``'s methods around an LLM turn: recall before it, capture after it, the agent
tools, and the parts those features work with.

Kept beside the facade (a mixin ``Memory`` inherits, like ``engine_facts``). ``Memory`` is
the composition root: ``_build_features`` gives each feature the parts it works with
(``ChatArchive``, ``MemoryRecallParts``, ``CaptureParts``, ``ToolParts``), so no feature
receives ``Memory`` or calls back into it.
"""

from __future__ import annotations

import numpy as np

from remem import arguments
from remem.access import Access, ScopeGuard, resolve
from remem.capture.capture import CaptureParts, CaptureResult, capture_after_turn
from remem.capture.summary import summarize_session
from remem.config import Config
from remem.embed.base import Embedder
from remem.embed.reads import interactive
from remem.facts.service import FactService
from remem.ingest.indexing import Indexer
from remem.memories import CuratedMemories, StoreOutcome
from remem.recall.conversation import ConversationRecall, Narrowing, conversation_recall
from remem.recall.injections import InjectionLog
from remem.recall.memories import AutoRecall, MemoryRecallParts, NeutralVectors, recall_memories
from remem.recall.messages import ChatArchive, TurnRecall, recall_for_turn
from remem.search.access_counts import AccessRecorder
from remem.search.checked import CheckedSearch
from remem.store.base import Store
from remem.text.tokenize import Tokenizer
from remem.tools import MemoryTools, ToolParts
from remem.types import Turn


class TurnMethods:
    """The turn methods of ``Memory`` (see the module docstring)."""

    config: Config
    store: Store
    tokenizer: Tokenizer
    indexer: Indexer
    memories: CuratedMemories
    fact_service: FactService
    access_counts: AccessRecorder
    checked_search: CheckedSearch
    injections: InjectionLog

    def _build_features(self) -> None:
        """Each feature gets the parts it works with, never ``Memory`` itself."""
        self.chat = ChatArchive(self.config, self.store, self.checked_search)
        self.memory_recall = MemoryRecallParts(
            config=self.config,
            tokenizer=self.tokenizer,
            search=self.checked_search,
            embedder=self.indexer.get_embedder,
            neutral_vectors=NeutralVectors(),
            access_counts=self.access_counts,
            injections=self.injections,
        )
        self.capture = CaptureParts(self.config, self.store, self.memories)
        self.tool_parts = ToolParts(
            config=self.config,
            store=self.store,
            memories=self.memories,
            fact_service=self.fact_service,
            memory_recall=self.memory_recall,
            chat=self.chat,
            wait_facts=self._read_owed_facts,
        )

    def _read_owed_facts(self) -> bool:
        """``Memory.wait_facts`` for the features, which never see ``Memory``."""
        fill = self.indexer.facts
        return True if fill is None else fill.read_owed()

    def scope_access(
        self, agent: str, *, session: str | None = None, user: str | None = None
    ) -> Access:
        """What ``agent`` may read and write in this call (the one scope resolver)."""
        return resolve(self.config, agent, session=session, user=user)

    def neutral_vectors(self, embedder: Embedder) -> np.ndarray:
        """Vectors of a few neutral sentences for this model (the relevance baseline of
        auto-recall), embedded once per model."""
        return self.memory_recall.neutral_vectors(embedder)

    def capture_after_turn(self, turn: Turn) -> CaptureResult:
        """After an LLM response: capture this turn's memories (see ``remem.capture``)."""
        return capture_after_turn(self.capture, arguments.turn(turn))

    def recall_memories(
        self,
        query: str,
        *,
        agent: str,
        session: str | None = None,
        user: str | None = None,
        now: float | None = None,
        preview: bool = False,
        timezone: str | None = None,
    ) -> AutoRecall:
        """Before an LLM request: the relevant memories as a ``<relevant-memories>`` block
        (``timezone``: the asker's, for time words and the memories' dates)."""
        guard = ScopeGuard.for_agent(self.config, agent, session=session, user=user)
        with interactive():  # one query deadline for every embedding this recall waits for
            return recall_memories(
                self.memory_recall,
                query,
                guard,
                now=now,
                preview=preview,
                timezone=timezone,
            )

    def tools(
        self, agent: str, *, session: str | None = None, user: str | None = None
    ) -> MemoryTools:
        """The agent tools bound to one agent, and to a session and user when given."""
        return MemoryTools(self.tool_parts, agent, session=session, user=user)

    def session_reset(
        self, session: str, *, agent: str, user: str | None = None, now: float | None = None
    ) -> StoreOutcome | None:
        """A session ends: store one summary memory of it when ``capture.session_summary`` is
        on (returns the store outcome, or None)."""
        arguments.name("session", session)
        arguments.unix_time("now", now, optional=True)
        return summarize_session(self.capture, session, agent=agent, user=user, now=now)

    def recall_for_turn(self, turn: Turn) -> TurnRecall:
        """Before an LLM call: recall for this turn's archived inputs and render the block to
        inject (see ``remem.recall.messages``)."""
        turn = arguments.turn(turn)
        return recall_for_turn(self.chat, turn, ScopeGuard.limited_to(turn.scopes))

    def conversation_recall(
        self,
        turn: Turn,
        query: str,
        *,
        scope: str | None = None,
        context_window: int | None = None,
        limit: int | None = None,
        cross_session: bool | None = None,
    ) -> ConversationRecall:
        """Search the archived chat ``turn``'s session may recall for ``query``; ``scope``,
        ``context_window``, ``limit`` and ``cross_session`` only narrow (see
        ``remem.recall.conversation``)."""
        narrowing = Narrowing(
            scope=scope, context_window=context_window, limit=limit, cross_session=cross_session
        )
        guard = ScopeGuard.limited_to(turn.scopes)
        return conversation_recall(self.chat, turn, query, guard=guard, narrowing=narrowing)
