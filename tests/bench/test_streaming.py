"""bench.streaming's bare server computing a run sends what the lab sends for it."""

from __future__ import annotations

from bench import streaming


def test_the_computing_bare_server_builds_the_labs_own_payloads():
    params = {**streaming.PARAMS, "ranks": 8, "elements": 16}
    lab = [
        (name, {k: v for k, v in p.items() if k != "run_id"})
        for name, p in streaming.record_payloads(params)
    ]
    computed = list(streaming.computed_payloads(params))
    assert [name for name, _ in computed] == [name for name, _ in lab]
    assert computed == lab
