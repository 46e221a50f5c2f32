"""Accuracy of every lesson and its quiz questions against ../shared/REFERENCE.md.

Each lesson is read twice over: its Markdown (front matter, prose, tables, captions, code) and
the quiz questions that belong to it (lessons/quizzes/<slug>.yaml, and bank questions whose
`lesson` field, or first tag, points at it). Text is compared after the Markdown and LaTeX
markup is taken off, case-insensitively unless a number's unit needs the case (GB vs Gb).

What is checked:

- environment variables: every NCCL_*, TORCH_*, FI_* and CUDA_* token is a real variable listed
  in nccl_env_vars.txt (with its source), or one of the few non-variable identifiers below;
  NCCL_COMM_TIMEOUT and NCCL_PROFILE appear only where the text says they do not exist; removed
  or deprecated variables only together with that fact;
- how NCCL chooses (everywhere): no runtime probe, no fixed 256 KB threshold, no recursive
  halving/doubling in NCCL, Tree for AllReduce only, one algorithm per call, NCCL_DEBUG unset by
  default, TRACE needs a TRACE=1 build, NCCL_CROSS_NIC default 2, the 10-minute PyTorch timeout;
- hardware numbers (REFERENCE § 4), everywhere;
- the seed's errors (REFERENCE § 6): one check per misconception, applied to the lessons that
  answer that seed question (course.yaml seed_questions) and to every quiz statement given as
  true (options marked correct, every `why`, explanations, model answers, checklists, ordered
  items and matching pairs);
- formulas: (x-1)/x factors keep one variable, ring AllReduce takes 2(p-1) steps, busbw factors;
- the review of issue 11 (lesson texts only): binary-tree bytes per role, the single-port model's
  exceptions, point-to-point AllReduce bound, NCCL's ring latency (network hops, the 2.18
  intra-step floor), NVLink shared per GPU, MoE two-hop message counts, ZeRO-1, MPI and NCCL
  via UCC, nccl-tests -w, Megatron's rank order, M* on NVLink.

A claim check flags a sentence that states the wrong claim. It does not flag a sentence that
carries a negation or reports the claim as someone else's ("the seed says", "a popular answer",
"myth", ...), nor a claim inside quotation marks. Options marked wrong and matching distractors
are wrong on purpose and are not claim-checked; they must still name real variables, and a
non-existent one must be corrected somewhere in its question.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"
QUIZZES = LESSONS / "quizzes"
ALLOW_LIST = Path(__file__).with_name("nccl_env_vars.txt")


# -- the course ----------------------------------------------------------------------------------


@cache
def course() -> dict:
    return yaml.safe_load((LESSONS / "course.yaml").read_text(encoding="utf-8"))


@cache
def lesson_seeds() -> dict[str, frozenset[str]]:
    """slug -> the seed questions course.yaml assigns to that lesson, in course order."""
    seeds = {}
    for section in course()["sections"]:
        for entry in section["lessons"]:
            seeds[entry["slug"]] = frozenset(str(q) for q in entry.get("seed_questions") or [])
    return seeds


SLUGS = list(lesson_seeds())


# -- passages: the text units of a lesson --------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    """One unit of text: a paragraph, list item, table cell, heading, code line or YAML string."""

    file: str  # relative to the repository, e.g. "lessons/ring-allreduce.md"
    slug: str  # the lesson it belongs to
    where: str  # "body", "front matter summary", "question q-id option 2 text", ...
    lines: tuple[tuple[int, str], ...]  # (line number, raw text) pairs
    asserted: bool = True  # False for options marked wrong and matching distractors
    code: bool = False  # a line of a code block or a directive
    lesson_text: bool = True  # Markdown of the lesson (False: quiz YAML)
    correction: str = ""  # for a non-asserted passage: the `why`/explanation that corrects it
    citation: bool = False  # the title of a cited source: quoted, not claimed
    source: tuple[tuple[int, str], ...] = ()  # raw file lines of a multi-line YAML string

    @property
    def raw(self) -> str:
        return " ".join(text for _, text in self.lines)

    @property
    def text(self) -> str:
        return plain(self.raw)

    def sentences(self) -> tuple[tuple[str, int], ...]:
        """(plain sentence, line number of its start) pairs, computed once per passage."""
        return _sentences(self)

    def _sentences(self) -> Iterator[tuple[str, int]]:
        if self.code:
            for number, text in self.lines:
                yield plain(text, code=True), number
            return
        pieces, starts, offset = [], [], 0
        for number, text in self.lines:
            cleaned = plain(text)
            starts.append((offset, number))
            pieces.append(cleaned)
            offset += len(cleaned) + 1
        joined = " ".join(pieces)
        for begin, sentence in split_sentences(joined):
            line = next(n for o, n in reversed(starts) if o <= begin) if starts else 0
            yield sentence, self._locate(sentence, line)

    def _locate(self, sentence: str, line: int) -> int:
        """The file line where a sentence of a multi-line YAML string starts, if it can be found."""
        words = " ".join(sentence.split()[:4])
        for number, text in self.source:
            if words and words in plain(text):
                return number
        return line


@cache
def _sentences(passage: Passage) -> tuple[tuple[str, int], ...]:
    return tuple(passage._sentences())


def _front_matter_passages(slug: str, path: str, text: str, first_line: int) -> list[Passage]:
    out = []
    node = yaml.compose(text)
    for keys, value, line in _scalars(node):
        if keys and keys[-1] in {"url", "slug", "order", "minutes"}:
            continue
        label = "front matter " + ".".join(str(k) for k in keys)
        citation = bool(keys) and keys[0] == "sources"
        out.append(Passage(path, slug, label, ((first_line + line - 1, value),), citation=citation))
    return out


FENCE = re.compile(r"^\s*(```|~~~)")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
CAPTION = re.compile(r'caption="([^"]*)"')


@cache
def lesson_passages(slug: str) -> tuple[Passage, ...]:
    path = LESSONS / f"{slug}.md"
    rel = f"lessons/{slug}.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Passage] = []
    start = 0
    if lines and lines[0].strip() == "---":
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
        out += _front_matter_passages(slug, rel, "\n".join(lines[1:end]), 2)
        start = end + 1
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block:
            out.append(Passage(rel, slug, "body", tuple(block)))
            block.clear()

    in_code = False
    for number, line in enumerate(lines[start:], start=start + 1):
        stripped = line.strip()
        if FENCE.match(line):
            flush()
            in_code = not in_code
            continue
        if in_code:
            if stripped:
                out.append(Passage(rel, slug, "code block", ((number, line),), code=True))
            continue
        if not stripped:
            flush()
        elif stripped.startswith(":::"):
            flush()
        elif stripped.startswith("@"):
            flush()
            out.append(Passage(rel, slug, "directive", ((number, line),), code=True))
            for caption in CAPTION.findall(line):
                out.append(Passage(rel, slug, "directive caption", ((number, caption),)))
        elif stripped.startswith("|"):
            flush()
            for cell in stripped.strip("|").split("|"):
                if cell.strip() and not set(cell.strip()) <= set("-: "):
                    out.append(Passage(rel, slug, "table cell", ((number, cell.strip()),)))
        elif stripped.startswith("#") or stripped.startswith("$$"):
            flush()
            out.append(Passage(rel, slug, "body", ((number, stripped.lstrip("#").strip()),)))
        elif LIST_ITEM.match(line):
            flush()
            block.append((number, LIST_ITEM.sub("", line, count=1)))
        else:
            block.append((number, line))
    flush()
    return tuple(out)


def _scalars(node, keys=()) -> Iterator[tuple[tuple, str, int]]:
    """Yield (key path, string value, 1-based line) for every scalar under a composed YAML node."""
    for path, value, line, _ in _scalar_spans(node, keys):
        yield path, value, line


def _scalar_spans(node, keys=()) -> Iterator[tuple[tuple, str, int, int]]:
    """Like _scalars, with the 1-based last line of each scalar as a fourth item."""
    if isinstance(node, yaml.ScalarNode):
        if node.tag.endswith(":str"):
            last = node.end_mark.line + (1 if node.end_mark.column else 0)
            yield keys, node.value, node.start_mark.line + 1, max(last, node.start_mark.line + 1)
    elif isinstance(node, yaml.SequenceNode):
        for i, child in enumerate(node.value):
            yield from _scalar_spans(child, keys + (i,))
    elif isinstance(node, yaml.MappingNode):
        for key, child in node.value:
            yield from _scalar_spans(child, keys + (key.value,))


def _mapping(node) -> dict:
    return {k.value: v for k, v in node.value} if isinstance(node, yaml.MappingNode) else {}


def _value(node):
    return yaml.safe_load(yaml.serialize(node)) if node is not None else None


def _question_lesson(q: dict, file_slug: str | None) -> str:
    if q.get("lesson"):
        return str(q["lesson"]).split("#")[0]
    if file_slug:
        return file_slug
    tags = q.get("tags") or []
    return str(course()["tags"].get(tags[0], "")) if tags else ""


@cache
def quiz_passages() -> tuple[Passage, ...]:
    """Every text of every quiz file, each tagged with its lesson and whether it is asserted."""
    out: list[Passage] = []
    for path in sorted(QUIZZES.glob("*.yaml")):
        rel = f"lessons/quizzes/{path.name}"
        file_slug = path.stem if path.stem in lesson_seeds() else None
        text = path.read_text(encoding="utf-8")
        file_lines = text.splitlines()
        root = yaml.compose(text)
        if isinstance(root, yaml.MappingNode):
            root = _mapping(root).get("questions")
        if not isinstance(root, yaml.SequenceNode):
            continue
        for qnode in root.value:
            fields = _mapping(qnode)
            q = _value(qnode) or {}
            slug = _question_lesson(q, file_slug)
            qid = q.get("id", "?")
            explanation = str(q.get("explanation") or "")

            def add(
                name,
                node,
                asserted=True,
                correction="",
                qid=qid,
                slug=slug,
                rel=rel,
                file_lines=file_lines,
            ):
                for keys, value, line, last in _scalar_spans(node):
                    label = f"question {qid} {name}" + "".join(f" {k}" for k in keys)
                    last = min(last, len(file_lines))
                    source = tuple((n, file_lines[n - 1]) for n in range(line, last + 1))
                    out.append(
                        Passage(
                            rel,
                            slug,
                            label,
                            ((line, value),),
                            asserted=asserted,
                            lesson_text=False,
                            correction=correction,
                            source=source if last > line else (),
                        )
                    )

            for name in ("prompt", "explanation", "model_answer", "checklist", "items", "pairs"):
                if name in fields:
                    add(name, fields[name])
            if "distractors" in fields:
                add("distractors", fields["distractors"], asserted=False, correction=explanation)
            if "options" in fields and isinstance(fields["options"], yaml.SequenceNode):
                for i, onode in enumerate(fields["options"].value, start=1):
                    option = _mapping(onode)
                    correct = bool(_value(option.get("correct")))
                    why = str(_value(option.get("why")) or "")
                    if "text" in option:
                        add(
                            f"option {i} text",
                            option["text"],
                            asserted=correct,
                            correction=f"{why} {explanation}",
                        )
                    if "why" in option:
                        add(f"option {i} why", option["why"])
    return tuple(out)


@cache
def passages(slug: str) -> tuple[Passage, ...]:
    return lesson_passages(slug) + tuple(p for p in quiz_passages() if p.slug == slug)


# -- plain text ----------------------------------------------------------------------------------

LATEX_SYMBOLS = {
    r"\cdot": "·",
    r"\times": "×",
    r"\approx": "≈",
    r"\mu": "µ",
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\lceil": "⌈",
    r"\rceil": "⌉",
    r"\lfloor": "⌊",
    r"\rfloor": "⌋",
    r"\oplus": "⊕",
    r"\sum": "Σ",
    r"\top": "ᵀ",
    r"\ge": "≥",
    r"\le": "≤",
    r"\geq": "≥",
    r"\leq": "≤",
    r"\to": "→",
    r"\rightarrow": "→",
    r"\dots": "...",
    r"\ldots": "...",
    r"\infty": "∞",
    r"\lg": "lg",
    r"\log": "log",
    r"\iff": "⇔",
    r"\Psi": "Ψ",
    r"\psi": "ψ",
    r"\left": "",
    r"\right": "",
}
LATEX_SPACES = re.compile(r"\\[,;:! ]|\\quad|\\qquad")
LATEX_TEXT = re.compile(r"\\(?:text|mathrm|mathbf|operatorname|textbf|mathit)\{([^{}]*)\}")
LATEX_FRAC = re.compile(r"\\[dt]?frac\{((?:[^{}]|\{[^{}]*\})*)\}\{((?:[^{}]|\{[^{}]*\})*)\}")
LATEX_COMMAND = re.compile(r"\\([A-Za-z]+)")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
TAG = re.compile(r"</?[A-Za-z][^>]*>")
EMPHASIS = re.compile(r"(?<![\w*])\*+(?=\S)|(?<=\S)\*+(?![\w*])")


SUPERSCRIPT = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
FROM_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


@cache
def plain(text: str, code: bool = False) -> str:
    """Text without Markdown and LaTeX markup: what a reader sees, on one line."""
    s = SUPERSCRIPT.sub(lambda m: "^" + m.group(0).translate(FROM_SUPERSCRIPT), text)
    s = unicodedata.normalize("NFKC", s)
    s = s.replace("μ", "µ").replace("\u2212", "-").replace("\u2013", "-").replace("\u2011", "-")
    s = s.replace("\\_", "_").replace("\\*", "*")
    if not code:
        s = TAG.sub("", s)
        s = LINK.sub(r"\1", s)
        s = s.replace("`", "").replace("**", "").replace("__", " ")
        s = EMPHASIS.sub("", s)
        s = LATEX_SPACES.sub(" ", s)
        for command, symbol in sorted(LATEX_SYMBOLS.items(), key=lambda kv: -len(kv[0])):
            s = re.sub(re.escape(command) + r"(?![A-Za-z])", symbol, s)
        for _ in range(3):
            s = LATEX_TEXT.sub(r"\1", s)
            s = LATEX_FRAC.sub(r"(\1)/(\2)", s)
        s = LATEX_COMMAND.sub(r"\1", s)
        s = s.replace("$", "").replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", s).strip()


ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|vs|cf|etc|approx|et al|Fig|No)\.", re.I)
SENTENCE_END = re.compile(r"[.!?][\"”')\]]*\s+(?=[\"“'(\[]?[A-Z0-9`])")


def split_sentences(text: str) -> Iterator[tuple[int, str]]:
    """Yield (offset, sentence); abbreviations such as "e.g." do not end a sentence."""
    protected = ABBREVIATIONS.sub(lambda m: m.group(0).replace(".", "\x00"), text)
    begin = 0
    for m in SENTENCE_END.finditer(protected):
        end = m.start() + len(m.group(0).rstrip())
        yield begin, protected[begin:end].replace("\x00", ".").strip()
        begin = m.end()
    if protected[begin:].strip():
        yield begin, protected[begin:].replace("\x00", ".").strip()


# -- negation, reported speech and quotations ----------------------------------------------------

NEGATION = re.compile(
    r"\b(?:not|no|never|neither|nor|none|nothing|without|cannot|myths?|misconceptions?|wrong|"
    r"(?<!=)false|incorrect|mistaken|misread\w*|misstatement|removed|deprecated|unlearn|"
    r"rather than|"
    r"instead of|seed(?:'s)?|claims?|claimed|popular|widely|widespread|says|said|misleading|"
    r"does nothing|stale|slips?)\b|n't\b",
    re.I,
)
QUOTED = re.compile(r"\"[^\"]+\"|“[^”]+”|‘[^’]+’|(?<![\w])'[^']+'(?![\w])")


def negated(sentence: str) -> bool:
    return bool(NEGATION.search(sentence))


def quoted_spans(sentence: str) -> list[tuple[int, int]]:
    return [m.span() for m in QUOTED.finditer(sentence)]


def in_quotes(sentence: str, span: tuple[int, int]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in quoted_spans(sentence))


# -- claim checks --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """One misconception: a pattern for the wrong claim and the correction that replaces it.

    `test` returns the problem found in one sentence, or None. Pattern checks flag a sentence
    where `pattern` matches (and `context`, if given, also matches) unless `unless` matches, the
    sentence carries a negation or a report of someone's claim (when `negatable`), or the match
    sits inside quotation marks. `bad` and `good` are example sentences the check must flag and
    must pass.
    """

    id: str
    correction: str
    source: str
    pattern: re.Pattern | None = None
    context: re.Pattern | None = None
    unless: re.Pattern | None = None
    negatable: bool = True
    seeds: frozenset[str] = frozenset()  # empty: applies to every lesson
    code: bool = False  # also read code lines
    custom: Callable[[str], str | None] | None = None
    bad: tuple[str, ...] = ()
    good: tuple[str, ...] = ()

    def test(self, sentence: str) -> str | None:
        if self.custom is not None:
            return self.custom(sentence)
        if self.context is not None and not self.context.search(sentence):
            return None
        for m in self.pattern.finditer(sentence):
            if in_quotes(sentence, m.span()):
                continue
            if self.unless is not None and self.unless.search(sentence):
                return None
            if self.negatable and negated(sentence):
                return None
            return m.group(0)
        return None

    def applies_to_lesson_text(self, slug: str) -> bool:
        return not self.seeds or bool(self.seeds & lesson_seeds()[slug])


def rx(pattern: str, flags: int = re.I) -> re.Pattern:
    return re.compile(pattern, flags)


def seeds(*numbers) -> frozenset[str]:
    return frozenset(str(n) for n in numbers)


# NCCL's selection and operation (REFERENCE § 3, § 6 Q7/Q26/Q27/Q41), checked everywhere.
SELECTION = [
    Check(
        "nccl-runtime-probe",
        "NCCL picks algorithm and protocol from a static cost model built at communicator init "
        "(ncclTopoTuneModel, topoGetAlgoInfo); nothing is probed or measured at run time",
        "REFERENCE § 3, § 6 Q7; nccl src/graph/tuning.cc, src/enqueue.cc",
        pattern=rx(
            r"\b(?:probes?|probing|probed)\b|\bwarm-?up\b[^;]{0,40}\b(?:measur|benchmark|tim)\w*"
            r"|\bmeasur\w*\b[^;]{0,40}\b(?:bandwidth|latency|the links?)\b[^;]{0,80}\bcach\w*"
            r"|\bcach\w*\s+the\s+(?:best|fastest|optimal)\s+(?:algorithm|protocol)"
        ),
        context=rx(r"\bNCCL\b(?!-tests)|\bit\b|\balgorithm|\bprotocol"),
        bad=(
            "NCCL runs a short warm-up probe on the first call and caches the best algorithm.",
            "At the first call NCCL measures the bandwidth of the links and caches the best "
            "algorithm.",
        ),
        good=(
            "It does not probe or time anything at run time to choose.",
            "nccl-tests runs one warm-up iteration before the timed ones.",
        ),
    ),
    Check(
        "nccl-256kb-threshold",
        "there is no fixed 256 KB threshold: 256 KB (262144) was NCCL_SINGLE_RING_THRESHOLD, "
        "removed in NCCL 2.3; crossovers come from the cost model",
        "REFERENCE § 3, § 6 Q6/Q7; NCCL env.rst NCCL_SINGLE_RING_THRESHOLD",
        pattern=rx(r"\b256\s*(?:KB|KiB|kB|K)\b|\b262,?144\b"),
        unless=rx(r"NCCL_SINGLE_RING_THRESHOLD|\b2\.3\b"),
        bad=("NCCL uses Tree below 256 KB and Ring above.",),
        good=(
            "The 256 KB figure matches NCCL_SINGLE_RING_THRESHOLD, removed in NCCL 2.3.",
            "There is no fixed 256 KB threshold.",
        ),
    ),
    Check(
        "nccl-no-recursive-halving-doubling",
        "NCCL implements no recursive halving/doubling (or Rabenseifner); its algorithms are Ring, "
        "Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree and PAT",
        "REFERENCE § 3, § 6 Q6; nccl src/init.cc ncclAlgoStr",
        pattern=rx(
            r"recursive[- ](?:halving|doubling)|halving/doubling|\bbutterfly\b|rabenseifner"
        ),
        context=rx(r"\bNCCL\b(?!-tests)(?!_ALGO)"),
        bad=("For large messages NCCL switches to recursive halving/doubling.",),
        good=(
            "There is no recursive halving or doubling in NCCL.",
            "The calculator also draws textbook algorithms that NCCL does not implement "
            "(recursive doubling, Rabenseifner).",
        ),
    ),
    Check(
        "nccl-tree-allreduce-only",
        "NCCL's Tree serves AllReduce only; Broadcast and Reduce use Ring, AllGather and "
        "ReduceScatter use Ring, PAT, NVLS or CollNetDirect",
        "REFERENCE § 3, § 6 Q7/Q27; nccl src/graph/tuning.cc loop guards",
        pattern=rx(
            r"\b(?:Broadcast|Reduce|AllGather|ReduceScatter|all-gather|reduce-scatter)\b[^;]{0,30}"
            r"\b(?:uses?|runs?|on|with|via)\s+(?:the\s+)?(?:double binary\s+)?Tree\b"
            r"|\bTree\b[^;]{0,30}\b(?:for|serves|supports)\b[^;]{0,20}\b(?:Broadcast|Reduce\b|"
            r"AllGather|ReduceScatter|all collectives|every collective)",
            re.NOFLAG,
        ),
        context=rx(r"\bNCCL\b|\bTree\b", re.NOFLAG),
        unless=rx(r"AllReduce only|only AllReduce|only for AllReduce|Tree-reduce and then"),
        bad=("NCCL's Broadcast runs on the Tree algorithm for small messages.",),
        good=("Tree exists for AllReduce only; Broadcast and Reduce always use Ring.",),
    ),
    Check(
        "nccl-one-algorithm-per-call",
        "each call runs exactly one (algorithm, protocol); NCCL never Tree-reduces then "
        "Ring-broadcasts, and its rings are flat (one per channel), not an NVLink ring plus an IB "
        "ring; the hierarchical algorithms are Tree, NVLSTree and CollNet",
        "REFERENCE § 6 Q7/Q27; nccl src/graph/connect.cc, trees.cc",
        pattern=rx(
            r"tree[- ]reduce[^;]{0,30}ring[- ]broadcast|reduces?\s+with\s+(?:a\s+)?tree[^;]{0,40}"
            r"broadcast\w*\s+with\s+(?:a\s+)?ring|(?:two-level|hierarchical|layered|double-layer)"
            r"\s+ring|NVLink ring[^;]{0,25}(?:plus|\+|and)\s+(?:an?\s+)?(?:IB|InfiniBand) ring"
        ),
        bad=(
            "For large AllReduces NCCL builds a hierarchical ring: an NVLink ring plus an IB ring.",
        ),
        good=(
            "NCCL never mixes two algorithms in one call (no tree-reduce, then ring-broadcast).",
        ),
    ),
    Check(
        "nccl-debug-default",
        "NCCL_DEBUG is unset by default (no output), not WARN",
        "REFERENCE § 3, § 6 Q26; nccl src/debug.cc (default NCCL_LOG_NONE)",
        pattern=rx(
            r"\bdefault\w*\b[^;]{0,40}\bWARN\b|\bWARN\b[^;]{0,15}\(?default\b"
            r"|NCCL_DEBUG\b[^;]{0,20}\bdefaults? to\s+(?!unset)\w+"
        ),
        context=rx(r"NCCL_DEBUG|\blog(?:ging)? level|\bdebug level"),
        bad=("NCCL_DEBUG sets the log level: WARN (default), INFO, TRACE.",),
        good=("NCCL_DEBUG is unset by default: NCCL prints nothing.",),
    ),
    Check(
        "nccl-trace-build",
        "NCCL_DEBUG=TRACE only produces output in a NCCL built with TRACE=1; per-call choices come "
        "from INFO with NCCL_DEBUG_SUBSYS=COLL,TUNING",
        "REFERENCE § 3, § 6 Q26; nccl makefiles/common.mk ENABLE_TRACE",
        pattern=rx(
            r"\bTRACE\b(?!=1)[^;]{0,60}\b(?:prints?|logs?|shows?|timings?|time of|per-op\w*|"
            r"every (?:call|operation|op))\b",
            re.NOFLAG,
        ),
        unless=rx(r"TRACE=1|\bbuil[dt]\b"),
        bad=("Set NCCL_DEBUG=TRACE to print every operation's time.",),
        good=("TRACE only produces output in a NCCL built with TRACE=1.",),
    ),
    Check(
        "nccl-cross-nic",
        "NCCL_CROSS_NIC decides whether rings/trees may use different NICs on different nodes "
        "(cross rails): 0 never, 1 allowed, 2 (default) prefer the same NIC; it does not concern "
        "intra-node traffic, PCIe contention or NIC aggregation",
        "REFERENCE § 3, § 6 Q41; NCCL env.rst NCCL_CROSS_NIC; nccl src/graph/search.cc",
        pattern=rx(
            r"\bauto(?:matic)?\b|PCIe contention|intra-node|inside (?:a|the|one) node|"
            r"within (?:a|the) node|aggregat\w*|\bdefault\w*\b[^;]{0,15}\b[013]\b"
        ),
        context=rx(r"CROSS_NIC"),
        bad=("NCCL_CROSS_NIC=0 confines intra-node traffic to one NIC; the default 2 means auto.",),
        good=("NCCL_CROSS_NIC: 2 (default) prefers the same NIC on every node.",),
    ),
    Check(
        "torch-nccl-timeout-10min",
        "PyTorch's watchdog timeout for NCCL process groups defaults to 10 minutes "
        "(kProcessGroupNCCLDefaultTimeout); 30 minutes is the default of the other backends",
        "REFERENCE § 3, § 6 Q28/Q44; pytorch ProcessGroupNCCL.hpp",
        custom=lambda s: _timeout_default(s),
        bad=("The NCCL watchdog's default timeout is 30 minutes.",),
        good=(
            "Every collective gets a deadline from init_process_group(timeout=...), 10 minutes "
            "by default for NCCL.",
        ),
    ),
    Check(
        "nccl-algo-values",
        "NCCL_ALGO accepts Ring, Tree, CollnetDirect, CollnetChain (Collnet before 2.14), NVLS "
        "(2.17), NVLSTree (2.18) and PAT (2.23)",
        "REFERENCE § 6 Q41; NCCL env.rst NCCL_ALGO",
        pattern=rx(r"\bRing,\s*Tree,?\s*(?:and|or)?\s*Collnet\b(?![A-Za-z])"),
        context=rx(r"NCCL_ALGO"),
        bad=("NCCL_ALGO selects one of Ring, Tree and Collnet.",),
        good=(
            "NCCL_ALGO: a list among Ring, Tree, CollnetDirect, CollnetChain, NVLS, NVLSTree, PAT.",
        ),
    ),
    Check(
        "nccl-no-runtime-qos",
        "NCCL fixes channels and paths at init and picks algorithm/protocol statically; it does "
        "not adapt rates or paths at run time (adaptive routing and congestion control belong to "
        "the fabric)",
        "REFERENCE § 6 Q39; nccl src/enqueue.cc; NCCL env.rst NCCL_IB_ADAPTIVE_ROUTING",
        pattern=rx(
            r"\b(?:dynamically|at run ?time|continuously)\b[^;]{0,40}\b(?:adjust|adapt|rerout|"
            r"throttl|rate-limit)\w*|\bQoS\b|\breroutes?\b"
        ),
        context=rx(r"\bNCCL\b(?!-tests)"),
        bad=("NCCL dynamically adjusts transfer rates and paths, like QoS.",),
        good=("NCCL does not adapt rates or paths at run time.",),
    ),
    Check(
        "nccl-no-collective-timeout",
        "NCCL has no collective timeout: a stuck kernel spins; timeouts come from PyTorch's "
        "watchdog, and IB transport errors after NCCL_IB_TIMEOUT x NCCL_IB_RETRY_CNT",
        "REFERENCE § 3, § 6 Q28/Q44",
        pattern=rx(
            r"\bNCCL\b(?!-tests|_)[^;]{0,30}\b(?:times? out|aborts?)\b[^;]{0,40}\bafter\b"
            r"|\bNCCL(?:'s)?\s+(?:default\s+)?(?:collective\s+)?timeout\b"
        ),
        unless=rx(r"IB_TIMEOUT|transport|InfiniBand|retr(?:y|ies)|watchdog|PyTorch"),
        bad=("NCCL aborts every collective after 30 s by default.",),
        good=("NCCL has no timeout for a collective.",),
    ),
]


def _timeout_default(sentence: str) -> str | None:
    if not re.search(
        r"watchdog|init_process_group|process group|ProcessGroupNCCL|PyTorch", sentence
    ):
        return None
    if not re.search(r"\bdefault", sentence, re.I):
        return None
    for m in re.finditer(r"(\d+(?:\.\d+)?)\s*(?:min|minutes)\b", sentence):
        if float(m.group(1)) != 10 and not re.search(r"other backends|non-NCCL|Gloo", sentence):
            return m.group(0)
    return None


# Hardware numbers (REFERENCE § 4), checked everywhere; numbers keep their case (GB/s vs Gb/s).
PER_DIRECTION = r"(?:per|each|in each|in one|one)[- ](?:direction|way)|unidirectional|one-way"
BIDIRECTIONAL = r"bidirectional|bidir|both ways|both directions|two-way|in total|total"


def _pcie4(sentence: str) -> str | None:
    m = re.search(
        r"PCIe\s*(?:Gen\s*)?4(?:\.0)?(?:\s*x16)?[^;|0-9]{0,40}?(\d+(?:\.\d+)?)\s*GB/s"
        r"(?P<after>[^;|]{0,30})",
        sentence,
    )
    if not m:
        return None
    value, after = float(m.group(1)), m.group("after")
    if re.search(BIDIRECTIONAL, after, re.I):
        return None if 60 <= value <= 64 else m.group(0)
    return None if 31 <= value <= 32.5 else m.group(0)


IB_RATE = {"HDR": 25, "NDR": 50, "XDR": 100}


def _ib_rate(sentence: str) -> str | None:
    for m in re.finditer(
        r"\b(HDR|NDR|XDR)\b(?![- ]?(?:200|400|800)\b[^;|]{0,3}GB)[^;|]{0,45}?(\d+(?:\.\d+)?)"
        r"\s*GB/s(?P<after>[^;|]{0,25})",
        sentence,
    ):
        generation, value, after = m.group(1), float(m.group(2)), m.group("after")
        if re.search(r"\bNVLink|\bper node|\bnode\b|instance|PCIe", m.group(0)):
            continue
        expected = IB_RATE[generation] * (2 if re.search(BIDIRECTIONAL, after, re.I) else 1)
        if value != expected:
            return m.group(0)
    return None


HARDWARE = [
    Check(
        "a100-nvlink-per-direction",
        "A100 NVLink 3: 12 links x 50 GB/s bidirectional = 600 GB/s bidirectional, 300 GB/s per "
        "direction (25 GB/s per link each way)",
        "REFERENCE § 4, § 6 Q23/Q24; NVIDIA NVLink page, A100 white paper",
        pattern=rx(
            rf"\b600\s*GB/s\s*(?:{PER_DIRECTION})|(?:{PER_DIRECTION})[^;]{{0,15}}\b600\s*GB/s"
            rf"|(?:per|each) link[^;]{{0,20}}\b50\s*GB/s\s*(?:{PER_DIRECTION})"
            rf"|\b50\s*GB/s\s*(?:{PER_DIRECTION})\s*(?:per|each|for each) link",
            re.NOFLAG,
        ),
        bad=("Each A100 link carries 50 GB/s each way, so NVLink gives 600 GB/s per direction.",),
        good=("An A100's 600 GB/s NVLink is 300 GB/s each way.",),
    ),
    Check(
        "a100-nvlink-1.2tb",
        "A100 NVLink is 600 GB/s bidirectional, not 1.2 TB/s",
        "REFERENCE § 4, § 6 Q24",
        pattern=rx(r"\b1\.2\s*TB/s", re.NOFLAG),
        bad=("A100 NVLink gives 1.2 TB/s bidirectional.",),
        good=("A widely copied answer says 1.2 TB/s both ways; that doubles every number.",),
    ),
    Check(
        "nvlink-vs-pcie-18.75",
        "like for like, A100 NVLink (300 GB/s per direction) is ≈9.5x PCIe 4.0 x16 (31.5 GB/s); "
        "NVIDIA says 10x; 18.75x compares a bidirectional figure with a one-way one",
        "REFERENCE § 6 Q24",
        pattern=rx(r"\b18\.75\b"),
        bad=("NVLink is 18.75 times faster than PCIe 4.",),
        good=("The seed's 18.75× compares 600 GB/s bidirectional with 32 GB/s one way.",),
    ),
    Check(
        "h100-nvlink",
        "H100 NVLink 4: 18 x 50 = 900 GB/s bidirectional, 450 GB/s per direction",
        "REFERENCE § 4; NVIDIA NVLink page, H100 datasheet",
        pattern=rx(
            rf"\b900\s*GB/s\s*(?:{PER_DIRECTION})|\b450\s*GB/s\s*(?:{BIDIRECTIONAL})", re.NOFLAG
        ),
        context=rx(r"H100|NVLink\s*4|NVLink4|Hopper"),
        unless=rx(r"B200|GB200|NVLink\s*5|Blackwell"),
        bad=("H100 NVLink 4 gives 900 GB/s per direction.",),
        good=("NVLink 4 (H100) gives 450 GB/s per direction, 900 GB/s bidirectional.",),
    ),
    Check(
        "b200-nvlink",
        "B200/GB200 NVLink 5: 18 x 100 = 1.8 TB/s bidirectional, 900 GB/s per direction",
        "REFERENCE § 4; NVIDIA NVLink page",
        pattern=rx(
            rf"\b1\.8\s*TB/s\s*(?:{PER_DIRECTION})|\b3\.6\s*TB/s|\b900\s*GB/s\s*(?:{BIDIRECTIONAL})",
            re.NOFLAG,
        ),
        context=rx(r"B200|GB200|NVLink\s*5|Blackwell"),
        bad=("NVLink 5 on B200 gives 1.8 TB/s per direction.",),
        good=("NVLink 5 (B200): 1.8 TB/s bidirectional, 900 GB/s per direction.",),
    ),
    Check(
        "pcie4-x16",
        "PCIe 4.0 x16: 16 GT/s x 16 x 128/130 ≈ 31.5 GB/s per direction (~64 GB/s bidirectional)",
        "REFERENCE § 4; PCI-SIG, A100 datasheet",
        custom=_pcie4,
        bad=("A PCIe 4.0 x16 slot carries 64 GB/s per direction.",),
        good=(
            "A PCIe 4.0 x16 link carries about 31.5 GB/s per direction, and an NDR port 50 GB/s.",
            "PCIe 4.0 x16 is about 64 GB/s bidirectional.",
        ),
    ),
    Check(
        "infiniband-rates",
        "InfiniBand 4x ports: HDR 200 Gb/s = 25 GB/s, NDR 400 Gb/s = 50 GB/s, XDR 800 Gb/s = "
        "100 GB/s, per direction",
        "REFERENCE § 4; NVIDIA product pages, IBTA roadmap",
        custom=_ib_rate,
        bad=("An NDR port carries 400 Gb/s, i.e. 100 GB/s per direction.",),
        good=(
            "InfiniBand HDR (200 Gb/s ≈ 25 GB/s) and NDR (400 Gb/s = 50 GB/s per direction).",
            "One NDR NIC per GPU (400 Gb/s = 50 GB/s per direction) takes 1.17 ms.",
        ),
    ),
]


# The seed's errors (REFERENCE § 6): applied to the lessons that answer those seed questions
# (course.yaml) and to every quiz statement given as true.
def _bucket_sizes(sentence: str) -> str | None:
    if not re.search(r"\bbucket", sentence, re.I) or not re.search(r"default|DDP", sentence):
        return None
    for m in re.finditer(
        r"\bfirst bucket\b[^;]{0,25}?(\d+(?:\.\d+)?)\s*(MiB|MB|KiB|KB)", sentence, re.I
    ):
        if float(m.group(1)) != 1 or m.group(2).upper().startswith("K"):
            return m.group(0)
    for m in re.finditer(
        r"\bdefault\w*\b[^;]{0,40}?\bbucket(?!s? of 1)[^;0-9]{0,25}(\d+(?:\.\d+)?)\s*(MiB|MB)"
        r"|bucket_cap_mb\s*=\s*(\d+)",
        sentence,
        re.I,
    ):
        value = float(m.group(1) or m.group(3))
        if value not in (25, 26.2):
            return m.group(0)
    return None


def _alltoall_version(sentence: str) -> str | None:
    for m in re.finditer(
        r"ncclAlltoAll\b[^;]{0,60}?\b(?:since|from|in|added in)\s+(?:NCCL\s+)?"
        r"(?:version\s+)?(\d+)\.(\d+)",
        sentence,
    ):
        if (int(m.group(1)), int(m.group(2))) != (2, 28) and not negated(sentence):
            return m.group(0)
    return None


def _mpirun_ranks(sentence: str) -> str | None:
    if not (re.search(r"-np\s+16\b", sentence) and re.search(r"-g\s+8\b", sentence)):
        return None
    if re.search(r"\b128\b", sentence) or negated(sentence):
        return None
    m = re.search(r"\bper node\b|\b(?:16|two|2)\s+(?:ranks|GPUs|nodes)\b", sentence, re.I)
    return m.group(0) if m else None


SEED_ERRORS = [
    Check(
        "ring-volume-per-phase",
        "in ring AllReduce each rank sends (p-1)/p·M per phase and 2(p-1)/p·M in total",
        "REFERENCE § 1, § 6 Q5; nccl-tests PERFORMANCE.md",
        pattern=rx(
            r"(?<![0-9·(])\(?\(([pnN])\s*-\s*1\)\s*/\s*\1\)?\s*[·×*]?\s*M"
            r"|(?<![0-9·(])\(([pnN])\s*-\s*1\)\s*[·×*]?\s*M\s*/\s*\2"
        ),
        context=rx(r"all-?reduce|\bin total\b"),
        unless=rx(
            r"phase|\bhalf\b|reduce-?scatter|all-?gather|\b2\s*[·×]?\s*\(?\(?[pnN]\s*-\s*1|"
            r"\btwice\b|\bfirst\b|\bsecond\b|each of|per step|reduc(?:es|ed|ing|tion)|\badds?\b|γ"
        ),
        seeds=seeds(3, 5),
        bad=("In a ring AllReduce each node sends (N-1)M/N in total.",),
        good=(
            "Each rank sends (p-1)/p·M in the reduce-scatter and the same again in the allgather.",
        ),
    ),
    Check(
        "reduce-scatter-half",
        "ReduceScatter moves (p-1)/p·M, half an AllReduce; only ZeRO-2's ReduceScatter + "
        "AllGather total equals DDP's AllReduce",
        "REFERENCE § 6 Q9; ZeRO §7",
        pattern=rx(
            r"reduce-?scatter\w*[^;]{0,60}\b(?:same|equal|as much)\b[^;]{0,30}"
            r"(?:volume|bytes|amount|traffic|communication|as)\b[^;]{0,30}all-?reduce"
        ),
        unless=rx(r"all-?gather|\bplus\b|\+|in total|\btotal\b"),
        seeds=seeds(9, 1),
        bad=("ReduceScatter moves the same volume as AllReduce.",),
        good=("ZeRO-2 in total (ReduceScatter plus AllGather) equals DDP's AllReduce.",),
    ),
    Check(
        "megatron-f-g",
        "in Megatron, f is identity forward / AllReduce backward and g is AllReduce forward / "
        "identity backward; AllGather/ReduceScatter appear only with sequence parallelism",
        "REFERENCE § 6 Q8; Shoeybi et al. 2019",
        pattern=rx(
            r"\bg\b(?:\s+(?:operator|operation))?\s+(?:is|as|=|means)\s+(?:an?\s+)?all-?gather"
            r"|all-?gather\b[^;]{0,20}\b(?:the\s+)?g\s+(?:operator|operation)"
            r"|\bf\b\s+is\s+(?:an?\s+)?all-?reduce\s+in\s+(?:the\s+)?forward"
            r"|\bg\b\s+is\s+(?:an?\s+)?all-?reduce\s+in\s+(?:the\s+)?backward"
        ),
        unless=rx(r"sequence parallel"),
        seeds=seeds(8, 35, 36),
        bad=("In Megatron, g is an AllGather of the partial outputs.",),
        good=("g is an AllReduce in the forward pass and the identity in the backward pass.",),
    ),
    Check(
        "allgather-relays",
        "in a ring AllGather each rank sends and receives (p-1)/p·M, forwarding other ranks' "
        "blocks, not only its own M/p",
        "REFERENCE § 6 Q8; Thakur, Rabenseifner & Gropp 2005",
        pattern=rx(r"\bsends?\s+only\s+(?:its\s+own\s+)?(?:M\s*/\s*[pN]|block|shard)"),
        seeds=seeds(8),
        bad=("In an AllGather each rank sends only M/N.",),
        good=("Each rank does not send only its own M/p.",),
    ),
    Check(
        "ddp-buckets",
        "DDP's default bucket cap is 25 MiB (kDefaultBucketBytesCap) and its first bucket is "
        "1 MiB (kDefaultFirstBucketBytes)",
        "REFERENCE § 6 Q17; pytorch torch/csrc/distributed/c10d/reducer.hpp",
        custom=_bucket_sizes,
        seeds=seeds(14, 15, 16, 17),
        bad=("DDP's default bucket is 50 MB.", "DDP's first bucket is 25 MiB by default."),
        good=("PyTorch's defaults are bucket_cap_mb=25 and a first bucket of 1 MiB.",),
    ),
    Check(
        "powersgd-one-step",
        "PowerSGD does one power-iteration step per training step (warm-started Q): all-reduce "
        "P, orthogonalize, Q = MᵀP, all-reduce Q; no local multi-iteration, no random "
        "projection, no exchange and summing of separate P and Q",
        "REFERENCE § 6 Q18/Q20; Vogels et al. 2019; pytorch powerSGD_hook.py",
        pattern=rx(
            r"\b(?:several|multiple|a few|many)\s+(?:local\s+)?power[- ]iterations"
            r"|\brandom(?:ized)?\s+projection|\bsends?\s+P\s+and\s+Q\b"
            r"|\breceivers?\s+sum\b|\bsum\s+P\s+and\s+(?:sum\s+)?Q\b"
        ),
        seeds=seeds(18, 20),
        bad=("Each worker runs several power iterations, then sends P and Q.",),
        good=("PowerSGD uses a warm-started power iteration, not a fresh random projection.",),
    ),
    Check(
        "topk-needs-allgather",
        "top-k workers pick different indices, so the sparse vectors cannot be summed by a ring "
        "AllReduce: they need an AllGather of (value, index) pairs or a sparse AllReduce",
        "REFERENCE § 6 Q19; Lin et al. 2018 (DGC)",
        pattern=rx(
            r"top-?k\b[^;]{0,80}\b(?:ring\s+)?all-?reduce|\b(?:receiver|it)\s+rebuilds\s+the"
            r"\s+(?:dense\s+)?gradient"
        ),
        unless=rx(
            r"all-?gather|sparse all-?reduce|dense|compar\w*|against|versus|\bvs\b|\bthan\b|"
            r"cannot|break-even|linear"
        ),
        seeds=seeds(18, 19),
        bad=("Top-k values and indices are summed with a ring AllReduce.",),
        good=("Top-k pairs need an AllGather, not a ring AllReduce.",),
    ),
    Check(
        "one-bit-adam-momentum",
        "1-bit Adam compresses the momentum (after a full-precision warm-up that freezes the "
        "variance), not the raw gradients",
        "REFERENCE § 6 Q18; Tang et al., ICML 2021",
        pattern=rx(
            r"1-bit Adam\b[^;]{0,60}\b(?:compress\w*|quantiz\w*|sends?|turns?)\b[^;]{0,25}"
            r"\b(?:raw\s+)?gradients?\b(?![^;]{0,20}momentum)"
        ),
        unless=rx(r"momentum"),
        seeds=seeds(18),
        bad=("1-bit Adam compresses the gradients to their signs.",),
        good=("1-bit Adam compresses the momentum after a warm-up.",),
    ),
    Check(
        "qsgd-not-topk",
        "QSGD is stochastic (unbiased) quantization with Elias coding, not quantized top-k",
        "REFERENCE § 6 Q18; Alistarh et al., NeurIPS 2017",
        pattern=rx(r"QSGD\b[^;]{0,60}\btop-?k|top-?k\b[^;]{0,40}\bQSGD"),
        seeds=seeds(18),
        bad=("QSGD quantizes the top-k gradients.",),
        good=("QSGD is not top-k followed by quantization.",),
    ),
    Check(
        "error-feedback-not-universal",
        "not every compression scheme uses error feedback: QSGD is unbiased stochastic "
        "quantization and needs none (top-k, 1-bit Adam and PowerSGD do use it)",
        "Alistarh et al., NeurIPS 2017 (QSGD); REFERENCE § 6 Q18",
        pattern=rx(
            r"\b(?:all|every one) of (?:them|these)\b[^;]{0,15}\buses?\s+error\s+(?:feedback|"
            r"compensation)|\ball\s+(?:these|the|such)\s+(?:methods|schemes|compressors)\b"
            r"[^;]{0,15}\buse\s+error\s+(?:feedback|compensation)"
        ),
        seeds=seeds(18),
        bad=("All of them use error feedback, and they are used with synchronous SGD.",),
        good=("Top-k, 1-bit Adam and PowerSGD use error feedback.",),
    ),
    Check(
        "async-op-false-enqueues",
        "for CUDA tensors async_op=False only guarantees the collective is enqueued (ordered "
        "on the current stream); the host is not blocked and the data may not be ready",
        "REFERENCE § 6 Q14; PyTorch distributed.rst",
        pattern=rx(
            r"\b(?:data|result|tensor|gradient)s?\b[^;]{0,20}\b(?:is|are)\s+(?:ready|available|"
            r"complete|reduced)\b[^;]{0,30}\bwhen\s+(?:it|the call|all_reduce)\s+returns"
            r"|\b(?:blocks?|waits?)\b[^;]{0,20}\b(?:host|CPU)\b[^;]{0,30}\buntil\b[^;]{0,30}"
            r"\b(?:finish|complet|done)\w*"
        ),
        context=rx(r"async_op|all_reduce|synchronous"),
        unless=rx(r"BLOCKING_WAIT|synchronize\(\)|\.item\(\)|\bevent"),
        seeds=seeds(14, 15, 16),
        bad=("With async_op=False the reduced data is ready when the call returns.",),
        good=("The data may not be ready yet when all_reduce returns with async_op=False.",),
    ),
    Check(
        "nccl-own-stream",
        "ProcessGroupNCCL launches asynchronous collectives on its own internal stream whatever "
        "the caller's stream context; wrapping the call in torch.cuda.stream(comm_stream) does "
        "not move it",
        "REFERENCE § 6 Q16; PyTorch distributed.rst",
        pattern=rx(r"\bruns?\s+on\s+(?:the\s+)?comm_stream\b|\bon\s+comm_stream\b"),
        seeds=seeds(16),
        bad=("The all_reduce runs on comm_stream, overlapping the backward pass.",),
        good=(
            "Wrapping all_reduce in torch.cuda.stream(comm_stream) does not put it on comm_stream.",
        ),
    ),
    Check(
        "hpz-secondary-partition",
        "hpZ keeps a secondary FP16 weight partition inside each node (zero_hpz_partition_size = "
        "GPUs per node) so the backward all-gather stays in the node; there is no gather to a "
        "representative/leader and no quantization in hpZ (that is qwZ/qgZ)",
        "REFERENCE § 6 Q34; Wang et al. 2023 (ZeRO++), DeepSpeed zeropp tutorial",
        pattern=rx(r"\b(?:representative|leader)\b"),
        context=rx(r"hpZ|hierarchical (?:ZeRO|partition)"),
        seeds=seeds(34),
        bad=("hpZ all-gathers the shards onto a representative GPU per node.",),
        good=("hpZ does not gather to a representative; it keeps a secondary shard per node.",),
    ),
    Check(
        "moe-four-all-to-alls",
        "an MoE layer runs 4 all-to-alls per training step: dispatch and combine forward, and "
        "both again for the gradients in backward",
        "REFERENCE § 6 Q38",
        pattern=rx(
            r"\b(?:two|2)\s+all-?to-?alls?\b[^;]{0,30}\b(?:per|each|in (?:an?|one|every))\s+"
            r"(?:MoE\s+)?layer|forward dispatch and backward combine|dispatch\s+(?:in\s+the\s+)?"
            r"forward[^;]{0,20}combine\s+(?:in\s+the\s+)?backward"
        ),
        unless=rx(r"\bfour\b|\b4\b"),
        seeds=seeds(1, 11, 38),
        bad=(
            "An MoE layer needs two all-to-alls per layer: forward dispatch and backward combine.",
        ),
        good=("That is four all-to-alls per MoE layer per step, not two.",),
    ),
    Check(
        "hierarchical-a2a-bytes",
        "a hierarchical all-to-all mainly cuts message count and latency; cross-node bytes fall "
        "only if duplicate tokens for experts on one node are de-duplicated",
        "REFERENCE § 6 Q38",
        pattern=rx(
            r"(?:hierarchical|two-hop|2-hop|node-aware)\s+all-?to-?all\b[^;]{0,60}\b(?:reduces?|"
            r"cuts?|lowers?|saves?)\b[^;]{0,25}\b(?:cross-node|inter-node|network)\s+(?:bytes|"
            r"traffic|volume|data)"
        ),
        unless=rx(r"only if|unless|de-?duplicat"),
        seeds=seeds(38),
        bad=("A hierarchical all-to-all reduces cross-node bytes.",),
        good=("A two-hop all-to-all cuts cross-node bytes only if tokens are de-duplicated.",),
    ),
    Check(
        "efa-plugin-and-launch",
        "NCCL reaches EFA through the aws-ofi-nccl plugin (libfabric), not IB verbs; "
        "NCCL_SOCKET_IFNAME only covers bootstrap/socket traffic; EFAs cannot be attached to or "
        "detached from a running instance",
        "REFERENCE § 6 Q42/Q43; AWS EC2 User Guide (EFA)",
        pattern=rx(
            r"\battach\w*\b[^;]{0,40}\brunning instance|\battach\w* dynamically|dynamically "
            r"attach\w*|\bhot[- ]?(?:plug|attach)\w*"
            r"|NCCL_SOCKET_IFNAME\b[^;]{0,60}\bEFA\b|\bEFA\b[^;]{0,60}NCCL_SOCKET_IFNAME"
            r"|\bEFA\b[^;]{0,60}\b(?:IB|InfiniBand)\s+verbs|\bEFA\b[^;]{0,60}NCCL_IB_DISABLE"
        ),
        unless=rx(r"only (?:chooses|picks|covers|affects)|bootstrap"),
        seeds=seeds(42, 43),
        bad=("EFA attaches dynamically, and NCCL_SOCKET_IFNAME=efa0 makes NCCL use it.",),
        good=("EFAs cannot be attached to or detached from a running instance.",),
    ),
    Check(
        "no-hugepages",
        "RDMA registration does not need hugepages: it needs /dev/infiniband, lockable memory "
        "(memlock/IPC_LOCK) and enough /dev/shm",
        "REFERENCE § 6 Q48; NCCL troubleshooting docs",
        pattern=rx(r"huge\s?pages?"),
        seeds=seeds(48),
        bad=("Mount /dev/hugepages for RDMA memory registration.",),
        good=("Registration does not need hugepages.",),
    ),
    Check(
        "multus-nad",
        "Multus's custom resource is NetworkAttachmentDefinition (not \"Network-Attached "
        'Definitions"), and RDMA also needs an SR-IOV or RDMA device plugin',
        "REFERENCE § 6 Q49; Multus CNI (k8s.cni.cncf.io/v1)",
        pattern=rx(r"Network[- ]Attached\s+Definitions?"),
        seeds=seeds(49),
        bad=("Multus attaches networks described by Network-Attached Definitions.",),
        good=('The seed calls these "Network-Attached Definitions".',),
    ),
    Check(
        "nccl-tests-ranks",
        "nccl-tests runs processes x threads x GPUs per thread ranks: mpirun -np 16 ... -g 8 is "
        "128 ranks; -g is GPUs per thread, not per node; the output has no algorithm column",
        "REFERENCE § 6 Q29; nccl-tests README",
        custom=_mpirun_ranks,
        seeds=seeds(29),
        code=True,
        bad=(
            "mpirun -np 16 ./all_reduce_perf -b 1M -e 1G -f 2 -g 8: 16 processes, 8 GPUs per node.",
        ),
        good=("mpirun -np 16 ./build/all_reduce_perf -g 8   # 16 processes x 8 GPUs = 128 ranks",),
    ),
    Check(
        "nccl-tests-output",
        "nccl-tests prints time, algbw and busbw per size; it does not show the algorithm "
        "(use NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=COLL,TUNING), and -g is GPUs per thread",
        "REFERENCE § 6 Q29; nccl-tests README",
        pattern=rx(
            r"\b(?:output|prints?|columns?|reports?)\b[^;]{0,40}\b(?:includes?|shows?|lists?|and)"
            r"\b[^;]{0,25}\b(?:the\s+)?algorithm\b(?!\s+(?:bandwidth|column))"
            r"|-g\b[^;]{0,40}\bper node\b|\bGPUs per node\b[^;]{0,20}\(-g\)"
        ),
        context=rx(r"nccl-tests|_perf\b|-g\b"),
        unless=rx(r"NCCL_DEBUG|bandwidth"),
        seeds=seeds(29),
        bad=("The nccl-tests output includes the algorithm used.",),
        good=("It does not print which algorithm NCCL chose.",),
    ),
    Check(
        "gdr-level-is-a-cap",
        "GPUDirect RDMA is used automatically when driver (nvidia-peermem/DMA-BUF) and topology "
        "allow; NCCL_NET_GDR_LEVEL only caps the GPU-NIC distance (LOC/PIX/PXB/PHB/SYS)",
        "REFERENCE § 6 Q41/Q47; NCCL env.rst NCCL_NET_GDR_LEVEL",
        pattern=rx(
            r"NCCL_NET_GDR_LEVEL\b[^;]{0,50}\b(?:enables?|enabling|turns?\s+on|switch\w*\s+on|"
            r"activates?)\b|\b(?:enable|enables|enabled|enabling|turn\s+on|activate)\b[^;]{0,40}"
            r"\b(?:GPUDirect RDMA|GDR)\b[^;]{0,30}NCCL_NET_GDR_LEVEL"
            r"|\b(?:GPUDirect RDMA|GDR)\b[^;]{0,20}\b(?:enabled|turned\s+on|activated|switched"
            r"\s+on)\b[^;]{0,30}NCCL_NET_GDR_LEVEL"
        ),
        unless=rx(r"\bcap|maximum|distance|\bonly\b"),
        seeds=seeds(26, 41, 42, 47, "47b"),
        bad=("GPUDirect RDMA is enabled by setting NCCL_NET_GDR_LEVEL.",),
        good=("NCCL_NET_GDR_LEVEL is a maximum distance, not an on switch.",),
    ),
    Check(
        "gdr-not-built-on-p2p",
        "GPUDirect RDMA (NIC to GPU) is not built on GPUDirect P2P (GPU to GPU); a node can have "
        "one without the other",
        "REFERENCE § 6 Q47",
        pattern=rx(
            r"(?:GDR|GPUDirect RDMA)\b[^;]{0,40}\b(?:built|builds|based|extends?)\s+(?:on|upon)\s+"
            r"(?:GPUDirect\s+)?P2P"
        ),
        seeds=seeds(30, 31, 47, "47b"),
        bad=("GPUDirect RDMA builds on GPUDirect P2P and extends it to the network.",),
        good=("GDR is not built on P2P.",),
    ),
    Check(
        "hierarchical-saving",
        "against a flat ring, a hierarchical AllReduce saves latency (2(N-1) network steps "
        "instead of 2(p-1)) and spreads traffic over all NICs; it does not cut cross-node bytes "
        "by 75% or from N·M to P·M; NCCL_ALGO=Ring is not hierarchical",
        "REFERENCE § 6 Q32/Q33",
        pattern=rx(
            r"\b75\s*%|N\s*[×x*·]\s*M\s+to\s+P\s*[×x*·]\s*M|NCCL_ALGO=Ring\b[^;]{0,60}hierarch"
        ),
        context=rx(r"hierarch|cross-node|inter-node|per node|NCCL_ALGO"),
        seeds=seeds(32, 33),
        bad=("Hierarchical AllReduce saves 75% of the cross-node bandwidth with 4 GPUs per node.",),
        good=(
            "A flat ring already crosses each node boundary with about 2M, so there is no 75% to "
            "save.",
        ),
    ),
    Check(
        "dp-not-always-largest",
        "DP does not necessarily move the most: TP's per-layer, per-micro-batch AllReduces often "
        "exceed DP's gradient traffic",
        "REFERENCE § 6 Q35; Shoeybi et al. 2019",
        pattern=rx(
            r"\b(?:DP|data parallel\w*)\b[^;]{0,30}\b(?:has|moves|is|carries)\s+the\s+(?:largest|"
            r"most|biggest|highest)\b|\b(?:DP|data parallel\w*)\b[^;]{0,20}\balways\b[^;]{0,20}"
            r"\b(?:largest|most)\b"
        ),
        seeds=seeds(35),
        bad=("In 3D parallelism DP has the largest communication volume.",),
        good=("The seed says DP has the largest volume.",),
    ),
    Check(
        "roce-latency",
        'no source supports RoCE being "1-2 µs" slower than InfiniBand: ConnectX-6 adapters '
        "quote sub-600 ns (IB) vs sub-0.8 µs (Ethernet); the RoCE penalty comes from the fabric "
        "and congestion control",
        "REFERENCE § 6 Q25; NVIDIA ConnectX-6 product brief",
        pattern=rx(
            r"\b1\s*-\s*2\s*µs\b[^;]{0,30}\b(?:higher|more|slower|extra|added)"
            r"|\b(?:adds?|higher|more)\b[^;]{0,15}\b1\s*-\s*2\s*µs"
        ),
        context=rx(r"RoCE|Ethernet"),
        seeds=seeds(25),
        bad=("RoCE latency is usually 1-2 µs higher than InfiniBand.",),
        good=('A common interview answer says RoCE latency is "1-2 µs higher".',),
    ),
    Check(
        "broadcast-cost",
        "broadcast ≈ L + M/B holds only for a pipelined broadcast at large M; a binomial tree "
        "takes ⌈lg p⌉(α + Mβ)",
        "REFERENCE § 6 Q10; Thakur et al. 2005",
        pattern=rx(r"\bL\s*\+\s*M\s*/\s*B\b"),
        context=rx(r"broadcast", re.I),
        unless=rx(r"pipelin|\bonly\b"),
        seeds=seeds(10),
        bad=("Any broadcast takes about L + M/B.",),
        good=("Broadcast ≈ L + M/B holds only for a pipelined broadcast at large M.",),
    ),
    Check(
        "reduce-broadcast-root",
        "the root carries p·M only in a naive star; binomial trees give it ⌈lg p⌉·M and "
        "pipelined rings about M each way",
        "REFERENCE § 6 Q2",
        pattern=rx(r"\broot\b[^;]{0,40}\b(?:N|p)\s*(?:times|×)\s*(?:the\s+)?(?:traffic|data)"),
        unless=rx(r"\bstar\b|naive"),
        seeds=seeds(2, 13),
        bad=("In Reduce + Broadcast the root carries N times the traffic.",),
        good=("Only a naive star makes the root carry p times the data.",),
    ),
    Check(
        "ring-latency-dominance",
        "which ring term dominates depends on M against about p·α·B; the bandwidth term stays "
        "near 2Mβ for any p",
        "REFERENCE § 6 Q4",
        pattern=rx(
            r"\blarge\s+[Np]\b[^;]{0,50}\blatency\s+(?:term\s+)?(?:always\s+)?dominat"
            r"|\blarge\s+[Np]\b[^;]{0,50}\bdominated\s+by\s+the\s+latency"
        ),
        unless=rx(r"\bonly\b|\bbelow\b|depends|M\*|\bsmall"),
        seeds=seeds(4, 21),
        bad=("For large N the time is dominated by the latency term.",),
        good=("For large N the latency term dominates only for messages below M*.",),
    ),
    Check(
        "lazy-communicator",
        "PyTorch creates NCCL communicators lazily on the first collective unless device_id is "
        "passed; init_process_group creates the process group and its store",
        "REFERENCE § 6 Q12; PyTorch distributed.rst",
        pattern=rx(
            r"init_process_group\b[^;]{0,60}\b(?:creates|builds|initiali[sz]es)\b"
            r"[^;]{0,30}\b(?:NCCL\s+)?communicators?\b"
        ),
        unless=rx(r"lazil|\blazy\b|device_id|first collective"),
        seeds=seeds(12),
        bad=("init_process_group('nccl') creates the global NCCL communicator.",),
        good=("init_process_group does not create NCCL communicators immediately.",),
    ),
    Check(
        "cuda-aware-mpi",
        "CUDA-aware MPI accepts device pointers (GPUDirect/UCX) and does not call NCCL; "
        "DeepSpeed's default launcher is pdsh, MPI is optional",
        "REFERENCE § 6 Q46",
        pattern=rx(
            r"CUDA-aware MPI\b[^;]{0,60}\b(?:calls?|uses|invokes?)\b[^;]{0,15}\bNCCL\b"
            r"|\bDeepSpeed\b[^;]{0,30}\b(?:uses|launches with|requires|launched with)\s+mpirun"
        ),
        seeds=seeds(46),
        bad=("CUDA-aware MPI calls NCCL for GPU buffers.",),
        good=("CUDA-aware MPI does not call NCCL.",),
    ),
    Check(
        "nccl-alltoall-version",
        "ncclAlltoAll (with ncclGather and ncclScatter) arrived in NCCL 2.28.3; before that an "
        "All-to-All was grouped ncclSend/ncclRecv",
        "REFERENCE § 6 Q11; nccl src/nccl.h.in history",
        custom=_alltoall_version,
        seeds=seeds(1, 11, 38),
        bad=("ncclAlltoAll has been available since NCCL 2.0.",),
        good=("ncclAlltoAll was added in NCCL 2.28.3.",),
    ),
    Check(
        "gid-index",
        "NCCL_IB_GID_INDEX picks the RoCE GID table entry (default -1, auto); it is not a "
        "cross-subnet switch",
        "REFERENCE § 6 Q26; NCCL env.rst NCCL_IB_GID_INDEX",
        pattern=rx(
            r"GID_INDEX\b[^;]{0,60}\bcross[- ]subnet|\bGID index\b[^;]{0,30}\bdefault\w*"
            r"\s+(?:is\s+)?0\b"
        ),
        seeds=seeds(26, 41),
        bad=("NCCL_IB_GID_INDEX enables cross-subnet RoCE traffic.",),
        good=('It is not a "cross-subnet" switch.',),
    ),
    Check(
        "ib-timeout-exponent",
        "NCCL_IB_TIMEOUT is an exponent: 4.096 µs x 2^t per attempt (t = 20: 4.3 s; x 7 retries "
        "≈ 30 s), not seconds",
        "REFERENCE § 6 Q26; NCCL env.rst NCCL_IB_TIMEOUT",
        pattern=rx(
            r"NCCL_IB_TIMEOUT\b[^;]{0,30}\bin\s+seconds\b|NCCL_IB_TIMEOUT=?\s*\d+\s*"
            r"(?:s|sec|seconds)\b"
        ),
        seeds=seeds(26, 28, 44),
        bad=("NCCL_IB_TIMEOUT is in seconds.",),
        good=("The value is an exponent, not seconds.",),
    ),
]


# Statements a review of the lessons found misleading (issue 11), checked in the lesson texts.
# Quiz files have their own owner and tests; these checks read lessons/*.md only.
REVIEW = [
    Check(
        "binary-tree-interior-bytes",
        "in a binary-tree AllReduce (reduce, then broadcast) a non-root interior node sends 3M "
        "(M up, M to each child), the root 2M and a leaf M",
        "REFERENCE § 1 table; the engine's allreduce/binary_tree bytes_sent",
        pattern=rx(r"\binterior nodes?\s+(?:send|sends|carry|carries)\s+up\s+to\s+2\s*M\b"),
        negatable=False,
        bad=("Interior nodes send up to 2M.",),
        good=("A non-root interior node sends 3M: M up and M to each child.",),
    ),
    Check(
        "single-port-everywhere",
        "the model is single-port, but the binary_tree and double_binary_tree labs are "
        "dual/all-port: a parent hears or feeds both children in one step",
        "REFERENCE § 1 (Model); docs/design-notes.md Ports; the engine catalog's single_port",
        pattern=rx(r"\bevery rank sends at most one message|\bsame model as before: single-port"),
        unless=rx(r"\bexcept|binary_tree|binary tree|all-port|dual-port|two ports"),
        negatable=False,
        bad=("In each step every rank sends at most one message and receives at most one.",),
        good=(
            "In each step every rank sends at most one message, except in the binary_tree and "
            "double_binary_tree labs, which are all-port.",
        ),
    ),
    Check(
        "pipeline-fill-plus",
        "a pipelined double binary tree pays its pipeline fill on top of Rabenseifner-like terms",
        "REFERENCE § 2 (double binary tree: + pipeline-fill term)",
        pattern=rx(r"\bminus\s+(?:its|the|a|one)\s+pipeline\s+fill"),
        bad=("It sits with Rabenseifner, minus its pipeline fill.",),
        good=("It sits with Rabenseifner, plus its pipeline fill.",),
    ),
    Check(
        "allreduce-bound-point-to-point",
        "2(p-1)/p · M per rank bounds AllReduce for point-to-point algorithms only; in-network "
        "reduction (NVLS on NVSwitch, SHARP/CollNet) beats it",
        "REFERENCE § 3; nccl-tests doc/PERFORMANCE.md",
        pattern=rx(
            r"\blower bound\b|\bmeets the\b[^.]{0,40}\bbound\b|\bcan(?:not|'t) be beaten\b"
            r"|\bequals the AllReduce (?:lower )?bound"
        ),
        context=rx(r"all-?reduce|2\(p-1\)|\bring\b|bandwidth term|\bit\b"),
        unless=rx(r"point-to-point|\bNVLS\b|SHARP|in-network|\bswitch"),
        negatable=False,
        bad=("A ring AllReduce meets the 2(p-1)/p · M bound, which cannot be beaten.",),
        good=(
            "For point-to-point algorithms 2(p-1)/p · M is a lower bound; NVLS and SHARP beat it.",
        ),
    ),
    Check(
        "ring-network-hops",
        "every step of a flat multi-node ring has transfers across each node boundary; 'about "
        "two per node' counts the hops on one chunk's path that cross the network",
        "REFERENCE § 2 (NCCL's own model), § 6 Q4; nccl src/graph/tuning.cc nInterSteps",
        pattern=rx(
            r"\btwo\s+(?:of\s+its\s+)?steps\s+per\s+node|\bsteps\s+that\s+cross\s+(?:between\s+)?"
            r"(?:nodes|the network)|\bsteps\s+per\s+node\s+cross"
        ),
        bad=(
            "Only about two of its steps per node cross the network.",
            "Only the steps that cross between nodes, about two per node, pay the network latency.",
        ),
        good=("On one chunk's path round the ring, about two hops per node cross the network.",),
    ),
    Check(
        "ring-intra-step-floor",
        "since NCCL 2.18 every intra-node step of a multi-node ring is charged at least the "
        "network overhead (1 µs Intel, 2 µs AMD, x3 for Simple); 'network latency only "
        "2(nNodes-1) times, intra-node latency on the rest' and the 1770 µs example omit it",
        "REFERENCE § 2 (NCCL's own model); nccl src/graph/tuning.cc getNetOverhead",
        pattern=rx(
            r"\bnetwork latency only\b|\bcheaper intra-node latency on the rest"
            r"|\bintra-node latency for the other steps|\bthe rest pay the intra-node"
            r"|≈\s*1770\s*µs"
        ),
        unless=rx(r"\bat least\b|\bfloor\b|\boverhead\b|\b2\.18\b|\bwithout\b"),
        bad=(
            "It charges the network latency only 2(nNodes-1) times and intra-node latency for "
            "the other steps.",
            "Ring: 6.6 + 1792 × 0.6 + 254 × 2.7 ≈ 1770 µs.",
        ),
        good=(
            "Since NCCL 2.18 every other step is charged at least the network overhead.",
            "Without that floor the sum would be ≈ 1770 µs.",
        ),
    ),
    Check(
        "nvlink-rate-shared",
        "a GPU's NVLink rate (450 GB/s per direction on H100) is its total, shared among the "
        "peers it talks to at once through NVSwitch; it is not a per-pair figure",
        "REFERENCE § 3 (NVLink rate of a GPU), § 4",
        pattern=rx(
            r"\bevery\s+(?:GPU\s+)?pair\b[^.]{0,40}\bfull NVLink bandwidth"
            r"|\bevery other at its full NVLink bandwidth"
            r"|\b(?:each|every)\s+(?:GPU\s+)?pair\b[^.]{0,40}\b(?:300|450|900)\s*GB/s"
        ),
        unless=rx(r"\bshared?\b|\bsharing\b|\btotal\b|\bsplit\b|\bone peer\b"),
        bad=("On an NVSwitch node every GPU pair gets full NVLink bandwidth (450 GB/s).",),
        good=("Each GPU's 450 GB/s is its total, shared among the peers it talks to at once.",),
    ),
    Check(
        "moe-two-hop-messages",
        "a two-hop all-to-all sends (g-1) intra-node plus (N-1) inter-node messages per rank; "
        "that is 2(g-1) only when N = g",
        "REFERENCE § 6 Q38; the lesson's own two-hop construction",
        pattern=rx(r"2\s*\(\s*g\s*-\s*1\s*\)", re.NOFLAG),
        context=rx(r"\bmessages?\b"),
        unless=rx(r"N\s*=\s*g\b|\(N\s*-\s*1\)", re.NOFLAG),
        bad=("A two-hop all-to-all turns p-1 small messages into about 2(g-1) larger ones.",),
        good=("It sends (g-1) + (N-1) messages, which is 2(g-1) when N = g.",),
    ),
    Check(
        "zero1-optimizer-state-only",
        "ZeRO-1 shards optimizer state only; ZeRO-2 adds gradients; ZeRO-3 adds parameters",
        "REFERENCE § 3; Rajbhandari et al., SC20",
        pattern=rx(
            r"\bZeRO(?!-[23])\b[^.;]{0,80}\b(?:shards?|keeps? only|partitions?)\b[^.;]{0,60}"
            r"\bgradients\b",
            re.NOFLAG,
        ),
        unless=rx(r"\bZeRO-2\b|\bstage 2\b|optimizer state only|only the optimizer state"),
        bad=("ZeRO keeps only 1/p of the optimizer state, gradients and parameters on each rank.",),
        good=("ZeRO-1 shards the optimizer state only, ZeRO-2 the gradients as well.",),
    ),
    Check(
        "mpi-nccl-not-sealed-off",
        "CUDA-awareness does not need NCCL, but MPI and NCCL are not sealed off: Open MPI's "
        "optional ucc component can hand GPU collectives to UCC, whose NCCL layer runs them",
        "Open MPI docs, tuning-apps/collectives/ucc (coll_ucc_enable; UCC team layers incl. nccl)",
        pattern=rx(
            r"\bdoes not involve NCCL\b|\bseparate thing from NCCL\b|\bneither calls the other\b"
            r"|\bindependent of NCCL\b|\bnever calls NCCL\b"
        ),
        unless=rx(r"\bUCC\b", re.NOFLAG),
        negatable=False,
        bad=("That is a property of the MPI library and does not involve NCCL.",),
        good=(
            "It does not need NCCL, though Open MPI's UCC component can hand GPU collectives to "
            "NCCL.",
        ),
    ),
    Check(
        "nccl-tests-warmup-default",
        "nccl-tests' -w (warm-up iterations) defaults to 1 since 2025-08 (it was 5); -n to 20",
        "REFERENCE § 3; nccl-tests src/common.cu",
        pattern=rx(
            r"-w\s*\(\s*default\s*(?!1\b)\d+|\bwarm-?up iterations?\s*\(default\s*(?!1\b)\d+"
        ),
        negatable=False,
        bad=("-n (default 20) and -w (default 5) set timed and warm-up iterations.",),
        good=("-n (default 20) and -w (default 1 since 2025-08; it was 5) set the iterations.",),
    ),
    Check(
        "megatron-pp-outermost",
        "Megatron-LM's default order tp-cp-ep-dp-pp puts PP outermost; DP is outermost only "
        "with --use-tp-pp-dp-mapping",
        "REFERENCE § 3; Megatron-LM megatron/core/parallel_state.py",
        pattern=rx(
            r"\b(?:data parallel\w*|DP)\b[^.]{0,40}\boutermost\b"
            r"|\boutermost\b[^.]{0,30}\b(?:data parallel\w*|DP)\b"
        ),
        unless=rx(r"use-tp-pp-dp-mapping|\b(?:PP|pipeline\w*)\b[^.]{0,30}\boutermost\b"),
        bad=("Data parallelism goes outermost.",),
        good=("PP is the outermost dimension; DP is outermost only with --use-tp-pp-dp-mapping.",),
    ),
    Check(
        "nvlink-tp-allreduce-vs-mstar",
        "with NVLink's 450 GB/s, M* = p·α·B = 8 · 5 µs · 450 GB/s = 18 MB: an 8-GPU TP "
        "AllReduce of tens of MB is not far above it, and latency is a sizeable share",
        "REFERENCE § 2 (ring AllReduce), § 4 (NVLink 4)",
        pattern=rx(r"\b(?:far|well)\s+above\s+M\^?\*?"),
        context=rx(r"NVLink|tensor-parallel|\bTP\b"),
        bad=("Tensor-parallel AllReduces are tens of MB over 8 NVLink GPUs, far above M* there.",),
        good=("With NVLink, M* = 8 · 5 µs · 450 GB/s = 18 MB, so latency is about a third.",),
    ),
]


# Formulas, checked everywhere.
FACTOR_VARIABLES = "pnNg"


def _factor_variables(sentence: str) -> str | None:
    compact = re.sub(r"\s+", "", sentence)
    for m in re.finditer(r"\(([A-Za-z])-1\)\)?(?:[·×*]?M)?/\(?([A-Za-z])(?![A-Za-z_])", compact):
        top, bottom = m.group(1), m.group(2)
        if top in FACTOR_VARIABLES and bottom in FACTOR_VARIABLES and top != bottom:
            return m.group(0)
    m = re.search(r"\(2[pnN]-1\)/|\([pnN]\+1\)/[pnN]\b", compact)
    return m.group(0) if m else None


def _ring_steps(sentence: str) -> str | None:
    if not (re.search(r"\bring\b", sentence, re.I) and re.search(r"all-?reduce", sentence, re.I)):
        return None
    if re.search(
        r"phase|reduce-?scatter|all-?gather|\bhalf\b|\beach\b|\bfirst\b|\bsecond\b", sentence, re.I
    ):
        return None
    for m in re.finditer(
        r"(?<![\w(·])(\d*)\s*[·×]?\s*\(?\s*([pnN])\s*-\s*1\s*\)?\s*(?:steps|"
        r"rounds)\b",
        sentence,
    ):
        if m.group(1) != "2" and not negated(sentence):
            return m.group(0)
    return None


def _busbw_factor(sentence: str) -> str | None:
    if not re.search(r"busbw|bus bandwidth|bus-bandwidth", sentence, re.I):
        return None
    compact = re.sub(r"\s+", "", sentence)
    m = re.search(
        r"(?<![0-9(])(?<![0-9][·×*])\(([pnN])-1\)/\1(?:for|is(?:the)?factorfor)(?:the)?all-?reduce",
        compact,
        re.I,
    )
    if not m:
        m = re.search(r"all-?reduce(?:uses|:|is|factor)*(?<![0-9])\(([pnN])-1\)/\1", compact, re.I)
    return m.group(0) if m else None


FORMULAS = [
    Check(
        "factor-variables",
        "factors of the form 2(p-1)/p, (N-1)/N, (n-1)/n keep one variable in numerator and "
        "denominator",
        "REFERENCE § 1, § 2",
        custom=_factor_variables,
        bad=("Each rank sends 2(p-1)/N · M.",),
        good=("Each rank sends 2(p-1)/p · M, and each NIC carries 2(N-1)/N · M/g.",),
    ),
    Check(
        "ring-allreduce-steps",
        "ring AllReduce takes 2(p-1) steps (p-1 ReduceScatter + p-1 AllGather)",
        "REFERENCE § 1, § 2",
        custom=_ring_steps,
        bad=("A ring AllReduce over p ranks takes p-1 steps.",),
        good=("A ring AllReduce over p ranks takes 2(p-1) steps.",),
    ),
    Check(
        "busbw-allreduce-factor",
        "nccl-tests' busbw factor is 2(n-1)/n for AllReduce; (n-1)/n is AllGather, "
        "ReduceScatter and AlltoAll",
        "REFERENCE § 2; nccl-tests doc/PERFORMANCE.md",
        custom=_busbw_factor,
        bad=("busbw = algbw × (n-1)/n for AllReduce.",),
        good=("busbw = algbw × 2(n-1)/n for all-reduce, (n-1)/n for all-gather.",),
    ),
]

CHECK_GROUPS = {
    "selection": SELECTION,
    "hardware": HARDWARE,
    "seed-errors": SEED_ERRORS,
    "formulas": FORMULAS,
    "review": REVIEW,
}
ALL_CHECKS = [check for group in CHECK_GROUPS.values() for check in group]


@dataclass
class Finding:
    file: str
    line: int
    where: str
    sentence: str
    match: str
    check: Check

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line} [{self.check.id}] ({self.where})\n"
            f"    says:    {self.sentence}\n"
            f"    matched: {self.match}\n"
            f"    correct: {self.check.correction}\n"
            f"    source:  {self.check.source}"
        )


def findings(slug: str, checks: list[Check], lessons_only: bool = False) -> list[Finding]:
    out = []
    for passage in lesson_passages(slug) if lessons_only else passages(slug):
        if not passage.asserted or passage.citation:
            continue
        for sentence, line in passage.sentences():
            if sentence.endswith("?"):
                continue  # a question asserts nothing
            for check in checks:
                if passage.code and not check.code:
                    continue
                if passage.lesson_text and not check.applies_to_lesson_text(slug):
                    continue
                match = check.test(sentence)
                if match:
                    out.append(Finding(passage.file, line, passage.where, sentence, match, check))
    return out


def report(found: list) -> str:
    return f"{len(found)} problem(s):\n" + "\n".join(str(f) for f in found)


# -- environment variables -----------------------------------------------------------------------

ENV_TOKEN = re.compile(r"\b(?:NCCL|TORCH|FI|CUDA)_[A-Z0-9_]*[A-Z0-9]\b")
NONEXISTENT = {
    "NCCL_COMM_TIMEOUT": "REFERENCE § 3, § 6 Q28/Q44: in neither NCCL's source nor its docs; "
    "timeouts come from init_process_group(timeout=...) and NCCL_IB_TIMEOUT x NCCL_IB_RETRY_CNT",
    "NCCL_PROFILE": "REFERENCE § 3, § 6 Q45: PROFILE is only a NCCL_DEBUG_SUBSYS category; "
    "per-op data comes from NCCL_PROFILER_PLUGIN or NVTX",
}
# Identifiers that look like variables but are not, and may appear as what they are.
NOT_VARIABLES = {
    "NCCL_UNIQUE_ID_BYTES": "nccl.h macro (128), the size of ncclUniqueId",
    "NCCL_SPLIT_NOCOLOR": "nccl.h macro (-1), the ncclCommSplit colour that joins no group",
    "NCCL_HOME": "nccl-tests Makefile variable (make MPI=1 MPI_HOME=... NCCL_HOME=...)",
    "CUDA_HOME": "nccl-tests Makefile variable (make ... CUDA_HOME=...)",
    "FI_HMEM": "libfabric capability bit (fi_getinfo(3)) for device memory, used by aws-ofi-nccl",
}
DOES_NOT_EXIST = re.compile(
    r"\b(?:does not|doesn't|do not|don't|did not)\s+exist|\bnever\s+existed|\bno such\b|"
    r"\bthere is no\b|"
    r"\bnon-?existent\b|\bnot a real\b|\bno\s+(?:NCCL_COMM_TIMEOUT|NCCL_PROFILE)\b|"
    r"\bis not an?\s+(?:NCCL\s+)?(?:environment\s+)?variable",
    re.I,
)
STATUS_WORDS = re.compile(r"\b(removed|deprecated|renamed|superseded) in\b", re.I)
STATUS_CUE = re.compile(
    r"\b(?:removed|deprecated|renamed|superseded|replaced?s?|in place of|older|obsolete|no longer|"
    r"stale|never existed|went(?: away)? in|used until|alias)\b",
    re.I,
)


@dataclass(frozen=True)
class EnvEntry:
    name: str
    source: str
    status: str  # "" (current), "removed" or "deprecated"


@cache
def allow_list() -> dict[str, EnvEntry]:
    entries = {}
    for number, line in enumerate(ALLOW_LIST.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.fullmatch(r"([A-Z][A-Z0-9_]*[A-Z0-9])\s{2,}#\s+(\S.*)", line)
        assert m, f"nccl_env_vars.txt:{number}: expected 'NAME  # source', got {line!r}"
        name, source = m.groups()
        assert name not in entries, f"nccl_env_vars.txt:{number}: {name} listed twice"
        status = STATUS_WORDS.search(source)
        word = status.group(1).lower() if status else ""
        entries[name] = EnvEntry(
            name, source, "removed" if word == "removed" else ("deprecated" if word else "")
        )
    return entries


def env_problems(slug: str) -> list[str]:
    """Tokens that are not real variables, and fake or removed ones named without the fact."""
    known = allow_list()
    problems = []
    for passage in passages(slug):
        for sentence, line in passage.sentences():
            for token in sorted(set(ENV_TOKEN.findall(sentence))):
                where = f"{passage.file}:{line} ({passage.where})"
                if token in NOT_VARIABLES:
                    continue
                if token in NONEXISTENT:
                    if DOES_NOT_EXIST.search(sentence):
                        continue
                    if not passage.asserted and DOES_NOT_EXIST.search(passage.correction):
                        continue
                    problems.append(
                        f"{where}: {token} does not exist, yet the text does not say so"
                        f"{'' if passage.asserted else ' (nor does its question)'}\n"
                        f"    says:    {sentence}\n    source:  {NONEXISTENT[token]}"
                    )
                elif token not in known:
                    problems.append(
                        f"{where}: {token} is not in nccl_env_vars.txt (not a documented "
                        f"NCCL/PyTorch/CUDA variable)\n    says:    {sentence}"
                    )
                elif known[token].status:
                    if passage.citation or STATUS_CUE.search(sentence) or negated(sentence):
                        continue
                    if not passage.asserted and STATUS_CUE.search(passage.correction):
                        continue
                    problems.append(
                        f"{where}: {token} is {known[token].status}; say so where it is named\n"
                        f"    says:    {sentence}\n    source:  {known[token].source}"
                    )
    return problems


# -- tests: the allow-list -----------------------------------------------------------------------


def test_allow_list_is_well_formed_and_sourced():
    entries = allow_list()
    assert len(entries) >= 100
    for entry in entries.values():
        assert re.match(r"(NCCL|TORCH|FI|CUDA)_", entry.name), entry.name
        assert len(entry.source) >= 8, f"{entry.name}: source too short: {entry.source!r}"
    for fake in NONEXISTENT:
        assert fake not in entries, f"{fake} does not exist and must not be allow-listed"
    assert not set(NOT_VARIABLES) & set(entries)


def test_allow_list_covers_the_variables_issue_5_names():
    issue = (
        "NCCL_DEBUG NCCL_DEBUG_SUBSYS NCCL_SOCKET_IFNAME NCCL_IB_HCA NCCL_IB_DISABLE "
        "NCCL_CROSS_NIC NCCL_NET_GDR_LEVEL NCCL_P2P_LEVEL NCCL_ALGO NCCL_PROTO NCCL_BUFFSIZE "
        "NCCL_MIN_CTAS NCCL_MAX_CTAS NCCL_IB_TIMEOUT NCCL_IB_RETRY_CNT "
        "TORCH_NCCL_ASYNC_ERROR_HANDLING TORCH_NCCL_BLOCKING_WAIT"
    ).split()
    missing = [name for name in issue if name not in allow_list()]
    assert not missing
    assert allow_list()["NCCL_SINGLE_RING_THRESHOLD"].status == "removed"
    assert allow_list()["NCCL_MAX_NCHANNELS"].status == "deprecated"


# -- tests: the checks catch what they are meant to catch ----------------------------------------


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.id)
def test_check_flags_its_bad_examples_and_passes_good_ones(check):
    assert check.bad and check.good, "every check needs examples"
    for sentence in check.bad:
        assert check.test(plain(sentence, code=check.code)), f"not flagged: {sentence}"
    for sentence in check.good:
        assert not check.test(plain(sentence, code=check.code)), f"flagged: {sentence}"


def test_plain_text_strips_markdown_and_latex():
    assert plain("**NCCL** uses `NCCL_ALGO` [docs](http://x)") == "NCCL uses NCCL_ALGO docs"
    assert plain(r"$2\frac{p-1}{p}M$ and $\alpha = 5\,\mu\text{s}$") == "2(p-1)/(p)M and α = 5 µs"
    assert plain("*not* 600 GB/s − per direction") == "not 600 GB/s - per direction"
    assert plain("4.096 µs × 2²⁰ ≈ 4.3 s") == "4.096 µs × 2^20 ≈ 4.3 s"
    assert [s for _, s in split_sentences('A, e.g. B. "C." D is 2.3. E')] == [
        "A, e.g. B.",
        '"C."',
        "D is 2.3.",
        "E",
    ]


def test_negation_and_quotes():
    assert negated("NCCL has no recursive halving.")
    assert negated("The seed says DP has the largest volume.")
    assert not negated("NCCL uses recursive halving above 256 KB.")
    sentence = 'The popular shortcut "broadcast ≈ L + M/B" is only true when pipelined.'
    start = sentence.index("L + M/B")
    assert in_quotes(sentence, (start, start + 7))


def test_every_lesson_and_quiz_file_is_read():
    assert len(SLUGS) >= 17  # issue 5 lists 17 topics; the course has 21 lessons
    for slug in SLUGS:
        assert (LESSONS / f"{slug}.md").is_file(), slug
        assert any(p.lesson_text and not p.code for p in passages(slug)), slug
        assert any(not p.lesson_text for p in passages(slug)), f"{slug}: no quiz questions"
    files = {p.file for p in quiz_passages()}
    assert files == {f"lessons/quizzes/{p.name}" for p in QUIZZES.glob("*.yaml")}


# -- tests: per lesson ---------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_environment_variables_are_real(slug):
    problems = env_problems(slug)
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems)


@pytest.mark.parametrize("slug", SLUGS)
def test_nccl_selection_and_operation(slug):
    found = findings(slug, SELECTION)
    assert not found, report(found)


@pytest.mark.parametrize("slug", SLUGS)
def test_hardware_numbers(slug):
    found = findings(slug, HARDWARE)
    assert not found, report(found)


@pytest.mark.parametrize("slug", SLUGS)
def test_seed_errors_do_not_reappear(slug):
    found = findings(slug, SEED_ERRORS)
    assert not found, report(found)


@pytest.mark.parametrize("slug", SLUGS)
def test_formulas(slug):
    found = findings(slug, FORMULAS)
    assert not found, report(found)


@pytest.mark.parametrize("slug", SLUGS)
def test_review_findings_are_corrected_in_the_lessons(slug):
    """The misleading statements issue 11's review found stay out of every lesson text."""
    found = findings(slug, REVIEW, lessons_only=True)
    assert not found, report(found)


# Where issue 11's review found a wrong statement, the lesson now states the right one; the
# checks above only keep the wrong wording out.
CORRECTED = [
    ("double-binary-tree", r"sits with Rabenseifner, plus its pipeline fill"),
    ("double-binary-tree", r"non-root interior node sends \$?3M"),
    ("how-nccl-chooses", r"hops per node on that path cross the network"),
    (
        "ring-allreduce",
        r"on the path one chunk takes round the ring only about two\s+hops per node",
    ),
]


@pytest.mark.parametrize(("slug", "statement"), CORRECTED)
def test_the_corrected_statement_is_made(slug, statement):
    text = " ".join(p.text for p in lesson_passages(slug) if not p.code)
    assert re.search(statement, text), f"{slug} no longer says {statement!r}"


@pytest.mark.parametrize("slug", [s for s in SLUGS if "7" in lesson_seeds()[s]])
def test_nccl_selection_lesson_states_the_static_model(slug):
    """The lesson that answers seed question 7 teaches the static model, in its own words."""
    text = " ".join(p.text for p in lesson_passages(slug) if not p.code)
    for needed in (
        r"static cost model|cost model",
        r"ncclTopoTuneModel",
        r"NCCL_ALGO",
        r"NCCL_PROTO",
        r"\bLL128\b",
        r"\bSimple\b",
        r"2\.3",
    ):
        assert re.search(needed, text), f"{slug} does not mention {needed}"
