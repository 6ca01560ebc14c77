"""Hypothesis strategies shared by the fuzz tests: hostile text and JSON-shaped values.

Every fuzz test runs with ``FUZZ`` settings: derandomized (the same inputs on every run, so CI
is stable and a failure reproduces), no example database, no per-example deadline.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FUZZ = settings(
    max_examples=2_000,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Characters that break naive handling: lone surrogates (JSON "\ud800" decodes to one and
# UTF-8 cannot encode it), NUL and other controls, line ends Python splits on but JSON does
# not, RTL and zero-width marks, a BOM, CJK and an astral emoji.
HOSTILE_CHARS = [
    "\ud800",
    "\udfff",
    "\x00",
    "\x1b",
    "\n",
    "\r",
    "\t",
    "\x7f",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u200f",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\uffff",
    "记",
    "忆",
    "😀",
    " ",
    ":",
    "%",
    "'",
    '"',
    "\\",
    "<",
    "*",
]

# Strings that look almost valid to remem's validators.
NEAR_MISSES = [
    "",
    " ",
    "global",
    "global\n",
    "agent:A",
    "agent:A\n",
    "agent:",
    "agent::x",
    "user:u1",
    "session:s1",
    "custom:x y",
    "message",
    "memory",
    "user",
    "assistant",
    "s1",
    "2026-05-01T12:00:00Z",
    "2026-13-45",
    "1e309",
    "-1",
    "nan",
    "inf",
    "0",
    "x" * 10_001,
    "y" * 200_001,
    "\ud800",
    "abc\n",
    "Assistant (you)",
]

hostile_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.sampled_from(HOSTILE_CHARS), max_size=20),
    st.sampled_from(NEAR_MISSES),
)
numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([10**400, -(10**400), 2**63, 2**64]),  # beyond float and SQLite's int64
    st.sampled_from([math.nan, math.inf, -math.inf]),  # JSON has none of them
)
scalars = st.one_of(st.none(), st.booleans(), numbers, hostile_text)


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


json_values = st.one_of(
    st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=4)
        ),
        max_leaves=10,
    ),
    st.sampled_from([_deep(50), _deep(500)]),
)


def field_values(*valid: Any) -> st.SearchStrategy[Any]:
    """A value for one documented field: mostly one of the valid examples (so that calls get
    past the first check and reach deeper code), else anything at all."""
    if not valid:
        return json_values
    return st.one_of(st.sampled_from(valid), st.sampled_from(valid), json_values)


def maybe_fields(
    fields: dict[str, st.SearchStrategy[Any]], required: tuple[str, ...] = ()
) -> st.SearchStrategy[dict[str, Any]]:
    """A dict holding the ``required`` fields, any subset of the others and now and then an
    unknown key."""
    optional = {k: v for k, v in fields.items() if k not in required}
    return st.fixed_dictionaries(
        {k: fields[k] for k in required}, optional={**optional, "unknown_field": json_values}
    )
