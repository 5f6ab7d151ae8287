"""Print pip constraints pinning every `>=` bound in pyproject.toml to exactly that version.

    python .ci/min_constraints.py [EXTRA...] > min.txt && pip install -c min.txt '.[test]'

.ci/run installs the declared minimums this way and runs the suite, so a lower bound
in pyproject.toml is one that CI has proved, not a guess.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib
from packaging.markers import Marker  # pytest's dependency: in the environment that runs this

BOUND = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*>=\s*([^,;\s]+)")


def minimums(requirements: list[str]) -> list[str]:
    pins = []
    for requirement in requirements:
        # A bound behind a marker this Python does not meet is no bound here: pinning it would
        # hold back what other packages need of it (typing_extensions for Python 3.10 only).
        _, semicolon, marker = requirement.partition(";")
        if semicolon and not Marker(marker.strip()).evaluate():
            continue
        found = BOUND.match(requirement)
        if found:
            pins.append(f"{found.group(1)}=={found.group(2)}")
    return pins


def main(extras: list[str]) -> None:
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    print("\n".join(minimums(requirements)))


if __name__ == "__main__":
    main(sys.argv[1:])
