"""The design prompts' model answers: their numbers are the case's, worked from the formulas."""

from __future__ import annotations

from app.toolkit import design, layout

G, N, M_GB = layout.GPUS_PER_NODE, layout.NODES, 14  # 7e9 BF16 gradients = 14 GB


def text(prompt_id: str) -> str:
    prompt = design.prompts()[prompt_id]
    return " ".join(prompt["model_answer"] + [r["text"] for r in prompt["rubric"]])


def test_the_hierarchical_answer_counts_steps_and_bytes_per_nic_from_the_formulas():
    answer = text("hierarchical-design")
    assert f"2(N − 1) = {2 * (N - 1)}" in answer
    assert f"2(p − 1) = {2 * (G * N - 1)}" in answer
    assert f"≈ {2 * (N - 1) / N * M_GB / G:.2g} GB" in answer  # per NIC in (b): 3.3 GB
    assert f"≈ {2 * (N - 1) / N * M_GB:.2g} GB" in answer  # a leader's NIC in (a): 26 GB
    assert f"({M_GB / G:g} GB)" in answer  # the shard after the intra-node reduce-scatter


def test_the_hierarchical_prompt_prices_the_case_with_its_calculator():
    calc = design.prompts()["hierarchical-design"]["calculator"]
    assert calc["name"] == "hierarchical"
    assert calc["args"]["message_bytes"] == str(M_GB * 10**9)
    assert (calc["args"]["gpus_per_node"], calc["args"]["nodes"]) == (str(G), str(N))


def test_the_layout_rubric_names_every_numeric_check_the_server_makes():
    rubric = design.prompts()["parallel-layout"]["rubric"]
    checked = {c for r in rubric for c in r.get("checks", [])}
    made = {c["id"] for c in layout.check({"tp": 1, "pp": 1, "dp": 128, "zero": 1})["criteria"]}
    assert checked == made
    assert f"{16 * 7} GB under plain DDP" in text("parallel-layout")
