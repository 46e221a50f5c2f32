"""Hardware presets carry REFERENCE § 4 figures, per direction, and say where they come from."""

from __future__ import annotations

import pytest

from app.costs import HARDWARE, SYSTEMS


@pytest.mark.parametrize(
    ("key", "gbs"),
    [
        ("nvlink3", 300),  # 600 GB/s bidir
        ("nvlink4", 450),  # 900 GB/s bidir
        ("nvlink5", 900),  # 1.8 TB/s bidir
        ("pcie4", 31.5),
        ("pcie5", 63),
        ("ib_hdr", 25),  # 200 Gb/s
        ("ib_ndr", 50),  # 400 Gb/s
        ("ib_xdr", 100),  # 800 Gb/s
        ("roce_100", 12.5),
        ("roce_400", 50),
        ("efa_p4d", 400 / 8 / 8),  # 400 Gbps per instance, 8 GPUs
        ("efa_p5", 3200 / 8 / 8),
    ],
)
def test_bandwidth_per_direction(key, gbs):
    assert HARDWARE[key].bandwidth_gbs == pytest.approx(gbs)


def test_every_preset_names_its_sources_and_says_latency_is_a_model_constant():
    for link in HARDWARE.values():
        assert "REFERENCE" in link.bandwidth_source or "IEEE" in link.bandwidth_source
        assert "NCCL model constant" in link.latency_source
        assert link.latency_us in (0.6, 1.0, 2.7)  # tuning.cc hwLat, LL (REFERENCE § 4)


def test_systems_refer_to_presets_of_the_right_kind():
    for system in SYSTEMS.values():
        assert HARDWARE[system.intra].scope == "intra-node"
        assert HARDWARE[system.inter].scope == "inter-node"
