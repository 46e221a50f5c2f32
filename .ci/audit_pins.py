"""Check every pin in requirements.lock against PyPI's vulnerability records.

pip-audit asks PyPI for each pinned *version* (or OSV); from this project's machines only the
per-project JSON is reachable, and it lists the known vulnerabilities of the project's latest
release. So: a pin that is the latest release is audited from that list; an older pin is
reported as not audited. Exit 1 if any audited pin has a known vulnerability.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

LOCK = Path(__file__).resolve().parents[1] / "requirements.lock"


def pins(path: Path) -> list[tuple[str, str]]:
    """Return (name, version) for each `name==version` line."""
    out = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            out.append((name.strip(), version.strip()))
    return out


def project(name: str) -> dict:
    with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=30) as response:
        return json.load(response)


def main() -> int:
    vulnerable, unaudited = [], []
    for name, version in pins(LOCK):
        data = project(name)
        if data["info"]["version"] != version:
            unaudited.append(f"{name}=={version} (latest {data['info']['version']})")
            continue
        for v in data.get("vulnerabilities") or []:
            if not v.get("withdrawn"):
                vulnerable.append(f"{name}=={version}: {v.get('id')} {v.get('aliases', [])}")
    total = len(pins(LOCK))
    print(f"audited {total - len(unaudited)} of {total} pins against PyPI's vulnerability records")
    for line in unaudited:
        print(f"  not audited (not the latest release): {line}")
    for line in vulnerable:
        print(f"  VULNERABLE {line}")
    return 1 if vulnerable else 0


if __name__ == "__main__":
    sys.exit(main())
