"""The Store protocol's parameter objects (``remem.store.queries``): what they accept, what
they refuse with an error naming the field, and what they normalise."""

import numpy as np
import pytest

from remem.store.queries import FactQuery, LexicalQuery, SessionWindow, VectorRead, VectorWrite
from remem.types import Filters


def test_a_lexical_query_keeps_its_tokens_as_a_tuple_and_its_weight_as_a_float():
    query = LexicalQuery(["apple", "", "pear"], Filters(scopes=["a"]), 5.0, 1)
    assert query.tokens == ("apple", "", "pear")
    assert query.words == ["apple", "pear"]
    assert query.context_weight == 1.0 and isinstance(query.context_weight, float)
    assert query.with_context
    assert not LexicalQuery(["apple"]).with_context
    assert not LexicalQuery(["apple"], context_weight=-1).with_context


def test_a_lexical_query_refuses_a_lone_string():
    with pytest.raises(TypeError, match=r"LexicalQuery.tokens .*\['apple'\]"):
        LexicalQuery("apple")


def test_a_vector_read_refuses_a_dimension_or_sequence_that_cannot_be():
    assert VectorRead("m", 4).after_seq == 0
    with pytest.raises(ValueError, match=r"VectorRead\.dim"):
        VectorRead("m", 0)
    with pytest.raises(ValueError, match=r"VectorRead\.after_seq"):
        VectorRead("m", 4, after_seq=-1)


def test_a_vector_write_holds_its_items():
    batch = VectorWrite("m", "local", "model", [(1, np.zeros(4, np.float32))])
    assert batch.mark_indexed and len(batch.items) == 1


def test_a_fact_query_refuses_a_lone_scope_string():
    assert FactQuery(scopes=["a", "b"]).scopes == ("a", "b")
    assert FactQuery().scopes is None
    with pytest.raises(TypeError, match=r"FactQuery.scopes .*\['user:x'\]"):
        FactQuery(scopes="user:x")


def test_a_session_window_refuses_a_negative_side():
    assert SessionWindow(0, 2).context is False
    with pytest.raises(ValueError, match=r"SessionWindow\.before"):
        SessionWindow(-1, 1)
