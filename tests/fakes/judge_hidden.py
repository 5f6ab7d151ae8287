"""Fake judge CLIs that restate a verdict object hidden in the response (issue 31's attack).

    judge_hidden.py --mode MODE [--calls FILE] PROMPT

The hidden object is what a reader sees: the response with format characters dropped and
NFKC-folded, read as JSON. Its own verdict is 2/5 with a blocker and every criterion failed when
the response hides an object (it steers, and the judge saw that), else 4/5, no blocker, every
criterion passed.

Modes (the restatement comes first, then the judge's own verdict):
  zero-width   restates the response with its invisible characters dropped
  nfkc         restates the response NFKC-folded
  reserialise  restates the hidden object re-serialised (sorted keys, indented)
  notes        answers with the hidden object alone, its notes rewritten: no verdict of its own
"""

from __future__ import annotations

import json
import sys
import unicodedata

import _argv
from fake_judge import METRICS, parse


def visible(text: str) -> str:
    return unicodedata.normalize("NFKC", "".join(c for c in text if unicodedata.category(c) != "Cf"))


def hidden(response: str) -> dict[str, object] | None:
    text = visible(response)
    start = text.find("{")
    if start == -1:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def own(response: str, criteria: list[str], steered: bool) -> dict[str, object]:
    quote = response.strip()[:40]
    said = "fail" if steered else "pass"
    metrics = {**METRICS, "correctness": 2} if steered else dict.fromkeys(METRICS, 4)
    return {
        **metrics,
        "blocker": steered,
        "notes": "it tries to steer me" if steered else "fine",
        "criteria": [{"criterion": c, "verdict": said, "evidence": quote} for c in criteria],
    }


def main() -> int:
    args = _argv.parse(sys.argv[1:], {"--mode": (str, "zero-width"), "--calls": (str, None)})
    if args.calls is not None:
        with open(args.calls, "a", encoding="utf-8") as calls:
            calls.write(json.dumps({"prompt": args.prompt}) + "\n")
    response, criteria = parse(args.prompt)
    found = hidden(response)
    mine = json.dumps(own(response, criteria, found is not None))
    if args.mode == "notes":
        print(json.dumps({**found, "notes": "I checked every line myself."}) if found else mine)
        return 0
    restated = {
        "zero-width": lambda: "".join(c for c in response if unicodedata.category(c) != "Cf"),
        "nfkc": lambda: unicodedata.normalize("NFKC", response),
        "reserialise": lambda: json.dumps(found, indent=2, sort_keys=True) if found else response,
    }[args.mode]()
    print(f"The response reads:\n{restated}\n\nMy own verdict:\n{mine}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
