"""The /measure namespace (app/web/live/measure.py): real MPI runs, one at a time, cancel, bad
input refused by name, no backend refused politely, and the fit saved as "this machine"."""

from __future__ import annotations

import json
import re
import time

import pytest
import socketio as python_socketio
from socketio import exceptions as socket_errors

from app import create_app
from app.costs.hardware import HARDWARE, MEASURED_FILE
from app.costs.nccl_tests import busbw_gbs
from app.measure.backends import missing
from app.measure.preset import PRESET_KEY
from app.web.extensions import socketio
from app.web.live import measure, measure_model
from tests.conftest import TEST_CONFIG, LiveServer, require

NS = "/measure"
TINY = {
    "backend": "mpi",
    "collective": "allreduce",
    "ranks": 2,
    "min_bytes": 8,
    "max_bytes": 64,
    "factor": 2,
    "iters": 5,
    "warmup": 1,
}
LONG = {**TINY, "max_bytes": 64 << 20, "iters": 1000}  # minutes unless cancelled


@pytest.fixture
def app(tmp_path):
    kept = dict(HARDWARE)
    yield create_app({**TEST_CONFIG, "INSTANCE_PATH": str(tmp_path)})
    HARDWARE.clear()
    HARDWARE.update(kept)  # a saved "this machine" must not reach other tests


@pytest.fixture
def mpi():
    require(missing("mpi") is None, f"mpi backend: {missing('mpi')}")


def start(client, payload):
    return client.emit("measure_start", payload, namespace=NS, callback=True)


def events_until(client, last: str, timeout_s: float = 60) -> list[dict]:
    """Return the events received up to `last` (measure_done or measure_error)."""
    got: list[dict] = []
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        got += client.get_received(NS)
        if any(e["name"] in ("measure_done", "measure_error") for e in got):
            assert got[-1]["name"] == last, got[-1]
            return got
        time.sleep(0.05)
    raise AssertionError(f"no {last} within {timeout_s} s")


def test_a_real_run_streams_its_rows_then_the_result_and_the_model(app, mpi):
    client = socketio.test_client(app, namespace=NS)
    ack = start(client, {**TINY, "preset": "pcie4"})
    assert ack == {"ok": True, "warnings": [], "sizes": [8, 16, 32, 64]}
    got = events_until(client, "measure_done")
    rows = [e["args"][0] for e in got if e["name"] == "measure_row"]
    assert [r["size"] for r in rows] == [8, 16, 32, 64]
    assert all(r["out_of_place"]["wrong"] == 0 and r["out_of_place"]["busbw_gbs"] > 0 for r in rows)
    done = got[-1]["args"][0]
    assert done["result"]["status"] == "done" and done["result"]["rows"] == rows
    assert (done["fit"] is None) == bool(done["fit_error"])  # 4 tiny sizes may not fit
    preset = done["curves"][-1]
    assert preset["name"] == f"model ({HARDWARE['pcie4'].label})"
    assert [p["size"] for p in preset["points"]] == [8, 16, 32, 64]


def test_one_measurement_at_a_time_and_only_its_starter_cancels_it(app, mpi):
    first = socketio.test_client(app, namespace=NS)
    second = socketio.test_client(app, namespace=NS)
    assert start(first, LONG)["ok"]
    refused = start(second, TINY)
    assert not refused["ok"] and "already running" in refused["error"]
    assert not second.emit("measure_cancel", {}, namespace=NS, callback=True)["ok"]
    assert first.emit("measure_cancel", {}, namespace=NS, callback=True) == {"ok": True}
    done = events_until(first, "measure_done")[-1]["args"][0]
    assert done["result"]["status"] == "cancelled"
    assert start(second, TINY)["ok"]  # the server is free again
    assert events_until(second, "measure_done")[-1]["args"][0]["result"]["status"] == "done"


def test_a_disconnect_cancels_the_measurement(app, mpi):
    first = socketio.test_client(app, namespace=NS)
    assert start(first, LONG)["ok"]
    first.disconnect(namespace=NS)
    handlers = app.extensions["measure"]
    end = time.monotonic() + 60
    while handlers.running is not None and time.monotonic() < end:
        time.sleep(0.05)
    assert handlers.running is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"ranks": 0}, "ranks"),
        ({"ranks": 10_000}, "ranks"),
        ({"ranks": "2"}, "ranks"),
        ({"min_bytes": 0}, "min_bytes"),
        ({"max_bytes": 1 << 40}, "max_bytes"),
        ({"min_bytes": 64, "max_bytes": 8}, "max_bytes"),
        ({"factor": 1}, "factor"),
        ({"iters": 0}, "iters"),
        ({"iters": 10**9}, "iters"),
        ({"warmup": -1}, "warmup"),
        ({"collective": "gossip"}, "collective"),
        ({"backend": "nccl"}, "backend"),
        ({"preset": "nope"}, "preset"),
        ({"colour": 1}, "colour"),
    ],
)
def test_bad_input_is_refused_naming_the_field_and_its_range(app, monkeypatch, change, field):
    monkeypatch.setattr(measure, "missing", lambda backend: None)
    client = socketio.test_client(app, namespace=NS)
    ack = start(client, {**TINY, **change})
    assert not ack["ok"] and ack["error"].startswith(field + ":"), ack
    assert app.extensions["measure"].running is None


def test_without_a_backend_the_page_and_the_event_say_how_to_install(app, monkeypatch):
    none = {n: {"installed": False, "reason": "x"} for n in ("mpi", "torch")}
    monkeypatch.setattr("app.web.pages.measure.backends", lambda: {**none, "install": "hint"})
    monkeypatch.setattr(measure, "missing", lambda backend: "mpi4py is not installed: pip ...")
    page = app.test_client().get("/measure").get_data(as_text=True)
    assert "No backend is installed" in page and "pip install -e '.[measure]'" in page
    assert 'id="measure-form"' not in page
    ack = start(socketio.test_client(app, namespace=NS), TINY)
    assert not ack["ok"] and "not installed" in ack["error"]


def line_result() -> dict:
    """Return a result whose times a line fits: 10 us + S / (1 GB/s), allreduce on 2 ranks."""
    sizes = (8, 64, 512, 4096, 32768, 262144)
    rows = [{"size": s, "out_of_place": {"time_us": 10 + s / 1e3}} for s in sizes]
    machine = {"cores": 2, "backend": "mpi", "algorithm": "auto", "library": "test"}
    return {"config": {"collective": "allreduce", "ranks": 2}, "rows": rows, "machine": machine}


def test_the_fitted_curve_goes_through_times_that_a_line_fits():
    result = line_result()
    fit, why = measure_model.fit_of(result)
    assert why == "" and fit["bandwidth_gbs"] == pytest.approx(1.0, rel=1e-6)
    assert fit["lines"][0].startswith("Fit on the allreduce/ring model")
    sizes = [row["size"] for row in result["rows"]]
    curve = measure_model.curve_of_fit(fit, result, sizes)
    measured = [busbw_gbs("allreduce", 2, s, (10 + s / 1e3) / 1e6) for s in sizes]
    assert [p["busbw_gbs"] for p in curve["points"]] == pytest.approx(measured, rel=1e-6)


def test_a_saved_fit_becomes_the_preset_this_machine_and_survives_a_restart(app, tmp_path):
    client = socketio.test_client(app, namespace=NS)
    assert not client.emit("measure_save", {}, namespace=NS, callback=True)["ok"]
    result = line_result()
    handlers = app.extensions["measure"]
    handlers.results[_sid(app, client)] = result
    ack = client.emit("measure_save", {}, namespace=NS, callback=True)
    assert ack["ok"] and ack["key"] == PRESET_KEY and PRESET_KEY in HARDWARE
    saved = json.loads((tmp_path / MEASURED_FILE).read_text())
    assert saved["presets"][0]["key"] == PRESET_KEY
    del HARDWARE[PRESET_KEY]
    create_app({**TEST_CONFIG, "INSTANCE_PATH": str(tmp_path)})  # a restart
    assert PRESET_KEY in HARDWARE


def _sid(app, client) -> str:
    """Return the Socket.IO sid of `client` on the /measure namespace."""
    return app.extensions["socketio"].server.manager.sid_from_eio_sid(client.eio_sid, NS)


def test_the_page_is_in_the_nav_and_on_the_home_page_and_offers_the_form(app, mpi):
    client = app.test_client()
    home = client.get("/").get_data(as_text=True)
    assert '<a href="/measure">Measure</a>' in home and 'class="card" href="/measure"' in home
    page = client.get("/measure").get_data(as_text=True)
    assert 'id="measure-form"' in page and '<option value="mpi">mpi</option>' in page
    assert 'href="/nccl-tests"' in page and f'max="{measure.max_ranks()}"' in page


def fake_sweep(config, on_row, cancelled):
    """Stand in for the ranks: these tests check what the server says, not MPI."""
    return {"config": config.as_dict(), "machine": {}, "rows": [], "status": "done", "error": ""}


@pytest.mark.parametrize(("ranks", "warned"), [(2, False), (3, True)])
def test_the_ack_carries_the_servers_oversubscription_warning(app, monkeypatch, ranks, warned):
    """The page shows the ack's warnings: the ranks > cores rule lives on the server only."""
    monkeypatch.setattr(measure, "missing", lambda backend: None)
    monkeypatch.setattr(measure, "sweep", fake_sweep)
    monkeypatch.setattr("app.measure.sweep.cores", lambda: 2)
    ack = start(socketio.test_client(app, namespace=NS), {**TINY, "ranks": ranks})
    assert ack["ok"]
    if warned:
        assert len(ack["warnings"]) == 1
        assert ack["warnings"][0].startswith("oversubscribed: 3 ranks on 2 cores")
    else:
        assert ack["warnings"] == []
    page = app.test_client().get("/measure").get_data(as_text=True)
    assert "data-cores" not in page  # nothing for the script to recompute the rule from


@pytest.fixture
def disabled_app(tmp_path):
    return create_app({**TEST_CONFIG, "INSTANCE_PATH": str(tmp_path), "MEASURE_ENABLED": False})


def test_measuring_off_the_page_says_why_and_how_and_offers_no_form(disabled_app):
    response = disabled_app.test_client().get("/measure")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "Measuring is turned off on this server" in page
    assert "COLLECTIVE_LAB_MEASURE_ENABLED" in page and "--no-measure" in page
    assert 'id="measure-form"' not in page and "js/measure.js" not in page


def test_measuring_off_the_namespace_refuses_every_connection_saying_why(disabled_app):
    refused = socketio.test_client(disabled_app, namespace=NS)
    assert not refused.is_connected(NS)
    handlers = disabled_app.extensions["measure"]
    with pytest.raises(socket_errors.ConnectionRefusedError) as info:
        handlers.connect("sid", {}, None)
    assert str(info.value) == measure.DISABLED
    assert "MEASURE_ENABLED" in measure.DISABLED and "--no-measure" in measure.DISABLED


def test_measuring_on_by_default_the_namespace_accepts(app):
    assert app.config["MEASURE_ENABLED"] is True
    assert socketio.test_client(app, namespace=NS).is_connected(NS)


def test_no_measure_on_the_command_line_turns_measuring_off(monkeypatch):
    """`python -m app --no-measure` sets the setting for this process and its workers."""
    from app.__main__ import main

    monkeypatch.setenv("COLLECTIVE_LAB_MEASURE_ENABLED", "true")  # restored after the test
    served = []
    monkeypatch.setattr("app.web.server.serve", lambda host, port: served.append(port))
    main(["--no-measure", "--port", "5999"])
    assert served == [5999]
    assert create_app(TEST_CONFIG).config["MEASURE_ENABLED"] is False


def test_a_real_client_hears_the_sentence_over_the_wire(disabled_app):
    """The refusal reaches a Socket.IO client as connect_error {message: DISABLED}."""
    with LiveServer(disabled_app) as server:
        client = python_socketio.Client(reconnection=False)
        heard = []
        client.on("connect_error", heard.append, namespace=NS)
        with pytest.raises(python_socketio.exceptions.ConnectionError):
            client.connect(server.url, namespaces=[NS], transports=["polling"], wait_timeout=10)
        client.disconnect()
    assert heard == [{"message": measure.DISABLED}]


def test_a_chinese_page_hears_the_warning_and_the_fit_in_chinese(app, monkeypatch):
    monkeypatch.setattr(measure, "missing", lambda backend: None)
    monkeypatch.setattr(measure, "sweep", fake_sweep)
    monkeypatch.setattr("app.measure.sweep.cores", lambda: 2)
    client = socketio.test_client(app, namespace=NS, query_string="lang=zh")
    ack = start(client, {**TINY, "ranks": 3})
    assert ack["warnings"][0].startswith("超额订阅：3 个 rank 运行在 2 个核上：rank 共享核")
    app.extensions["measure"].running = measure._Running("someone else", "en")
    assert start(client, TINY)["error"].startswith("这台服务器上已有一次测量在运行")
    result = line_result()
    zh, _ = measure_model.fit_of(result, "zh")
    en, _ = measure_model.fit_of(result)
    assert zh["lines"][0].startswith("在 allreduce/ring 模型上拟合")
    for said, english in zip(zh["lines"], en["lines"], strict=True):
        assert said != english and re.findall(r"[\d.]+", said) == re.findall(r"[\d.]+", english)
    sizes = [row["size"] for row in result["rows"]]
    assert measure_model.curve_of_fit(zh, result, sizes, "zh")["name"] == "模型（拟合）"
    assert measure_model.curve_of_preset("ib_ndr", result, sizes)["name"].startswith("model (")
    assert measure_model.curve_of_preset("ib_ndr", result, sizes, "zh")["name"].startswith("模型（")
