"""`layout.grid` (how the buffer view draws its grid, app/drawing/grid.py `live`) reaches the
browser on both paths: the socket's `sim_start` and `POST /api/simulate`."""

from __future__ import annotations

from app.collectives import simulate
from app.drawing.grid import live
from tests.web.test_compact import roundtrip
from tests.web.test_sockets import payloads, wait_idle

A2A = {"collective": "all_to_all", "algorithm": "pairwise", "ranks": 4, "elements": 8}


def test_the_socket_start_carries_the_grids_drawing(app, socket_client):
    socket_client.emit("simulate", A2A, callback=True)
    wait_idle(app)
    grid = payloads(socket_client.get_received(), "sim_start")[0]["layout"]["grid"]
    assert grid == roundtrip(live(simulate(**A2A)))
    assert (grid["cols"], grid["top"], grid["what"]) == (4, 4, "rank × destination")
    assert grid["col_labels"] == ["→r0", "→r1", "→r2", "→r3"] and len(grid["paints"]) == 5


def test_the_http_simulation_carries_the_same_drawing(client):
    params = {**A2A, "collective": "allgather", "algorithm": "ring"}
    body = client.post("/api/simulate", json=params).get_json()
    trace = simulate(**params)
    assert body["layout"]["grid"] == roundtrip(live(trace))
    assert body["layout"]["grid"]["top"] == 1 and not body["layout"]["grid"]["scale"]
