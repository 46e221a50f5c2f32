"""Signatures of drawn parameters and opaque option ids."""

from __future__ import annotations

import pytest

from app.quiz import tokens


def test_a_signature_verifies_only_the_same_id_parameters_and_key():
    token = tokens.sign("k", "q1", {"ranks": 8, "link": "ib_ndr"})
    assert tokens.verify("k", "q1", {"link": "ib_ndr", "ranks": 8}, token)  # key order is free
    assert not tokens.verify("k", "q2", {"ranks": 8, "link": "ib_ndr"}, token)
    assert not tokens.verify("k", "q1", {"ranks": 16, "link": "ib_ndr"}, token)
    assert not tokens.verify("other", "q1", {"ranks": 8, "link": "ib_ndr"}, token)
    assert not tokens.verify("k", "q1", {"ranks": 8.0, "link": "ib_ndr"}, token)


def test_opaque_ids_are_stable_per_key_and_reveal_no_index():
    ids = [tokens.opaque_id("k", "q1", "option", i) for i in range(4)]
    assert ids == [tokens.opaque_id("k", "q1", "option", i) for i in range(4)]
    assert len(set(ids)) == 4
    assert tokens.opaque_id("j", "q1", "option", 0) != ids[0]  # another key, other ids
    assert tokens.opaque_id("k", "q2", "option", 0) != ids[0]  # another question, other ids


def test_an_empty_key_is_refused():
    with pytest.raises(ValueError, match="SECRET_KEY"):
        tokens.sign("", "q1", {})
