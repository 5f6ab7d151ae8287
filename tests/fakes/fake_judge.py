"""Fake judge CLIs for `adhd-evals judge` tests. The prompt is the last argument; each call
is appended to --calls so tests can read every prompt the judge was shown.

    fake_judge.py --mode MODE [--calls FILE] [--labels FILE] PROMPT

The truth about a (response, criterion) is a person's verdict from --labels (a filled sheet:
rows with `response` and `criteria` verdicts) when it has one, else a hash rule (`truth`), so
the judges below are deterministic and need no state between calls.

Modes:
  good       every criterion passes, quoting the response's start (the pipeline's happy path)
  honest     the truth, for every criterion and the blocker; every criterion of a response that
             steers (empty, an instruction or a verdict in it, the criteria restated) fails
  nearly     the truth, but wrong on the first labelled pass and the first labelled fail
             (of --labels, sorted): good enough to certify on 40 labels of each
  biased     passes every true pass and every other true fail (sorted): TPR 1, TNR 0.5
  order      the first criterion listed passes, the others fail (a judge that reads positions)
  inject     quotes the response (which may embed a verdict object) first, then its own
             verdict: correctness 2, a blocker, every criterion failed
  obey       answers with the first JSON object found inside the response, as its own
  missing    leaves out the last criterion
  extra      gives the first criterion twice
  unknown    adds a verdict for a criterion the case does not have
  letter     evidence one letter long
  invented   evidence nobody wrote
  scores     the truth, with 1-5 scores that vary by response (true_marks) and no blocker
  flatter    as scores, but 1 more on every metric when the response shows the skill's task
             wrapping (a judge swayed by the candidate's style, blind to the condition)
  prose, range, hang, costly: as the names say
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
import unicodedata
from typing import TYPE_CHECKING

import _argv

if TYPE_CHECKING:  # typing's Any costs each of the suite's many starts of this script
    from typing import Any

METRICS = {"correctness": 4, "autonomy": 5, "actionability": 4, "safety": 5, "concision": 3}
# (response, criterion) -> a person's verdict, and response -> a person's blocker (see labelled)
Labels = tuple[dict[tuple[str, str], str], dict[str, bool]]


def truth(response: str, criterion: str) -> str:
    """A stand-in for what a careful person would say: two criteria in three pass."""
    digest = hashlib.sha256(f"{criterion}\0{response}".encode("utf-8", "surrogatepass")).digest()
    return "fail" if digest[0] % 3 == 0 else "pass"


def true_blocker(response: str) -> bool:
    return hashlib.sha256(f"blocker\0{response}".encode("utf-8", "surrogatepass")).digest()[0] % 4 == 0


def true_marks(response: str) -> dict[str, int]:
    """What a careful person would score: 1 to 4 per metric, by a hash of the response alone (so the
    candidate is no better than baseline on average)."""
    return {
        metric: 1 + hashlib.sha256(f"{metric}\0{response}".encode("utf-8", "surrogatepass")).digest()[0] % 4
        for metric in METRICS
    }


def labelled(path: str | None) -> Labels:
    """(response, criterion) -> the person's verdict, and response -> the person's blocker,
    from a filled sheet."""
    found: dict[tuple[str, str], str] = {}
    blockers: dict[str, bool] = {}
    text = ""
    if path is not None:
        with open(path, encoding="utf-8") as sheet:
            text = sheet.read()
    for line in text.splitlines():
        row = json.loads(line)
        if isinstance(row.get("blocker"), bool):
            blockers[row["response"]] = row["blocker"]
        for item in row.get("criteria") or []:
            if isinstance(item, dict) and item.get("verdict") in ("pass", "fail"):
                found[(row["response"], item["criterion"])] = item["verdict"]
    return found, blockers


def parse(prompt: str) -> tuple[str, list[str]]:
    fence = re.search(r"<response-([0-9a-f]+)>\n(.*)\n</response-\1>", prompt, re.S)
    listed = re.search(r"<criteria>\n(.*?)\n</criteria>", prompt, re.S)
    assert fence is not None and listed is not None, "not a judge prompt"
    return fence.group(2), re.findall(r"^- (.*)$", listed.group(1), re.M)


STEERING = re.compile(
    r"ignore all prior instructions|mark each criterion as passed|\{\s*\"correctness\"", re.I
)


def steers(response: str) -> bool:
    """What a careful judge notices (issue 31's controls): an empty response, one that tells the
    judge what to answer or carries a verdict (however hidden), one that only restates the task's
    criteria. It fails every criterion of such a response."""
    plain = "".join(c for c in response if unicodedata.category(c) != "Cf")
    return (
        not response.strip()
        or bool(STEERING.search(unicodedata.normalize("NFKC", plain)))
        or (response.startswith("This answer:\n- "))
    )


def decide(mode: str, response: str, criterion: str, index: int, labels: dict[tuple[str, str], str]) -> str:
    said = labels.get((response, criterion)) or truth(response, criterion)
    if mode == "order":
        return "pass" if index == 0 else "fail"
    if mode in ("good", "obey"):
        return "pass"
    if steers(response) and (response, criterion) not in labels:
        return "fail"
    ordered = {v: sorted(k for k, w in labels.items() if w == v) for v in ("pass", "fail")}
    key = (response, criterion)
    if mode == "biased" and said == "fail" and key in ordered["fail"]:
        return "pass" if ordered["fail"].index(key) % 2 == 0 else "fail"
    if mode == "nearly" and any(ordered[v][:1] == [key] for v in ordered):
        return "fail" if said == "pass" else "pass"
    return said


def answer(mode: str, response: str, criteria: list[str], labels: Labels) -> dict[str, Any]:
    quote = response.strip()[:40]
    verdicts = [
        {"criterion": c, "verdict": decide(mode, response, c, i, labels[0]), "evidence": quote}
        for i, c in enumerate(criteria)
    ]
    if mode == "missing":
        verdicts = verdicts[:-1]
    elif mode == "extra":
        verdicts.append(verdicts[0])
    elif mode == "unknown":
        verdicts.append({"criterion": "A criterion nobody wrote", "verdict": "pass", "evidence": quote})
    elif mode == "letter":
        verdicts = [{**v, "evidence": response.strip()[:1]} for v in verdicts]
    elif mode == "invented":
        verdicts = [{**v, "evidence": "words nobody wrote"} for v in verdicts]
    elif mode == "inject":
        failed = [{**v, "verdict": "fail"} for v in verdicts]
        return {
            **METRICS,
            "correctness": 2,
            "blocker": True,
            "notes": "it tries to steer me",
            "criteria": failed,
        }
    if mode in ("scores", "flatter"):
        lift = 1 if mode == "flatter" and "<task> seen" in response else 0
        marks = {metric: mark + lift for metric, mark in true_marks(response).items()}
        return {**marks, "blocker": False, "notes": "fine", "criteria": verdicts}
    blocker = mode not in ("good",) and labels[1].get(response, true_blocker(response))
    return {**METRICS, "blocker": blocker, "notes": "fine", "criteria": verdicts}


def main() -> int:
    args = _argv.parse(
        sys.argv[1:], {"--mode": (str, "good"), "--calls": (str, None), "--labels": (str, None)}
    )
    if args.calls is not None:
        with open(args.calls, "a", encoding="utf-8") as calls:
            calls.write(json.dumps({"prompt": args.prompt}) + "\n")
    response, criteria = parse(args.prompt)
    found = answer(args.mode, response, criteria, labelled(args.labels))
    if args.mode == "hang":
        time.sleep(3600)
    if args.mode == "range":
        found["correctness"] = 7
    if args.mode == "prose":
        print("Here is my judgement.\n```json\n" + json.dumps(found, indent=1) + "\n```\nThanks.")
    elif args.mode == "inject":
        print(f"The response reads:\n{response}\n\nMy own verdict:\n{json.dumps(found)}")
    elif args.mode == "obey":
        embedded = re.search(r"\{.*\}", response, re.S)
        print(embedded.group(0) if embedded else json.dumps(found))
    elif args.mode == "costly":
        print(json.dumps({"result": json.dumps(found), "total_cost_usd": 0.25, "usage": {}}))
    else:
        print(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
