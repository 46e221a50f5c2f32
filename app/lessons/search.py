"""Full-text search over the course: a small inverted index of every lesson's words.

Each lesson is cut into passages: its title, its tags, its summary, objectives and key points,
each heading, every sentence of its body (Markdown parsed with the site's own parser, so
markup is gone and a heading's anchor is the one on the page; a table row and a code line
count as one sentence each), the captions of its live elements and its sources. Instructor
notes are left out, as the learner's page leaves them out.

A word is a run of letters, digits and underscores, so identifiers such as NCCL_ALGO, LL128
and NCCL_DEBUG_SUBSYS stay whole. Words are kept in lower case and a query word matches every
indexed word it begins: "nccl_algo" finds NCCL_ALGO, "shar" finds SHARP. Chinese is written
without spaces, so a run of Chinese characters is indexed as its overlapping pairs (character
bigrams): 全规约 is 全规 and 规约, and a query finds the lessons that hold all of its pairs, which
is to say (almost always) the query itself. A one-character query matches the pairs it begins.

A lesson matches when it holds every word of the query. It ranks by where each word is
found, title above tags above headings above the text, and an exact word above a longer
one it begins; then by how many passages hold a query word. A hit carries the headings and
the sentences that hold the most query words, each sentence with the heading it sits under
and the spans to highlight.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from markdown_it.token import Token

from app.i18n import N_

from . import directives
from .loader import Lesson
from .render import inline_text, lesson_tokens

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
WORD = re.compile(rf"[{CJK}]+|[^\W{CJK}]+")
CJK_CHAR = re.compile(rf"[{CJK}]")
# A sentence ends at . ! or ? before a capital, a digit or an opening mark, except after an
# abbreviation that ends in a full stop; or at a Chinese full stop, ! or ?.
SENTENCE_END = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<=[.!?])\s+(?=[\"'(\[`*]?[A-Z0-9$])"
    r"|(?<=[。！？])\s*"
)
MAX_TERMS = 10  # query words looked up; the rest are ignored
MAX_EXPANSIONS = 200  # indexed words one query prefix may stand for
MAX_SNIPPETS = 3  # sentences shown per lesson
MAX_HEADINGS = 5
SNIPPET_CHARS = 240  # a longer sentence is cut around its first match
WEIGHT = {"title": 8, "tag": 4, "heading": 2, "text": 1}

# The page's own boxes around the body (templates/lessons/lesson.html uses these ids).
# Their titles are English here; the page shows them in its language (`BOX_IDS`).
OBJECTIVES = ("objectives-title", N_("After this lesson you can"))
KEY_POINTS = ("key-points-title", N_("Key points"))
FURTHER_READING = ("further-reading", N_("Further reading"))
BOX_IDS = {OBJECTIVES[0], KEY_POINTS[0], FURTHER_READING[0]}


@dataclass(frozen=True)
class Passage:
    """One searchable piece of a lesson, and the heading (anchor id, text) it sits under."""

    slug: str
    field: str  # title, tag, heading or text
    text: str
    heading: tuple[str, str] | None


@dataclass(frozen=True)
class Snippet:
    """A sentence to show, with the [start, end) spans of the words that matched."""

    text: str
    marks: tuple[tuple[int, int], ...]
    heading: tuple[str, str] | None


@dataclass(frozen=True)
class Match:
    slug: str
    score: int
    mentions: int  # passages holding a query word: the tie-breaker between equal scores
    headings: tuple[tuple[str, str], ...]
    snippets: tuple[Snippet, ...]


def word_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """Yield (start, end, word) for every word of `text` as the index keeps it: lower case,
    a run of Chinese characters as its overlapping pairs."""
    for m in WORD.finditer(text):
        run = m.group()
        if not CJK_CHAR.match(run):
            yield m.start(), m.end(), run.lower()
        elif len(run) == 1:
            yield m.start(), m.end(), run
        else:
            for i in range(len(run) - 1):
                yield m.start() + i, m.start() + i + 2, run[i : i + 2]


def words(text: str) -> list[str]:
    """Return the lower-case words of `text` as the index keeps them."""
    return [word for _, _, word in word_spans(text)]


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


# -- a lesson's passages ------------------------------------------------------------------------


def lesson_passages(lesson: Lesson) -> list[Passage]:
    """Cut a lesson into the passages the index keeps, in page order."""
    slug = lesson.slug

    def text(body: str, heading: tuple[str, str] | None) -> Iterator[Passage]:
        for sentence in split_sentences(body):
            yield Passage(slug, "text", sentence, heading)

    out = [Passage(slug, "title", lesson.title, None)]
    out += [Passage(slug, "tag", tag, None) for tag in lesson.tags]
    out += text(lesson.summary, None)
    for item in lesson.objectives:
        out += text(item, OBJECTIVES)
    out += body_passages(slug, lesson.body)
    for item in lesson.key_points:
        out += text(item, KEY_POINTS)
    for source in lesson.sources:
        out += text(" — ".join(filter(None, (source.title, source.note))), FURTHER_READING)
    return out


def body_passages(slug: str, body: str) -> Iterator[Passage]:
    """Walk the body's tokens: headings, sentences of paragraphs, table rows, code lines."""
    tokens = lesson_tokens(body)
    heading: tuple[str, str] | None = None
    row: list[str] | None = None
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            text = inline_text(tokens[i + 1])
            if token.attrs.get("id"):  # h2 and h3 are anchored; deeper ones sit under them
                heading = (str(token.attrs["id"]), text)
            yield Passage(slug, "heading", text, heading)
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            if any(row):
                yield Passage(slug, "text", " · ".join(cell for cell in row if cell), heading)
            row = None
        elif token.type == "inline" and tokens[i - 1].type != "heading_open":
            if row is not None:
                row.append(plain_text(token))
                continue
            for sentence in inline_sentences(token):
                yield Passage(slug, "text", sentence, heading)
        elif token.type in ("fence", "code_block"):
            for line in token.content.splitlines():
                if line.strip():
                    yield Passage(slug, "text", line.strip(), heading)


def inline_sentences(token: Token) -> list[str]:
    """Return the sentences of a paragraph; a directive shows only its caption."""
    first = token.content.split("\n")[0]
    if first.startswith("@") and directives.DIRECTIVE_LINE.match(first):
        try:
            caption = directives.parse(first).params.get("caption", "")
        except directives.DirectiveError:
            return []  # the page shows the error; nothing to search
        return split_sentences(caption)
    return split_sentences(plain_text(token))


def plain_text(token: Token) -> str:
    """Return an inline token's text without markup: code and formulas as written."""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "math_inline", "math_inline_double"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(plain_text(child))
    return " ".join("".join(parts).split())


# -- the index ------------------------------------------------------------------------------------


class SearchIndex:
    """word -> the passages holding it, over lessons given in course order."""

    def __init__(self, lessons: Iterable[Lesson]) -> None:
        self.passages: list[Passage] = []
        self.order: dict[str, int] = {}
        postings: dict[str, set[int]] = {}
        for lesson in lessons:
            self.order[lesson.slug] = len(self.order)
            for passage in lesson_passages(lesson):
                pid = len(self.passages)
                self.passages.append(passage)
                for word in words(passage.text):
                    postings.setdefault(word, set()).add(pid)
        self.postings = {word: sorted(pids) for word, pids in postings.items()}
        self.vocabulary = sorted(self.postings)

    def expand(self, term: str) -> list[str]:
        """Return the indexed words that `term` begins, the exact word first if present."""
        start = bisect.bisect_left(self.vocabulary, term)
        found = []
        for word in self.vocabulary[start:]:
            if not word.startswith(term) or len(found) == MAX_EXPANSIONS:
                break
            found.append(word)
        return found

    def search(self, query: str, limit: int = 20) -> list[Match]:
        """Return the lessons holding every word of `query`, best first."""
        terms = list(dict.fromkeys(words(query)))[:MAX_TERMS]
        if not terms:
            return []
        per_term = [self._lookup(term) for term in terms]
        slugs = set.intersection(*(set(found) for found in per_term))
        matches = [self._match(slug, terms, per_term) for slug in slugs]
        matches.sort(key=lambda m: (-m.score, -m.mentions, self.order[m.slug]))
        return matches[:limit]

    def _lookup(self, term: str) -> dict[str, dict[int, bool]]:
        """slug -> {passage id: the passage holds `term` exactly (not only a longer word)}."""
        found: dict[str, dict[int, bool]] = {}
        for word in self.expand(term):
            for pid in self.postings[word]:
                hits = found.setdefault(self.passages[pid].slug, {})
                hits[pid] = hits.get(pid, False) or word == term
        return found

    def _match(self, slug: str, terms: list[str], per_term: list[dict]) -> Match:
        score = 0
        matched: set[int] = set()
        for found in per_term:
            hits = found[slug]
            matched.update(hits)
            score += max(2 * WEIGHT[self.passages[p].field] + exact for p, exact in hits.items())
        ordered = sorted(matched)
        headings = [self.passages[p] for p in ordered if self.passages[p].field == "heading"]
        return Match(
            slug,
            score,
            len(ordered),
            tuple(dict.fromkeys(p.heading for p in headings if p.heading))[:MAX_HEADINGS],
            self._snippets([self.passages[p] for p in ordered], terms),
        )

    def _snippets(self, passages: list[Passage], terms: list[str]) -> tuple[Snippet, ...]:
        """Pick the sentences holding the most distinct query words, then those holding a
        query word exactly (NCCL_DEBUG before NCCL_DEBUG_SUBSYS), then the earliest."""
        scored = []
        for position, passage in enumerate(passages):
            if passage.field != "text":
                continue
            found = words(passage.text)
            held = {t for w in found for t in terms if w.startswith(t)}
            exact = any(t in found for t in terms)
            scored.append((-len(held), not exact, position, passage))
        scored.sort(key=lambda item: item[:3])
        return tuple(snippet(p.text, terms, p.heading) for *_, p in scored[:MAX_SNIPPETS])


def snippet(text: str, terms: list[str], heading: tuple[str, str] | None) -> Snippet:
    """Mark every word of `text` that a term begins; cut a long sentence around the first."""
    prefixes = tuple(terms)
    marks: list[tuple[int, int]] = []
    for start, end, word in word_spans(text):
        if word.startswith(prefixes):
            if marks and start <= marks[-1][1]:  # a Chinese pair overlapping the last mark
                marks[-1] = (marks[-1][0], max(end, marks[-1][1]))
            else:
                marks.append((start, end))
    if len(text) > SNIPPET_CHARS:
        text, marks = _cut(text, marks)
    return Snippet(text, tuple(marks), heading)


def _cut(text: str, marks: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """Keep SNIPPET_CHARS of `text` from a little before its first mark, with ellipses."""
    first = marks[0][0] if marks else 0
    start = max(0, min(first - SNIPPET_CHARS // 3, len(text) - SNIPPET_CHARS))
    if start:
        start = text.find(" ", start) + 1 or start  # begin at a word
    end = min(len(text), start + SNIPPET_CHARS)
    if end < len(text):
        end = text.rfind(" ", start, end) if text.rfind(" ", start, end) > first else end
    prefix = "…" if start else ""
    suffix = "…" if end < len(text) else ""
    shift = len(prefix) - start
    kept = [(a + shift, b + shift) for a, b in marks if a >= start and b <= end]
    return prefix + text[start:end].rstrip() + suffix, kept
