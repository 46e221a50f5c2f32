"""What every calculator returns: its inputs, the answer, the formula with numbers, a sentence."""

from __future__ import annotations

from dataclasses import dataclass, field

# How the widget formats an output value; it converts units but never computes a cost.
TIME, BYTES, BANDWIDTH, RATIO, COUNT, TEXT, PERCENT = (
    "time",
    "bytes",
    "bandwidth",
    "ratio",
    "count",
    "text",
    "percent",
)


@dataclass(frozen=True)
class Output:
    """One headline number (or word) of a result."""

    key: str
    label: str
    value: object
    kind: str  # TIME (seconds), BYTES, BANDWIDTH (GB/s), RATIO, COUNT, TEXT, PERCENT (0..100)


@dataclass(frozen=True)
class Result:
    """A calculator's answer that explains itself."""

    calculator: str
    inputs: dict
    outputs: tuple[Output, ...]
    formula: str
    substituted: str
    interpretation: str
    table: dict = field(default_factory=dict)  # {"columns": [...], "kinds": [...], "rows": [...]}
    charts: tuple[dict, ...] = ()
    notes: tuple[str, ...] = ()
    sizes: str = "binary"  # the unit family every size is shown in: "binary" or "decimal"

    def output(self, key: str) -> object:
        """Return the value of the output named `key`."""
        for out in self.outputs:
            if out.key == key:
                return out.value
        raise KeyError(key)

    def as_dict(self) -> dict:
        """Return JSON-ready data."""
        return {
            "calculator": self.calculator,
            "inputs": dict(self.inputs),
            "outputs": [vars(o).copy() for o in self.outputs],
            "formula": self.formula,
            "substituted": self.substituted,
            "interpretation": self.interpretation,
            "table": self.table,
            "charts": list(self.charts),
            "notes": list(self.notes),
            "sizes": self.sizes,
        }


def table(columns: list[tuple[str, str]], rows: list[list]) -> dict:
    """Build a table from (title, kind) columns and rows of values."""
    return {
        "columns": [title for title, _ in columns],
        "kinds": [kind for _, kind in columns],
        "rows": rows,
    }


def stacked_chart(
    title: str, categories: list[str], stacks: dict[str, list[float]], y: str = TIME
) -> dict:
    """Describe a stacked bar chart per category; `y` is TIME (seconds) or BYTES."""
    return {
        "kind": "stacked",
        "title": title,
        "categories": categories,
        "stacks": [{"name": name, "values": values} for name, values in stacks.items()],
        "y": y,
    }
