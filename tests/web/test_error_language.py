"""Error messages reach a Chinese reader in Chinese: the checks' English shapes are translated
through the catalog (app/i18n/errors.py), fields and values kept as written."""

from __future__ import annotations

from app.i18n.errors import translate_error
from app.web.live.measure import parse_start


def test_a_range_error_is_translated_with_its_field_and_values_kept():
    zh = translate_error("zh", "ranks must be an integer in 2..64 for allreduce/ring; got 65")
    assert "ranks" in zh and "2..64" in zh and "allreduce/ring" in zh and "65" in zh
    assert "must be" not in zh and "integer" not in zh


def test_english_and_unknown_shapes_stay_as_written():
    message = "ranks must be an integer in 2..64; got 65"
    assert translate_error("en", message) == message
    odd = "the simulation produced no steps"
    assert translate_error("zh", odd) == odd


def test_api_errors_come_in_the_requests_language(client):
    en = client.get("/api/nccl-model?collective=allreduce&ranks=8&bytes=1024&system=x").get_json()
    zh = client.get(
        "/api/nccl-model?collective=allreduce&ranks=8&bytes=1024&system=x&lang=zh"
    ).get_json()
    assert en["error"].startswith("system must be one of")
    assert zh["error"].startswith("system ") and "must be" not in zh["error"]
    assert "dgx_h100" in zh["error"] and "'x'" in zh["error"]


def test_the_measure_pages_refusals_are_translated_naming_the_field():
    payloads = [
        ({"backend": "mpi"}, "collective：缺失；字段有 backend, collective"),
        ({"backend": "mpi", "colour": 1}, "colour：不是字段；字段有 backend"),
        ("x", "parameters：请发送一个 JSON 对象，包含 backend"),
    ]
    full = dict(backend="mpi", collective="allreduce", ranks=2, min_bytes=8, max_bytes=64)
    full.update(factor=2, iters=5, warmup=1)
    payloads += [
        ({**full, "ranks": "two"}, "ranks：'two' 不是 1.."),
        ({**full, "backend": "gloo"}, "backend：'gloo' 不是 mpi"),
        ({**full, "factor": 1}, "factor：1 超出 2.."),
    ]
    for payload, start in payloads:
        try:
            parse_start(payload, 60)
        except ValueError as error:
            said = translate_error("zh", str(error))
        else:
            raise AssertionError(f"{payload} was accepted")
        assert said.startswith(start), said
