"""Lesson pages: the course index, one page per lesson, and search over the course."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

from flask import Blueprint, current_app, jsonify, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from app.course import LESSONS_DIR, LessonError
from app.lessons import Library
from app.lessons.library import MAX_QUERY
from app.lessons.markdown import slugify
from app.lessons.pacing import hours
from app.lessons.render import render_fragment
from app.lessons.search import BOX_IDS
from app.web import params
from app.web.i18n import page_language

bp = Blueprint("lessons", __name__)

EXTENSION_KEY = "collective_lab.lessons"


def library() -> Library:
    """Return this app's lesson library (LESSONS_DIR, default ./lessons), refreshed, in the
    page's language."""
    lib = current_app.extensions.get(EXTENSION_KEY)
    if lib is None:
        directory = current_app.config.get("LESSONS_DIR") or LESSONS_DIR
        limits = params.page_limits(current_app.config)
        lib = current_app.extensions[EXTENSION_KEY] = Library(Path(directory), limits)
    return lib.refresh().in_language(page_language())


@bp.app_template_filter("lesson_inline")
def lesson_inline(text: str) -> Markup:
    """Render one line of lesson Markdown (code, math) from front matter, sanitized."""
    try:
        return Markup(render_fragment(text, inline=True))
    except ValueError:  # bad math: render_lesson reports it; the page shows the source
        return Markup.escape(text)


bp.add_app_template_filter(hours, "hours")


@bp.app_template_filter("search_marks")
def search_marks(match: dict) -> Markup:
    """Show a matching sentence with its matched words in <mark>, everything escaped."""
    text, out, at = match["text"], [], 0
    for start, end in match["marks"]:
        out += [Markup.escape(text[at:start]), Markup("<mark>%s</mark>") % text[start:end]]
        at = end
    out.append(Markup.escape(text[at:]))
    return Markup("").join(out)


@bp.get("/lessons/")
def index():
    """List the course by section, with full-text search and progress marks."""
    lib = library()
    query = request.args.get("q", "").strip()[:MAX_QUERY]
    results = [said(hit.as_json()) for hit in lib.search(query)] if query else None
    terms = glossary_json(lib, query) if query else []
    return render_template(
        "lessons/index.html",
        sections=lib.sections(),
        pacing={slug: lib.pacing(slug) for slug in lib.lessons},
        course_time=lib.total_pacing(),
        with_notes=lib.with_instructor_notes(),
        total=len(lib.lessons),
        planned=len(lib.course.entries),
        query=query,
        results=results,
        terms=terms,
    )


@bp.get("/lessons/glossary")
def glossary():
    """Every term of the course with its definition and the lesson that defines it."""
    lib = library()
    try:
        terms, problem = lib.glossary(), None
    except LessonError as exc:  # the author sees what is wrong; the lessons stay up
        terms, problem = [], str(exc)
    groups = [
        (slug, [(term, f"term-{slugify(term.key)}") for term in group])
        for slug, group in groupby(terms, key=lambda t: t.lesson)
    ]
    return render_template(
        "lessons/glossary.html",
        groups=groups,
        count=len(terms),
        lessons=lib.lessons,
        entries=lib.course.entries,
        problem=problem,
    )


@bp.get("/lessons/<slug>")
def lesson(slug: str):
    """Show one lesson; an unknown or unwritten slug gets a 404 page."""
    lib = library()
    found = lib.lesson(slug)
    if found is None:
        entry = lib.course.entries.get(slug)
        section = next((sec.title for sec, _ in lib.sections() if slug in sec.slugs), "")
        return (
            render_template(
                "lessons/not_found.html",
                slug=slug,
                entry=entry,
                section_title=section or (entry.section if entry else ""),
                problem=lib.errors.get(slug),
                sections=lib.sections(),
            ),
            404,
        )
    instructor = request.args.get("instructor") == "1"
    previous, following = lib.neighbours(slug)
    prerequisites = [(s, lib.lesson(s)) for s in found.prerequisites]
    return render_template(
        "lessons/lesson.html",
        lesson=found,
        page=lib.rendered(slug, instructor),
        pacing=lib.pacing(slug),
        instructor=instructor,
        previous=previous,
        following=following,
        prerequisites=prerequisites,
    )


@bp.get("/api/lessons/search")
def search():
    """Search the lessons' full text; JSON, best match first, each with its matching sentences."""
    query = request.args.get("q", "")
    if len(query) > MAX_QUERY:
        return jsonify(error=f"q: at most {MAX_QUERY} characters; got {len(query)}"), 400
    lib = library()
    hits = lib.search(query.strip())
    return jsonify(
        query=query.strip(),
        results=[said(hit.as_json()) for hit in hits],
        glossary=glossary_json(lib, query.strip()),
    )


def said(hit: dict) -> dict:
    """A search hit as the page shows it: the page's own boxes (objectives, key points,
    further reading) under their titles in the reader's language."""

    def heading(h: dict | None) -> dict | None:
        return {**h, "text": _(h["text"])} if h and h["id"] in BOX_IDS else h

    return {
        **hit,
        "headings": [heading(h) for h in hit["headings"]],
        "matches": [{**m, "heading": heading(m["heading"])} for m in hit["matches"]],
    }


def glossary_json(lib: Library, query: str) -> list[dict]:
    """The glossary terms a search names: term, definition (Markdown), lesson and link."""
    return [
        {
            "term": t.term,
            "definition": t.definition,
            "lesson": t.lesson,
            "url": f"{url_for('lessons.glossary')}#term-{slugify(t.key)}",
        }
        for t in lib.glossary_matches(query)
    ]
