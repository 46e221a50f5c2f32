"""A room that mixes readers: each member gets the poll, its result and its refusals in the
language it joined with (`lang` of room_join), and answers from every language count in one
tally. Through Flask-SocketIO's test clients, as test_classroom_events.py."""

from __future__ import annotations

import re

import pytest

from app.quiz import current_bank
from tests.web.test_classroom_events import Class

CJK = re.compile(r"[\u4e00-\u9fff]")
SINGLE_ZH = next(
    q.id for q in current_bank().questions if q.kind == "single" and "zh" in q.translations
)


@pytest.fixture
def klass():
    c = Class()
    yield c
    c.close()


def only(events, name: str) -> dict:
    got = [p for n, p in events if n == name]
    assert len(got) == 1, events
    return got[0]


def test_a_zh_and_an_en_follower_answer_one_poll_and_count_in_one_tally(klass):
    zh, _ = klass.student("李雷", lang="zh")
    en, _ = klass.student("Ada", lang="en")
    klass.teacher.events()
    poll_id = klass.teach("poll_open", question_id=SINGLE_ZH)["poll_id"]
    zh_q, en_q = (only(m.events(), "poll")["question"] for m in (zh, en))
    assert only(klass.teacher.events(), "poll")["question"] == en_q  # no lang: English
    assert [o["id"] for o in zh_q["options"]] == [o["id"] for o in en_q["options"]]
    assert CJK.search(zh_q["prompt_html"]) and not CJK.search(en_q["prompt_html"])

    right = klass.stored().poll["key"]["correct"]
    wrong = next(o["id"] for o in en_q["options"] if o["id"] != right)
    assert klass.answer(zh, poll_id, right) == {"ok": True}
    assert klass.answer(en, poll_id, wrong) == {"ok": True}
    tally = [p for n, p in klass.teacher.events() if n == "poll_tally"][-1]
    assert (tally["answered"], tally["right"], tally["counts"]) == (2, 1, {right: 1, wrong: 1})

    assert klass.teach("poll_reveal", poll_id=poll_id)["ok"] is True
    zh_r, en_r = (only(m.events(), "poll_result") for m in (zh, en))
    assert zh_r["correct"] == en_r["correct"] == right
    assert zh_r["counts"] == en_r["counts"] == {right: 1, wrong: 1}
    assert CJK.search(zh_r["why"]) and not CJK.search(en_r["why"])

    late, landing = klass.student(lang="zh")  # a late zh joiner lands on the zh result
    assert landing["poll"]["question"] == zh_q and landing["poll"]["result"]["why"] == zh_r["why"]


def test_refusals_and_the_poll_note_reach_a_member_in_its_language(klass):
    zh = klass.member()
    gone = {"code": "ACK3D7", "lang": "zh"}
    error = zh.emit("room_join", gone)["error"]
    assert error.startswith("code: ") and CJK.search(error) and "ACK3D7" in error
    english = zh.emit("room_join", {**gone, "lang": "en"})["error"]
    assert english == "code: no room ACK3D7 (it may have ended)"
    assert zh.emit("room_join", {**gone, "lang": "fr"})["error"] == (
        'lang: must be one of en, zh; got "fr"'
    )
    assert (
        klass.student(lang="zh")[0]
        .emit("poll_answer", {"code": klass.code, "poll_id": "p000000000000", "answer": "x"})[
            "error"
        ]
        .startswith("poll_id: 提问 p000000000000")
    )

    # The teacher rejoins reading Chinese: the predict note comes in Chinese.
    joined = klass.teacher.emit(
        "room_join", {"code": klass.code, "teacher_token": klass.token, "lang": "zh"}
    )
    assert joined["role"] == "teacher"
    refused = klass.drive(ranks=65)["error"]  # the lab's own gate, in its Chinese shape
    assert refused.startswith("state: ranks ") and CJK.search(refused), refused
    klass.drive(step=1)
    note = klass.teach("poll_open", question_id="predict-next-step")["note"]
    assert CJK.search(note) and "2" in note, note
