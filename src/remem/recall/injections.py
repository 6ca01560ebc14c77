"""Cross-turn dedup of auto-recall: when each memory was last injected into each session."""

from __future__ import annotations

import threading
from collections import OrderedDict


class InjectionLog:
    """When each memory was last injected into each session (process memory, per Memory).
    Only kept while cross-turn dedup is on, for the ``max_sessions`` most recent sessions."""

    def __init__(self, max_sessions: int = 10_000) -> None:
        self._lock = threading.Lock()
        self.max_sessions = max_sessions
        self._turns: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._last: dict[tuple[str, str], dict[str, tuple[int, float]]] = {}

    def next_turn(self, key: tuple[str, str]) -> int:
        with self._lock:
            self._turns[key] = self._turns.get(key, 0) + 1
            self._turns.move_to_end(key)
            while len(self._turns) > self.max_sessions:
                old, _ = self._turns.popitem(last=False)
                self._last.pop(old, None)
            return self._turns[key]

    def recent(
        self,
        key: tuple[str, str],
        memory_id: str,
        turn: int,
        now: float,
        turns: int,
        seconds: float,
    ) -> bool:
        with self._lock:
            last = self._last.get(key, {}).get(memory_id)
        if last is None:
            return False
        return (turns > 0 and turn - last[0] <= turns) or (seconds > 0 and now - last[1] < seconds)

    def mark(self, key: tuple[str, str], memory_ids: list[str], turn: int, now: float) -> None:
        with self._lock:
            if key not in self._turns:
                return  # evicted meanwhile
            seen = self._last.setdefault(key, {})
            for mid in memory_ids:
                seen[mid] = (turn, now)

    def __len__(self) -> int:
        return len(self._turns)
