"""The engine's phase names reach a Chinese page in Chinese (app/i18n/phases.py): every phase
any catalog algorithm names fits a template of the catalog, and the lab's and the race's
payloads carry the translation, numbers kept."""

from __future__ import annotations

import re

import pytest

from app.collectives import catalog, simulate
from app.fabric import race
from app.i18n.catalog import translate
from app.i18n.phases import TEMPLATES, phase_name, template
from app.web import compact
from tests.collectives.test_engine import NEEDS_NODES, element_counts, params

RANKS = (1, 2, 3, 5, 6, 8, 9, 16, 17)
LATIN_WORD = re.compile(r"[A-Za-z_]{3,}")
# Kept as written in Chinese too: names, instructions, and "rank" (docs/zh-terms.md).
IDENTIFIERS = {"PAT", "GPU", "SHARP", "multimem", "ld_reduce", "rank"}


def phases_of_the_catalog() -> set[str]:
    names = set()
    for entry in catalog():
        key = (entry["collective"], entry["algorithm"])
        for ranks in RANKS:
            if ranks > entry["max_ranks"] or (key in NEEDS_NODES and ranks < 2):
                continue
            elements = element_counts(key[0], ranks)[-1]
            trace = simulate(*key, ranks=ranks, elements=elements, **params(*key, ranks))
            names.update(s.phase for s in trace.steps)
    return names


PHASES = sorted(phases_of_the_catalog())


def test_every_phase_the_catalog_names_fits_a_template():
    missing = sorted({template(p)[0] for p in PHASES} - TEMPLATES)
    assert not missing, f"add these phase names to app/i18n/phases.py and translate them: {missing}"


def test_every_template_is_named_by_some_algorithm():
    named = {template(p)[0] for p in PHASES}
    assert TEMPLATES <= named, sorted(TEMPLATES - named)


@pytest.mark.parametrize("phase", PHASES)
def test_a_phase_in_chinese_keeps_its_numbers_and_leaves_no_english_words(phase):
    said = phase_name(phase, "zh")
    assert re.findall(r"\d+", said) == re.findall(r"\d+", phase)
    assert set(LATIN_WORD.findall(said)) <= IDENTIFIERS, said
    assert phase_name(phase, "en") == phase


def test_the_templates_translation_is_the_catalogs():
    assert phase_name("exchange k=2", "zh") == translate("zh", "exchange k=%(a)s", a="2")
    assert phase_name("broadcast down trees 0 and 1", "zh") == "沿树 0 和树 1 向下广播"
    assert phase_name("a phase nobody names 3", "zh") == "a phase nobody names 3"


def test_the_lab_payloads_name_phases_in_the_runs_language():
    trace = simulate("allreduce", "ring", ranks=4, elements=8)
    assert compact.start(trace, "zh")["phases"] == ["规约散射"] * 3 + ["全收集"] * 3
    assert compact.start(trace)["phases"] == ["reduce-scatter"] * 3 + ["allgather"] * 3
    steps = [compact.step(trace, s, "", "zh")["phase"] for s in trace.steps]
    assert steps == ["规约散射"] * 3 + ["全收集"] * 3


def test_the_race_names_its_steps_phases_in_the_readers_language():
    kwargs = dict(ranks=8, message_bytes=1 << 20)
    zh = race("allreduce", ["ring", "recursive_doubling"], **kwargs, language="zh")
    en = race("allreduce", ["ring", "recursive_doubling"], **kwargs)
    for zh_run, en_run in zip(zh.runs, en.runs, strict=True):
        pairs = [(a["phase"], b["phase"]) for a, b in zip(zh_run.steps, en_run.steps, strict=True)]
        assert all(z == phase_name(e, "zh") != e for z, e in pairs), pairs
