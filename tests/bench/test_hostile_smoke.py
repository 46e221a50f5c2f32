"""bench.hostile runs a short phase against the real server and reports it (issue 12)."""

from __future__ import annotations

import zlib

import pytest

from bench import hostile


def test_the_deflate_bomb_inflates_to_the_size_it_claims():
    bomb = hostile.deflated_message(10**6)
    inflated = zlib.decompressobj(-15).decompress(bomb + b"\x00\x00\xff\xff")
    assert len(inflated) == 10**6 and inflated.startswith(b"40")
    assert len(bomb) < 10**4  # what makes it a bomb: a thousandth of that on the wire


@pytest.mark.server
def test_a_two_second_half_open_phase_prints_its_row(capsys):
    assert hostile.main(["--phase", "half_open", "--seconds", "2", "--settle", "1"]) == 0
    out = capsys.readouterr().out
    assert "| phase | attack sent / served / refused / errors |" in out
    row = next(line for line in out.splitlines() if line.startswith("| half-open sockets |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    sent = int(cells[1].split("/")[0])
    fails, runs = (int(x) for x in cells[3].split("/"))
    base, peak, _after = (float(x) for x in cells[5].split("/"))
    assert sent > 0 and runs > 0  # the attack ran and the probe measured during it
    assert 0 < base <= peak  # the server's memory, read from /proc
    assert cells[8] in ("PASS", "FAIL") and cells[9] in ("PASS", "FAIL")
