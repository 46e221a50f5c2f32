"""Questions stay gradable across restarts and server processes: with no configured secret the
key is made once and kept in the instance folder; an answer the server still cannot grade is
refused with `stale`, so the page can offer a fresh question."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app import create_app
from app.quiz import current_bank, tokens
from app.quiz.present import option_ids
from tests.conftest import TEST_CONFIG
from tests.quiz.answers import right_answer

ROOT = Path(__file__).resolve().parents[2]

# One server process: builds the app on an instance folder, serves the requests it is given
# (a JSON list of [method, url, body]) and writes the [status, JSON] answers to a file.
PROCESS = """
import json, sys
from app import create_app
from tests.conftest import TEST_CONFIG
client = create_app({**TEST_CONFIG, "INSTANCE_PATH": sys.argv[1]}).test_client()
answers = [
    (lambda r: [r.status_code, r.get_json()])(client.open(url, method=method, json=body))
    for method, url, body in json.loads(sys.argv[2])
]
with open(sys.argv[3], "w") as out:
    json.dump(answers, out)
"""


@pytest.fixture(autouse=True)
def no_configured_secret(monkeypatch):
    """Run as a fresh `make run` would: no COLLECTIVE_LAB_SECRET_KEY in the environment."""
    monkeypatch.delenv("COLLECTIVE_LAB_SECRET_KEY", raising=False)
    monkeypatch.delenv("COLLECTIVE_LAB_INSTANCE_PATH", raising=False)


def serve_in_a_new_process(instance: Path, requests: list) -> list:
    """Start a server process on `instance`, send it `requests`, return its answers."""
    out = instance.parent / f"answers-{len(list(instance.parent.iterdir()))}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLLECTIVE_LAB")}
    subprocess.run(
        [sys.executable, "-c", PROCESS, str(instance), json.dumps(requests), str(out)],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    return json.loads(out.read_text())


def server(instance: Path, **config):
    """A server in this process on the instance folder `instance`."""
    app = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(instance), **config})
    return app.test_client()


def test_a_mock_interview_and_questions_drawn_before_a_restart_are_graded_after_it(tmp_path):
    instance = tmp_path / "instance"
    ids = "choice-ring-step-count,choice-zero2-volume,order-moe-layer,match-primitive-use"
    drawn = serve_in_a_new_process(
        instance,
        [
            ["GET", "/api/quiz/questions?mode=mock", None],
            ["GET", f"/api/quiz/questions?ids={ids}", None],
        ],
    )
    questions = [q for status, data in drawn for q in data["questions"]]
    assert len(questions) == 14
    # The server restarts (a new process, the same instance folder): every answer still counts.
    graded = serve_in_a_new_process(
        instance, [["POST", "/api/quiz/answer", right_answer(q)] for q in questions]
    )
    for question, (status, result) in zip(questions, graded, strict=True):
        assert status == 200, (question["id"], result)
        assert result["correct"] is (None if question["kind"] == "explain" else True)


def test_the_generated_key_is_kept_in_the_instance_folder_readable_by_the_owner_only(tmp_path):
    app = server(tmp_path).application
    kept = tmp_path / "secret_key"
    assert kept.read_text().strip() == app.config["SECRET_KEY"]
    assert len(app.config["SECRET_KEY"]) >= 32
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_a_configured_key_wins_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLECTIVE_LAB_SECRET_KEY", "a-long-configured-secret-from-the-environment")
    app = server(tmp_path).application
    assert app.config["SECRET_KEY"] == "a-long-configured-secret-from-the-environment"
    assert not (tmp_path / "secret_key").exists()


def test_a_numeric_environment_secret_is_still_a_usable_key(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLECTIVE_LAB_SECRET_KEY", "12345678901234567890123456789012")
    client = server(tmp_path)
    shown = client.get("/api/quiz/questions?ids=num-ring-allreduce-time").get_json()
    body = right_answer(shown["questions"][0])
    assert client.post("/api/quiz/answer", json=body).get_json()["correct"] is True


def test_processes_starting_together_agree_on_one_key(tmp_path):
    from app.web import instance_secret

    keys: list[str] = []
    start = threading.Barrier(8)

    def boot():
        start.wait()
        keys.append(instance_secret.load_or_create(tmp_path / "fresh"))

    threads = [threading.Thread(target=boot) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(keys) == 8 and len(set(keys)) == 1
    assert sorted(p.name for p in (tmp_path / "fresh").iterdir()) == ["secret_key"]


def test_the_instance_folder_is_not_committed():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert "/instance/" in ignored


def test_an_answer_signed_with_another_key_is_refused_as_stale(tmp_path):
    client = server(tmp_path)
    shown = client.get("/api/quiz/questions?ids=num-ring-allreduce-time").get_json()
    question = shown["questions"][0]
    foreign = tokens.sign("another-server-key", question["id"], question["params"])
    body = {"id": question["id"], "params": question["params"], "token": foreign, "answer": 1}
    r = client.post("/api/quiz/answer", json=body)
    assert r.status_code == 400
    data = r.get_json()
    assert data["stale"] is True and data["error"].startswith("params:")
    assert "another key" in data["error"]


@pytest.mark.parametrize(
    ("qid", "role"),
    [
        ("choice-ring-step-count", "option"),
        ("choice-zero2-volume", "option"),
        ("order-moe-layer", "item"),
        ("match-primitive-use", "right"),
    ],
)
def test_option_ids_from_another_key_are_refused_as_stale(tmp_path, qid, role):
    client = server(tmp_path)
    q = current_bank().by_id[qid]
    count = {"option": len(q.options), "item": len(q.items)}.get(
        role, len(q.pairs) + len(q.distractors)
    )
    foreign = option_ids("another-server-key", q, role, count)
    if q.kind == "single":
        answer: object = foreign[0]
    elif q.kind == "multiple":
        answer = foreign[:1]
    elif q.kind == "order":
        answer = foreign
    else:
        answer = {f"l{i}": foreign[i] for i in range(len(q.pairs))}
    r = client.post("/api/quiz/answer", json={"id": qid, "answer": answer})
    assert r.status_code == 400
    assert r.get_json()["stale"] is True, r.get_json()


def test_a_malformed_answer_is_not_called_stale(tmp_path):
    client = server(tmp_path)
    r = client.post("/api/quiz/answer", json={"id": "choice-ring-step-count", "answer": 3})
    assert r.status_code == 400 and "stale" not in r.get_json()
