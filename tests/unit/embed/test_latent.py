"""Packed latent terms (remem.embed.latent): the heaviest TOP terms, normalised, 4 bytes a term,
and their cosine."""

from __future__ import annotations

import numpy as np
import pytest

from remem.embed import latent


def test_pack_keeps_the_heaviest_terms_normalised_and_unpack_reads_them_back():
    terms = np.arange(300)
    weights = np.linspace(0.1, 3.0, 300)
    data = latent.pack(terms, weights)
    assert len(data) == 4 * latent.TOP
    got_terms, got_weights = latent.unpack(data)
    assert set(got_terms.tolist()) == set(range(300 - latent.TOP, 300))  # the heaviest
    assert np.linalg.norm(got_weights) == pytest.approx(1.0, abs=1e-3)
    assert got_weights[0] == got_weights.max()


def test_cosine_counts_the_shared_terms_and_is_one_for_the_same_text():
    a = latent.pack(np.array([1, 2, 3]), np.array([3.0, 4.0, 0.0]))
    b = latent.pack(np.array([2, 9]), np.array([1.0, 1.0]))
    assert latent.cosine(a, a) == pytest.approx(1.0, abs=1e-3)
    assert latent.cosine(a, b) == pytest.approx(0.8 / np.sqrt(2), abs=1e-3)
    assert latent.cosine(a, latent.pack(np.array([7]), np.array([1.0]))) == 0.0
    assert latent.cosine(a, latent.pack(np.array([], int), np.array([]))) == 0.0


def test_bad_input_is_refused_with_what_was_wrong():
    with pytest.raises(ValueError, match="16384"):
        latent.pack(np.array([latent.DIM]), np.array([1.0]))
    with pytest.raises(ValueError, match="4 bytes a term; got 5"):
        latent.unpack(b"12345")
