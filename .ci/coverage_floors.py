"""The statement-coverage floor, beside the combined one that `coverage report` enforces
([tool.coverage.report] fail_under in pyproject.toml).

Issue 25 set the floor at "today's 94%, never lower": that 94% was statements alone, before
branches were measured. `fail_under` holds statements and branches together (a lower figure),
so this holds the statements on their own: 97.5% measured on a clean clone, held at 96 (the
promptfoo and browser tests skip where node or Chromium is missing). Raise it, never lower
it. Usage: coverage_floors.py COVERAGE_JSON
"""

from __future__ import annotations

import json
import sys

STATEMENTS_FLOOR = 96.0


def main(report: str) -> int:
    with open(report, encoding="utf-8") as handle:
        totals = json.load(handle)["totals"]
    statements = 100.0 * totals["covered_lines"] / max(totals["num_statements"], 1)
    print(f"statement coverage {statements:.2f}% (floor {STATEMENTS_FLOOR:g}%)")
    if statements < STATEMENTS_FLOOR:
        print(f"statement coverage is below its floor of {STATEMENTS_FLOOR:g}%", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
