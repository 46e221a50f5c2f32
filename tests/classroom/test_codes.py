"""Room codes read aloud without look-alikes; teacher tokens kept only as a digest."""

from hypothesis import given
from hypothesis import strategies as st

from app.classroom.codes import (
    ALPHABET,
    CODE_LENGTH,
    new_code,
    new_teacher_token,
    normalize_code,
    token_digest,
    token_matches,
)

LOOK_ALIKES = "0O1IL2Z5S8B"


def test_the_alphabet_has_no_look_alikes_and_codes_are_six_of_it():
    assert not set(LOOK_ALIKES) & set(ALPHABET)
    codes = {new_code() for _ in range(200)}
    assert all(len(c) == CODE_LENGTH == 6 and set(c) <= set(ALPHABET) for c in codes)
    assert len(codes) > 190  # random, not a counter


def test_a_typed_code_is_read_back_in_any_case_with_spaces_or_a_dash():
    assert normalize_code("ack-3d7") == "ACK3D7"
    assert normalize_code(" ac k3 d7 ") == "ACK3D7"


@given(st.one_of(st.text(max_size=30), st.integers(), st.none(), st.lists(st.text())))
def test_anything_else_is_not_a_code(value):
    code = normalize_code(value)
    assert code is None or (len(code) == 6 and set(code) <= set(ALPHABET))


def test_codes_with_a_look_alike_or_the_wrong_length_are_refused():
    assert normalize_code("ACK3D0") is None  # 0 is not in the alphabet
    assert normalize_code("ACK3D") is None
    assert normalize_code("ACK3D77") is None


def test_a_token_matches_its_digest_only():
    token = new_teacher_token()
    digest = token_digest(token)
    assert token not in digest and len(token) >= 32
    assert token_matches(token, digest)
    assert not token_matches(new_teacher_token(), digest)
    assert not token_matches("", digest) and not token_matches(None, digest)
    assert not token_matches(token + "x", digest)
