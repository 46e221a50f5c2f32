"""The pages in Chinese (?lang=zh) show their words in Chinese, and the English pages are
unchanged: lessons (index, a lesson, glossary, search), quiz, home, errors, measure,
nccl-tests and the NCCL-log reader."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.course import current_course
from tests.lessons.htmltools import parse

FIXTURES = Path(__file__).parents[1] / "fixtures"
CJK = re.compile(r"[\u4e00-\u9fff]")


def text_of(client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, url
    return parse(response.get_data(as_text=True)).text


@pytest.mark.parametrize(
    "url, zh, en",
    [
        ("/", "看 GPU 之间如何通信", "See how GPUs talk to each other"),
        ("/quiz", "面试准备", "Interview prep"),
        ("/lessons/", "搜索课程", "Search the lessons"),
        ("/lessons/ring-allreduce", "本页内容", "On this page"),
        ("/lessons/glossary", "术语表", "Glossary"),
        ("/measure", "测量本机", "Measure this machine"),
        ("/nccl-tests", "读取 nccl-tests 输出", "Read nccl-tests output"),
        ("/nccl-log", "读取日志", "Read the log"),
    ],
)
def test_a_page_in_chinese_and_in_english(client, url, zh, en):
    chinese = text_of(client, f"{url}?lang=zh")
    english = text_of(client, f"{url}?lang=en")
    assert zh in chinese and en not in chinese
    assert en in english and zh not in english


def test_an_error_page_is_framed_in_chinese(client):
    text = text_of(client, "/no-such-page?lang=zh", 404)
    assert "未找到" in text and "没有这个页面：/no-such-page" in text
    assert "Not Found" in text_of(client, "/no-such-page?lang=en", 404)


def test_the_glossary_in_chinese_keeps_the_english_anchors(client):
    def terms(lang):
        html = client.get(f"/lessons/glossary?lang={lang}").get_data(as_text=True)
        return {dt.attrs["id"]: dt.text for dt in parse(html).find_all("dt")}

    en, zh = terms("en"), terms("zh")
    assert en.keys() == zh.keys()
    assert zh["term-allreduce"] == "全规约（AllReduce）" and en["term-allreduce"] == "AllReduce"


def test_search_in_chinese_finds_lessons_and_glossary_terms(client):
    found = client.get("/api/lessons/search?q=规约&lang=zh").get_json()
    titles = {s: lesson.title for s, lesson in current_course().lessons_in("zh").items()}
    assert found["results"] and all(hit["title"] in titles.values() for hit in found["results"])
    terms = {t["term"]: t["url"] for t in found["glossary"]}
    assert terms["全规约（AllReduce）"].endswith("#term-allreduce")
    assert all(CJK.search(t["definition"]) for t in found["glossary"])


def test_the_nccl_log_reading_is_said_in_chinese(client):
    log = (FIXTURES / "nccl_logs" / "recent_two_nodes_trees.log").read_text(encoding="utf-8")
    html = client.post("/nccl-log?lang=zh", data={"log": log}).get_data(as_text=True)
    doc = parse(html)
    assert "个 rank" in doc.find(data_role="summary").text
    assert doc.find(data_role="ring-text").text.startswith("通道 ")
    english = client.post("/nccl-log?lang=en", data={"log": log}).get_data(as_text=True)
    summary = parse(english).find(data_role="summary").text
    assert "ranks" in summary and not CJK.search(summary)


def test_the_nccl_tests_reading_is_said_in_chinese(client):
    output = (FIXTURES / "nccl_tests" / "h100pcie_2gpu_all_reduce.txt").read_text(encoding="utf-8")
    answers = {
        lang: client.post(f"/api/nccl-tests?lang={lang}", json={"output": output}).get_json()
        for lang in ("en", "zh")
    }
    assert CJK.search(answers["zh"]["reading"]["summary"])
    assert CJK.search(answers["zh"]["model"]["sentence"])
    assert not CJK.search(answers["en"]["reading"]["summary"] + answers["en"]["model"]["sentence"])
    assert answers["zh"]["reading"]["rows"] == answers["en"]["reading"]["rows"]
