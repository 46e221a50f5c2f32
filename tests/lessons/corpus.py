"""What the lesson files say, read plainly for the search tests: no parser of the app's own.

A learner's page leaves instructor notes out and shows no URLs, so these readers do too.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"
OPEN = re.compile(r"^\s*:{3,}\s*(\w[\w-]*)")
CLOSE = re.compile(r"^\s*:{3,}\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
URL = re.compile(r"https?://\S+")


def split_file(path: Path) -> tuple[dict, list[str]]:
    """Return (front matter, body lines without instructor notes) of a lesson file."""
    text = path.read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    kept, depth_in_notes, depth = [], None, 0
    for line in body.splitlines():
        opened = OPEN.match(line)
        if opened:
            depth += 1
            if opened.group(1) == "instructor" and depth_in_notes is None:
                depth_in_notes = depth
        if depth_in_notes is None:
            kept.append(line)
        if CLOSE.match(line):
            if depth == depth_in_notes:
                depth_in_notes = None
            depth -= 1
    return yaml.safe_load(front), kept


def learner_text(path: Path) -> str:
    """Everything a learner can read of a lesson (front matter included), URLs left out."""
    front, body = split_file(path)
    return URL.sub(" ", yaml.safe_dump(front, allow_unicode=True) + "\n".join(body))


def headings(path: Path) -> list[str]:
    """The Markdown headings of a lesson's body (lines in code blocks are not headings)."""
    out, in_code = [], False
    for line in split_file(path)[1]:
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code and re.match(r"#{1,6}\s", line):
            out.append(line.lstrip("#").strip())
    return out


def mentions(text: str, term: str) -> bool:
    """Does a word of `text` begin with `term` (any case)?"""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(term)}", text, re.I) is not None


def lessons_mentioning(term: str, directory: Path = LESSONS) -> set[str]:
    """The slugs of the lesson files whose learner-visible text mentions `term`."""
    return {p.stem for p in directory.glob("*.md") if mentions(learner_text(p), term)}
