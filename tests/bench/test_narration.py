"""bench.narration's two sides: the lab's own encoding, and the same with the narration left out."""

from __future__ import annotations

from bench import narration


def test_the_run_without_narration_encodes_the_same_run_with_empty_sentences():
    with_cpu, with_bytes, narrate_s = narration._run(True)
    without_cpu, without_bytes, nothing = narration._run(False)
    assert with_bytes > without_bytes > 0
    assert with_cpu > 0 and without_cpu > 0 and narrate_s > 0
    assert nothing == 0.0
