"""The glossary in Chinese: each term's `zh: {term, definition}` is read beside the English,
checked to keep the English's numbers, and shown by a library in zh."""

from __future__ import annotations

import pytest

from app.course import LESSONS_DIR, LessonError, current_course
from app.course.glossary import load_glossary

ENTRY = """terms:
  - term: NVLink
    lesson: why-collectives
    patterns: ['nvlink']
    definition: "A GPU link of 25 GB/s per direction per lane."
    zh: {term: "NVLink", definition: %s}
"""


def glossary(tmp_path, zh_definition: str):
    path = tmp_path / "glossary.yaml"
    path.write_text(ENTRY % zh_definition, encoding="utf-8")
    return load_glossary(path, current_course())


def test_a_term_reads_in_chinese_and_keeps_its_english_key(tmp_path):
    (term,) = glossary(tmp_path, '"GPU 之间的链路，每条通道每个方向 25 GB/s。"')
    zh = term.in_language("zh")
    assert zh.definition.startswith("GPU 之间的链路") and zh.key == "NVLink"
    assert term.in_language("en") is term and term.definition.startswith("A GPU link")


@pytest.mark.parametrize(
    "zh_definition, problem",
    [
        ('"每个方向 52 GB/s。"', "'NVLink': zh.definition: numbers differ from the English"),
        ('""', "'NVLink': zh.definition: must be a non-empty text"),
    ],
)
def test_a_chinese_entry_that_differs_names_the_term_and_field(tmp_path, zh_definition, problem):
    with pytest.raises(LessonError) as err:
        glossary(tmp_path, zh_definition)
    assert problem in str(err.value)


def test_every_term_of_the_course_has_its_chinese_twin():
    terms = load_glossary(LESSONS_DIR / "glossary.yaml", current_course())
    assert terms and all("zh" in t.translations for t in terms)
