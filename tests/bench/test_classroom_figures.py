"""bench.classroom counts what students saw: lost and out-of-order states, the tally's exactness."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bench import classroom


def student(states, answers=(), error=None) -> dict:
    return {"states": states, "polls": [], "answers": list(answers), "error": error}


def test_fanout_counts_lost_and_out_of_order_states_by_seq():
    paced = [(10.0, 7), (11.0, 8), (12.0, 9)]  # (sent, seq from the ack)
    bursts = [[(13.0, 10)], [(14.0, 11)]]
    reports = [
        student([(7, 10.010), (8, 11.020), (9, 12.030), (10, 13.010), (11, 14.010)]),
        student([(7, 10.050), (9, 12.010), (8, 11.200), (10, 13.030), (11, 14.020)]),  # 8 late
        student([(7, 10.020), (9, 12.020), (10, 13.020), (11, 14.040)]),  # never got 8: lost
        student([], error="join: refused"),  # not in the room: neither lost nor late
    ]
    out = classroom._fanout_figures("x", paced, bursts, reports, cpu=0.0)
    assert out["students"] == 3 and out["drives"] == 5
    assert out["lost"] == 1 and out["out_of_order"] == 1
    # The last student: seq 7 at +50 ms, 8 at +200 ms, 9 at +30 ms (nearest rank).
    assert out["p50_ms"] == pytest.approx(50) and out["p99_ms"] == pytest.approx(200)
    # Each burst's drive reached three students, in 30 and 40 ms: 100 and 75 deliveries/s.
    assert out["burst_rates"] == pytest.approx([75, 100])


def test_two_students_receiving_at_the_same_instant_are_two_deliveries(capsys):
    # Counting distinct arrival times would call one of these two lost.
    paced = [(10.0, 7)]
    reports = [student([(7, 10.010)]), student([(7, 10.010)]), student([])]
    out = classroom._fanout_figures("x", paced, [], reports, cpu=0.0)
    assert out["lost"] == 1  # the third student only
    said = capsys.readouterr().out
    assert "seq 7 (paced drive 1 of 1) missed by student 2, who received 0 states" in said


def test_poll_figures_compare_the_teacher_tally_with_the_answers_sent():
    answers = [
        {"poll_id": "p1", "answer": "a", "sent": 1.0, "acked": 1.01, "ok": True},
        {"poll_id": "p1", "answer": "b", "sent": 1.5, "acked": 1.52, "ok": True},
        {"poll_id": "p1", "answer": "b", "sent": 1.6, "acked": 1.61, "ok": False},  # refused
    ]
    reports = [student([], answers)]
    exact = SimpleNamespace(tallies=[
        (1.2, {"poll_id": "p1", "counts": {"a": 1}, "answered": 1}),
        (1.8, {"poll_id": "p1", "counts": {"a": 1, "b": 1, "c": 0}, "answered": 2}),
    ])  # fmt: skip
    out = classroom._poll_figures("x", {"ok": True, "poll_id": "p1"}, exact, reports)
    assert out["exact"] is True and out["accepted"] == 2
    assert out["tally_ms"] == pytest.approx(300)  # last accepted answer 1.5 -> full tally 1.8
    wrong = SimpleNamespace(tallies=[(1.8, {"poll_id": "p1", "counts": {"a": 2}, "answered": 2})])
    assert classroom._poll_figures("x", {"poll_id": "p1"}, wrong, reports)["exact"] is False


def test_the_knee_is_where_every_larger_count_fails():
    def points(*oks):
        return [{"clients": k, "ok": ok} for k, ok in zip((10, 25, 50, 100), oks, strict=True)]

    assert classroom.knee_of(points(False, True, False, False)) == 50  # 10 was a noisy blip
    assert classroom.knee_of(points(True, True, True, True)) is None
    assert classroom.knee_of(points(False, False, False, False)) == 10
