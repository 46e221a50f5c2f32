"""Read HTML structurally in tests: find elements by tag and attributes, with their text."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Element]:
        """Return descendants with `tag` whose attributes contain `attrs` (class_ for class)."""
        want = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
        out = []
        for child in self.children:
            if isinstance(child, str):
                continue
            if (tag is None or child.tag == tag) and all(
                _matches(child, k, v) for k, v in want.items()
            ):
                out.append(child)
            out.extend(child.find_all(tag, **attrs))
        return out

    def find(self, tag: str | None = None, **attrs: str) -> Element | None:
        found = self.find_all(tag, **attrs)
        return found[0] if found else None

    def ancestors(self) -> list[Element]:
        out, node = [], self.parent
        while node is not None:
            out.append(node)
            node = node.parent
        return out


def _matches(element: Element, key: str, value: str) -> bool:
    if key == "class":
        return value in element.attrs.get("class", "").split()
    return element.attrs.get(key) == value


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag, attrs):
        element = Element(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(element)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Element:
    """Parse an HTML document or fragment into a tree of Elements."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root
