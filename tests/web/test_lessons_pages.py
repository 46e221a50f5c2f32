"""Lesson pages: the index, a lesson, 404s and search, on the fixture course and the real one."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from app import create_app
from app.lessons.pacing import PRACTICE_MINUTES
from tests.lessons.corpus import lessons_mentioning
from tests.lessons.htmltools import parse

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "lessons" / "fixtures"
REAL_FILES = sorted((ROOT / "lessons").glob("*.md"))
# ring-basics asks for one @lab, a predict box, a challenge and its quiz file's two questions.
RING_ASKS = ("lab", "predict", "challenge", "question", "question")
RING_PRACTICE = sum(PRACTICE_MINUTES[k] for k in RING_ASKS)
RING_TIME = f"6 min reading · {RING_PRACTICE} min practice"


@pytest.fixture
def fixture_client():
    return create_app({"TESTING": True, "LESSONS_DIR": str(FIXTURES)}).test_client()


@pytest.fixture
def write_lesson_dir(tmp_path):
    """A client for a copy of the fixture course whose ring-basics body is replaced."""

    def write(body: str):
        shutil.copytree(FIXTURES, tmp_path / "lessons")
        path = tmp_path / "lessons" / "ring-basics.md"
        front = path.read_text().split("---\n")[1]
        path.write_text(f"---\n{front}---\n{body}")
        return create_app({"TESTING": True, "LESSONS_DIR": str(tmp_path / "lessons")}).test_client()

    return write


def page(client, url: str, status: int = 200):
    response = client.get(url)
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    return parse(response.get_data(as_text=True))


# -- the index -----------------------------------------------------------------------------------


def test_index_groups_lessons_by_section_in_course_order(fixture_client):
    doc = page(fixture_client, "/lessons/")
    sections = doc.find_all("section", class_="course-section")
    assert [s.find("h2").text for s in sections] == ["1. Basics", "2. Trees"]
    items = doc.find_all("li", class_="lesson-item")
    assert [i.attrs["data-slug"] for i in items] == ["ring-basics", "tree-basics"]
    ring = items[0]
    assert ring.find("a").attrs["href"] == "/lessons/ring-basics"
    assert ring.find("a").text == "Ring basics"
    assert ring.find("p", class_="lesson-summary").text.startswith("How a ring of ranks")
    assert ring.find("span", class_="minutes").text == RING_TIME
    assert [a.attrs["href"] for a in ring.find_all("a", class_="tag")] == [
        "/quiz?tags=ring-allreduce",
        "/quiz?tags=allreduce",
    ]
    assert ring.find("span", data_role="progress-mark") is not None


def test_a_lesson_without_a_file_is_not_listed(fixture_client):
    doc = page(fixture_client, "/lessons/")
    assert "not-written-yet" not in [a.attrs.get("href", "") for a in doc.find_all("a")]
    assert "2 lessons of 3 planned." in doc.find("span", data_role="progress-summary").text


def test_index_has_a_search_form_and_a_clear_progress_button(fixture_client):
    doc = page(fixture_client, "/lessons/")
    form = doc.find("form", role="search")
    assert (
        form.attrs["action"] == "/lessons/"
        and form.attrs["data-search-url"] == "/api/lessons/search"
    )
    assert form.find("input", name="q") is not None
    assert doc.find("button", data_role="clear-progress") is not None
    assert doc.find("script", src="/static/js/lessons.js") is not None


def test_search_works_without_javascript(fixture_client):
    doc = page(fixture_client, "/lessons/?q=recursive+doubling")
    results = doc.find("div", data_role="search-results")
    assert "hidden" not in results.attrs
    assert [a.attrs["href"] for a in results.find_all("a")] == [
        "/lessons/tree-basics",
        "/lessons/tree-basics#recursive-doubling",
    ]
    none = page(fixture_client, "/lessons/?q=zzzz").find("div", data_role="search-results")
    assert "No lesson matches" in none.text


def test_lessons_without_a_slash_redirects_to_the_index(fixture_client):
    response = fixture_client.get("/lessons")
    assert response.status_code in (301, 308)
    assert urlsplit(response.headers["Location"]).path == "/lessons/"


# -- a lesson ------------------------------------------------------------------------------------


def test_lesson_page_has_every_part(fixture_client):
    doc = page(fixture_client, "/lessons/ring-basics")
    article = doc.find("article", data_role="lesson")
    assert article.attrs["data-slug"] == "ring-basics"
    assert article.find("h1").text == "Ring basics"
    header = article.find("header", class_="lesson-header")
    assert (
        header.find("p", class_="lede").text == "How a ring of ranks sums a vector in two phases."
    )
    assert header.find("span", class_="minutes").text == RING_TIME
    assert [a.text for a in header.find_all("a", class_="tag")] == ["ring-allreduce", "allreduce"]
    assert header.find("button", data_role="mark-done").text == "Mark as done"
    objectives = article.find("aside", class_="callout-objectives")
    assert "Count the steps of ring allreduce." in objectives.text
    key_points = article.find_all("aside", class_="callout-key-points")[-1]
    assert key_points.find("math") is not None  # $2(p-1)$ rendered as MathML
    reading = article.find("section", class_="further-reading")
    assert reading.find("a").attrs["href"] == "https://doi.org/10.1016/j.jpdc.2008.09.002"
    assert "A source without a link" in reading.text


def test_table_of_contents_links_to_the_anchored_headings(fixture_client):
    doc = page(fixture_client, "/lessons/ring-basics")
    toc = doc.find("nav", class_="lesson-toc")
    links = [a.attrs["href"] for a in toc.find_all("a")]
    assert links == ["#two-phases", "#reduce-scatter", "#in-code", "#check-yourself"]
    body = doc.find("div", class_="lesson-body")
    for href in links:
        assert body.find(id=href[1:]) is not None


def test_lesson_body_has_its_live_elements(fixture_client):
    doc = page(fixture_client, "/lessons/ring-basics")
    body = doc.find("div", class_="lesson-body")
    frame = body.find("figure", class_="live-lab").find("iframe")
    assert (
        frame.attrs["src"] == "/embed/allreduce/ring?ranks=4&elements=8&autoplay=1&loop=1&speed=2"
    )
    assert body.find("figure", class_="diagram-figure").find("svg").attrs["role"] == "img"
    assert body.find("section", class_="self-check") is not None
    assert body.find("details", class_="solution") is not None
    assert body.find("div", class_="render-error") is None


def test_previous_next_and_prerequisites_follow_the_course(fixture_client):
    first = page(fixture_client, "/lessons/ring-basics")
    pager = first.find("nav", class_="lesson-pager")
    assert pager.find("a", rel="prev") is None
    assert pager.find("a", rel="next").attrs["href"] == "/lessons/tree-basics"
    second = page(fixture_client, "/lessons/tree-basics")
    assert second.find("nav", class_="lesson-pager").find("a", rel="prev").attrs["href"] == (
        "/lessons/ring-basics"
    )
    assert second.find("nav", class_="lesson-pager").find("a", rel="next") is None
    prereq = second.find("p", class_="prerequisites").find("a")
    assert (prereq.attrs["href"], prereq.text) == ("/lessons/ring-basics", "Ring basics")


def test_instructor_notes_show_only_with_instructor_1(fixture_client):
    learner = page(fixture_client, "/lessons/ring-basics")
    assert learner.find("aside", class_="callout-instructor") is None
    teacher = page(fixture_client, "/lessons/ring-basics?instructor=1")
    assert "Ask the room" in teacher.find("aside", class_="callout-instructor").text
    assert teacher.find("p", class_="instructor-banner") is not None


def test_a_lesson_with_instructor_notes_links_to_its_instructor_view_and_back(fixture_client):
    learner = page(fixture_client, "/lessons/ring-basics")
    link = learner.find("a", data_role="view-toggle")
    assert (link.text.strip(), link.attrs["href"]) == (
        "Instructor view",
        "/lessons/ring-basics?instructor=1",
    )
    teacher = page(fixture_client, link.attrs["href"])
    back = teacher.find("a", data_role="view-toggle")
    assert (back.text.strip(), back.attrs["href"]) == ("Learner view", "/lessons/ring-basics")
    # tree-basics has no instructor notes: nothing to switch to
    assert page(fixture_client, "/lessons/tree-basics").find("a", data_role="view-toggle") is None


def test_the_index_tells_teachers_about_the_instructor_view(fixture_client):
    note = page(fixture_client, "/lessons/").find("p", data_role="instructor-hint")
    assert "Instructor view" in note.text
    assert note.find("a").attrs["href"] == "/lessons/ring-basics?instructor=1"


def test_the_index_marks_each_lesson_with_notes_and_links_the_first_with_notes(write_lesson_dir):
    # With ring-basics's notes gone, the hint must point at the next lesson that has some.
    client = write_lesson_dir("## A\n\n@lab allreduce/ring ranks=4\n")
    tree = Path(client.application.config["LESSONS_DIR"]) / "tree-basics.md"
    tree.write_text(tree.read_text() + "\n::: instructor\nAsk the room.\n:::\n")
    doc = page(client, "/lessons/")
    note = doc.find("p", data_role="instructor-hint")
    assert note.find("a").attrs["href"] == "/lessons/tree-basics?instructor=1"
    marked = {
        item.attrs["data-slug"]: item.find("a", class_="view-toggle")
        for item in doc.find_all("li", class_="lesson-item")
    }
    assert marked["ring-basics"] is None
    assert marked["tree-basics"].attrs["href"] == "/lessons/tree-basics?instructor=1"
    assert marked["tree-basics"].text.startswith("notes for teachers")


def test_no_instructor_hint_when_no_lesson_has_notes(write_lesson_dir):
    doc = page(write_lesson_dir("## A\n\n@lab allreduce/ring ranks=4\n"), "/lessons/")
    assert doc.find("p", data_role="instructor-hint") is None


# -- time: reading and practice apart ------------------------------------------------------------


def minutes_in(text: str) -> dict[str, str]:
    return dict(re.findall(r"([\d.]+ (?:min|h)) of (reading|practice)", text))


def test_index_and_home_show_the_courses_reading_and_practice_time(fixture_client):
    lessons = page(fixture_client, "/lessons/")
    per_lesson = [
        re.fullmatch(r"(\d+) min reading · (\d+) min practice", span.text).groups()
        for span in lessons.find_all("span", data_role="pacing")
    ]
    reading = sum(int(r) for r, _ in per_lesson)
    practice = sum(int(p) for _, p in per_lesson)
    assert len(per_lesson) == 2 and practice > reading  # tree-basics: a @lab, a @calc
    expected = {f"{reading} min": "reading", f"{practice} min": "practice"}
    assert minutes_in(lessons.find("p", data_role="course-time").text) == expected
    home = page(fixture_client, "/")
    assert minutes_in(home.find("p", data_role="course-time").text) == expected


# -- the glossary --------------------------------------------------------------------------------


def test_the_glossary_lists_every_term_in_course_order_under_its_lesson(fixture_client):
    doc = page(fixture_client, "/lessons/glossary")
    terms = yaml.safe_load((FIXTURES / "glossary.yaml").read_text())["terms"]
    order = {"ring-basics": 1, "tree-basics": 2}
    expected = [t["term"] for t in sorted(terms, key=lambda t: order[t["lesson"]])]
    assert [dt.text for dt in doc.find_all("dt")] == expected
    assert expected != [t["term"] for t in terms]  # the file is out of order on purpose
    for section in doc.find_all("section", class_="glossary-lesson"):
        link = section.find("h2").find("a").attrs["href"]
        assert {dt.attrs["data-lesson"] for dt in section.find_all("dt")} == {link.split("/")[-1]}
    first = doc.find("dd")
    assert first.text.startswith("A reduce-scatter then an allgather") and first.find("math")


def test_the_index_links_the_glossary(fixture_client):
    links = [a.attrs["href"] for a in page(fixture_client, "/lessons/").find_all("a")]
    assert "/lessons/glossary" in links


def test_the_toolkit_links_the_glossary_beside_the_cheat_sheet(client):
    doc = page(client, "/toolkit")
    sheet = doc.find("section", aria_labelledby="sheet-heading")
    assert "/lessons/glossary" in [a.attrs["href"] for a in sheet.find_all("a")]


def test_the_real_glossary_page_lists_every_term(client):
    terms = yaml.safe_load((ROOT / "lessons" / "glossary.yaml").read_text())["terms"]
    doc = page(client, "/lessons/glossary")
    assert sorted(dt.text for dt in doc.find_all("dt")) == sorted(t["term"] for t in terms)


def test_search_names_the_glossary_terms_the_query_holds(fixture_client):
    data = fixture_client.get("/api/lessons/search?q=Ring%20allre").get_json()
    assert [t["term"] for t in data["glossary"]] == ["ring allreduce"]
    term = data["glossary"][0]
    assert term["lesson"] == "ring-basics" and term["definition"].startswith("A reduce-scatter")
    target = page(fixture_client, term["url"].split("#")[0]).find(id=term["url"].split("#")[1])
    assert target.tag == "dt" and target.text == "ring allreduce"
    assert fixture_client.get("/api/lessons/search?q=ring%20tree").get_json()["glossary"] == []
    # without JavaScript the index shows them too, above the lessons
    hits = page(fixture_client, "/lessons/?q=chunk").find("ul", class_="glossary-hits")
    assert [a.attrs["href"] for a in hits.find_all("a")] == ["/lessons/glossary#term-chunk"]


def test_a_broken_glossary_is_shown_on_its_page_and_the_lessons_stay_up(write_lesson_dir):
    client = write_lesson_dir("## A\n\n@lab allreduce/ring ranks=4\n")
    path = Path(client.application.config["LESSONS_DIR"]) / "glossary.yaml"
    path.write_text("terms:\n  - {term: x, lesson: nowhere, patterns: [x]}\n")
    doc = page(client, "/lessons/glossary")
    assert "no lesson 'nowhere'" in doc.find("p", class_="render-error").text
    page(client, "/lessons/ring-basics")


@pytest.mark.parametrize(
    ("slug", "says"),
    [
        ("no-such-lesson", "There is no lesson called “no-such-lesson”."),
        ("not-written-yet", "is in the course outline but has not been written yet"),
        ("<script>", "There is no lesson called “<script>”."),
    ],
)
def test_unknown_or_unwritten_slug_is_a_404_page(fixture_client, slug, says):
    response = fixture_client.get(f"/lessons/{slug}")
    assert response.status_code == 404
    assert "<script>" not in response.get_data(as_text=True).split("<main", 1)[1]
    doc = parse(response.get_data(as_text=True))
    assert says in doc.find("main").text
    assert doc.find("a", class_="button").attrs["href"] == "/lessons/"


def test_a_broken_lesson_file_is_a_404_that_names_the_problem(tmp_path):
    import shutil

    shutil.copytree(FIXTURES, tmp_path / "lessons")
    path = tmp_path / "lessons" / "tree-basics.md"
    path.write_text(path.read_text().replace("tags: [trees, topology]", "tags: [treez]"))
    client = create_app({"TESTING": True, "LESSONS_DIR": str(tmp_path / "lessons")}).test_client()
    doc = page(client, "/lessons/tree-basics", status=404)
    assert "field 'tags': 'treez' is not in course.yaml's tag vocabulary" in doc.find("pre").text
    assert [
        i.attrs["data-slug"] for i in page(client, "/lessons/").find_all("li", class_="lesson-item")
    ] == ["ring-basics"]


# -- search API ----------------------------------------------------------------------------------


def test_search_api_returns_ranked_lessons_with_heading_links(fixture_client):
    data = fixture_client.get("/api/lessons/search?q=ring").get_json()
    assert data["query"] == "ring"
    assert [r["slug"] for r in data["results"]] == ["ring-basics", "tree-basics"]
    assert data["results"][0]["url"] == "/lessons/ring-basics"
    hit = fixture_client.get("/api/lessons/search?q=reduce-scatter").get_json()["results"][0]
    assert hit["headings"] == [
        {
            "id": "reduce-scatter",
            "text": "Reduce-scatter",
            "url": "/lessons/ring-basics#reduce-scatter",
        }
    ]
    assert fixture_client.get("/api/lessons/search?q=").get_json()["results"] == []


def test_search_api_rejects_an_overlong_query(fixture_client):
    response = fixture_client.get("/api/lessons/search?q=" + "x" * 201)
    assert response.status_code == 400
    assert response.get_json() == {"error": "q: at most 200 characters; got 201"}


@pytest.mark.parametrize("query", ["", "   ", "?!-", "%00", "\u202e\u0000"])
def test_search_api_answers_empty_or_wordless_queries_with_no_results(fixture_client, query):
    response = fixture_client.get("/api/lessons/search", query_string={"q": query})
    assert response.status_code == 200
    assert response.get_json()["results"] == []


def test_search_api_finds_an_identifier_in_the_text_with_its_sentence(client):
    data = client.get("/api/lessons/search?q=NCCL_ALGO").get_json()
    assert {r["slug"] for r in data["results"]} == lessons_mentioning("NCCL_ALGO")
    for result in data["results"]:
        match = result["matches"][0]
        assert [match["text"][a:b] for a, b in match["marks"]][0].upper() == "NCCL_ALGO"
        if match["heading"]:
            anchor = match["heading"]["url"].split("#")[1]
            assert page(client, result["url"]).find(id=anchor) is not None


def test_search_without_javascript_shows_the_sentence_with_the_word_marked(client):
    results = page(client, "/lessons/?q=pxn").find("div", data_role="search-results")
    hits = results.find_all("li", class_="search-hit")
    assert [h.find("a").attrs["href"] for h in hits] == [
        f"/lessons/{slug}" for slug in sorted(lessons_mentioning("PXN"))
    ]
    sentence = hits[0].find(class_="snippet-text")
    assert [m.text for m in sentence.find_all("mark")][0] == "PXN"
    assert "PXN" in sentence.text and len(sentence.text) > len("PXN")


def test_search_escapes_what_it_shows(write_lesson_dir):
    client = write_lesson_dir("Try `<img src=x onerror=alert(1)>` zebrafish here.\n")
    html = client.get("/lessons/?q=zebrafish").get_data(as_text=True)
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    data = client.get("/api/lessons/search?q=zebrafish").get_json()
    assert data["results"][0]["matches"][0]["text"].startswith("Try <img src=x")  # JSON: text


# -- the real course -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL_FILES, ids=[p.stem for p in REAL_FILES])
def test_every_lesson_renders_at_its_url_with_live_elements_that_load(client, path):
    doc = page(client, f"/lessons/{path.stem}")
    body = doc.find("div", class_="lesson-body")
    assert body.find("div", class_="render-error") is None, body.find(
        "div", class_="render-error"
    ).text
    frames = body.find_all("iframe")
    assert frames, f"lessons/{path.name} has no live element"
    for frame in frames:
        src = frame.attrs["src"]
        assert src.startswith(("/embed/", "/embed/calc/"))
        response = client.get(src)
        assert response.status_code == 200, f"lessons/{path.name}: {src} -> {response.status_code}"


def test_the_real_index_lists_every_written_lesson(client):
    doc = page(client, "/lessons/")
    listed = [i.attrs["data-slug"] for i in doc.find_all("li", class_="lesson-item")]
    assert sorted(listed) == sorted(p.stem for p in REAL_FILES)
