"""The toolkit's pages and API in Chinese (?lang=zh): the page's words and the entries' text in
Chinese, formulas and ids unchanged, the English pages as before, and the same grading."""

from __future__ import annotations

import re

HAN = re.compile(r"[\u4e00-\u9fff]")


def main_of(html: str) -> str:
    return html[html.index("<main") : html.index("</main>")]


def test_the_toolkit_index_in_chinese_and_in_english(client):
    zh = client.get("/toolkit?lang=zh").get_data(as_text=True)
    assert '<html lang="zh-Hans"' in zh
    for text in (
        "面试工具箱",
        "白板推导",
        "设计题",
        "环形全规约（Ring AllReduce）：推导它的代价",
        "共 7 步。",
    ):
        assert text in zh, text
    en = client.get("/toolkit?lang=en").get_data(as_text=True)
    assert "<h1>Interview toolkit</h1>" in en and "7 steps." in en
    assert not HAN.search(main_of(en))


def test_a_drill_page_in_chinese_keeps_its_links_and_hides_the_answers(client):
    html = client.get("/toolkit/drills/ring-allreduce?lang=zh").get_data(as_text=True)
    assert "一个数据块有多少字节？" in html and "你的公式" in html
    assert 'href="/lessons/ring-allreduce"' in html and "<code>2*(p-1)/p*M</code>" in html
    assert "2*(p - 1)*M/p" not in html


def test_the_cheat_sheet_in_chinese_keeps_formulas_and_numbers(client):
    html = client.get("/toolkit/cheatsheet?lang=zh").get_data(as_text=True)
    assert "GPU 集合通信：面试速查表" in html and "没有 256 KB 阈值" in html
    assert "2(p−1)α + 2((p−1)/p)Mβ + ((p−1)/p)Mγ" in html
    en = client.get("/toolkit/cheatsheet?lang=en").get_data(as_text=True)
    busbw = re.compile(r'data-role="busbw">.*?(<tbody>.*?</tbody>)', re.S)
    assert busbw.search(html).group(1) == busbw.search(en).group(1)  # factors as computed


def test_the_triage_page_in_chinese(client):
    html = client.get("/toolkit/design/hang-triage?lang=zh").get_data(as_text=True)
    assert "哪个 rank 导致了挂起？" in html and "NCCL_COMM_TIMEOUT 设大一些" in html
    assert "OpType=BROADCAST" in html  # the logs stay as printed
    assert "rank 2 走了一个其他 rank 没有走的分支" not in html  # the answer only when asked
    answer = client.get("/api/toolkit/design/hang-triage/answer?lang=zh").get_json()
    assert "rank 2 走了一个其他 rank 没有走的分支" in answer["model_answer"][0]


def test_a_drill_answer_is_graded_alike_over_http(client):
    url = "/api/toolkit/drills/ring-allreduce/check?lang="
    for body in ({"step": 4, "answer": "2*M"}, {"step": 4, "answer": "2(p−1)/p·M"}):
        en = client.post(url + "en", json=body).get_json()
        zh = client.post(url + "zh", json=body).get_json()
        assert (en["correct"], en["next"]) == (zh["correct"], zh["next"])
        assert not HAN.search(en["feedback"]) and HAN.search(zh["feedback"])


def test_the_layout_check_speaks_chinese(client):
    body = {"tp": 16, "pp": 1, "dp": 8, "zero": 0}
    zh = client.post("/api/toolkit/layout/check?lang=zh", json=body).get_json()
    en = client.post("/api/toolkit/layout/check?lang=en", json=body).get_json()
    assert [c["ok"] for c in zh["criteria"]] == [c["ok"] for c in en["criteria"]]
    assert "TP 组放得进一个节点（NVLink）" in [c["label"] for c in zh["criteria"]]


def test_a_bad_formula_is_refused_in_the_pages_language(client):
    url = "/api/toolkit/drills/ring-allreduce/check?lang="
    body = {"step": 0, "answer": "2*x"}
    en = client.post(url + "en", json=body)
    zh = client.post(url + "zh", json=body)
    assert en.status_code == zh.status_code == 400
    assert en.get_json()["error"].startswith("answer: unknown name 'x'")
    assert zh.get_json()["error"].startswith("answer：未知的名称 'x'")
