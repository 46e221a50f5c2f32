"""The hang triage: the logs tell one story (one rank in another collective); grading says so."""

from __future__ import annotations

import re

import pytest

from app.toolkit import design

WATCHDOG = re.compile(
    r"\[Rank (\d+)\] Watchdog caught collective operation timeout: "
    r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+), NumelIn=(\d+), NumelOut=\d+, Timeout\(ms\)=600000\)"
)
LAST_CALL = re.compile(r"NCCL INFO (\w+): opCount (\w+) .* count (\d+) .*\[nranks=4\]")


def test_the_culprit_is_the_only_rank_in_another_collective_at_the_same_seqnum():
    seen = {}
    for log in design.triage()["logs"]:
        rank, seq, op, numel = WATCHDOG.search(log["text"]).groups()
        assert int(rank) == log["rank"]
        last = LAST_CALL.findall(log["text"])[-1]
        assert last[1] == "7c1" and int(last[2]) == int(numel)  # NCCL's call matches PyTorch's
        assert last[0].upper() == op
        seen[log["rank"]] = (int(seq), op)
    assert {s for s, _ in seen.values()} == {1986}
    odd = [r for r, (_, op) in seen.items() if op != "ALLREDUCE"]
    assert odd == [design.triage()["culprit"]]


def test_the_right_rank_and_cause_are_graded_right_with_the_explanation():
    out = design.grade_triage({"rank": 2, "cause": "mismatch"})
    assert out["correct"] and out["rank_correct"] and out["cause_correct"]
    assert "TORCH_DISTRIBUTED_DEBUG=DETAIL" in out["explain"]


@pytest.mark.parametrize(
    ("rank", "cause", "says"),
    [
        (0, "mismatch", "Not rank 0"),
        (2, "timeout_variable", "NCCL_COMM_TIMEOUT does not exist"),
        (2, "network", "nNodes 1"),
        (2, "straggler", "A straggler would be late in the same collective"),
    ],
)
def test_a_wrong_rank_or_cause_says_what_the_logs_show(rank, cause, says):
    out = design.grade_triage({"rank": rank, "cause": cause})
    assert not out["correct"] and out["explain"] is None
    assert says in out["rank_feedback"] + out["cause_feedback"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"rank": 4, "cause": "mismatch"}, "rank: must be one of [0, 1, 2, 3]"),
        ({"rank": "2", "cause": "mismatch"}, "rank: must be one of"),
        ({"rank": 2, "cause": "gremlins"}, "cause: must be one of mismatch, straggler"),
        ({"rank": 2}, "cause: must be one of"),
        ("rank 2", "body: must be a JSON object"),
    ],
)
def test_bad_triage_answers_are_refused_naming_the_field(body, says):
    with pytest.raises(design.TriageError) as caught:
        design.grade_triage(body)
    assert says in str(caught.value)


def test_the_triage_prompt_takes_its_rubric_from_the_triage_file():
    prompt = design.prompts()["hang-triage"]
    assert [r["text"] for r in prompt["rubric"]] == design.triage()["rubric"]
    assert list(design.prompts()) == ["parallel-layout", "hierarchical-design", "hang-triage"]
