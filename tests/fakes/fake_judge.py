"""Fake judge CLIs for `adhd-evals judge` tests. The prompt is the last argument; each call
is appended to --calls so tests can read every prompt the judge was shown.

    fake_judge.py --mode good|prose|range|invented|hang|costly [--calls FILE] PROMPT
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="good")
    parser.add_argument("--calls", type=Path, default=None)
    parser.add_argument("prompt")
    args = parser.parse_args()
    if args.calls is not None:
        with args.calls.open("a") as calls:
            calls.write(json.dumps({"prompt": args.prompt}) + "\n")
    response = re.search(r"<response>\n(.*)\n</response>", args.prompt, re.S).group(1)  # type: ignore[union-attr]
    criteria = re.findall(
        r"^- (.*)$",
        re.search(r"<criteria>\n(.*?)\n</criteria>", args.prompt, re.S).group(1),  # type: ignore[union-attr]
        re.M,
    )
    quote = response.split()[0] if response.split() else ""
    verdicts = [{"criterion": c, "verdict": "pass", "evidence": quote} for c in criteria]
    answer = {
        "correctness": 4,
        "autonomy": 5,
        "actionability": 4,
        "safety": 5,
        "concision": 3,
        "blocker": False,
        "notes": "fine",
        "criteria": verdicts,
    }
    if args.mode == "hang":
        time.sleep(3600)
    if args.mode == "range":
        answer["correctness"] = 7
    if args.mode == "invented":
        answer["criteria"] = [
            {"criterion": c, "verdict": "pass", "evidence": "words nobody wrote"} for c in criteria
        ]
    if args.mode == "prose":
        print("Here is my judgement.\n```json\n" + json.dumps(answer, indent=1) + "\n```\nThanks.")
    elif args.mode == "costly":
        print(json.dumps({"result": json.dumps(answer), "total_cost_usd": 0.25, "usage": {}}))
    else:
        print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
