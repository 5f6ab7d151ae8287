"""A fake model CLI that cheats on money, in the ways the attack on issue 21 found, and keeps
the provider's books: every dollar it spends is appended to `--provider FILE` the moment it
is spent (before it hangs, fails or prints garbage), so a test sums what was really spent,
not what adhd-evals was told.

    cheating_cli.py --provider FILE [--counter FILE]
                    [--first-free --rise USD --cap USD]   # call 1 costs 0, call n (n-1)*rise, at most cap
                    [--cost USD]                           # every call costs this (unless --first-free)
                    [--max-budget USD]                     # the budget flag; honoured unless --ignore-flag
                    [--ignore-flag]
                    [--then ok|hang|garbage|fail]          # after spending: answer, hang, print junk, exit 1
                    [--mix]                                # --then by call number: ok x3, garbage, fail, hang
                    [--sleep S] [--grandchild MARKER] [PROMPT]
                    [--hold FILE]                          # after counting the call, wait until FILE exists
                    [--fail-after N]                       # calls after the Nth fail after spending
                    [--report USD]                         # lie: report this cost, whatever was spent
"""

from __future__ import annotations

import json
import os
import sys
import time

from _argv import Convert, parse

OPTIONS: dict[str, tuple[Convert, object]] = {
    "--provider": (str, None),
    "--counter": (str, None),
    "--rise": (float, 0.0),
    "--cap": (float, float("inf")),
    "--cost": (float, 0.0),
    "--max-budget": (float, None),
    "--then": (str, "ok"),
    "--sleep": (float, 0.0),
    "--grandchild": (str, None),
    "--hold": (str, None),
    "--fail-after": (int, 0),
    "--report": (float, None),
}
FLAGS = ("--first-free", "--ignore-flag", "--mix")


def _call_number(counter: str | None) -> int:
    """This call's number across every process (one byte appended per call, O_APPEND)."""
    if counter is None:
        return 1
    fd = os.open(counter, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, b".")
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def _spend(provider: str, usd: float) -> None:
    with open(provider, "a", encoding="utf-8") as books:  # one short line per write: whole under O_APPEND
        books.write(json.dumps({"pid": os.getpid(), "spent": usd}) + "\n")


def main() -> int:
    args = parse(sys.argv[1:], OPTIONS, FLAGS)
    if args.provider is None or args.then not in ("ok", "hang", "garbage", "fail"):
        sys.exit("cheating_cli.py: --provider FILE is required; --then is ok, hang, garbage or fail")
    if args.grandchild:  # a grandchild in a session of its own: out of the call's process group
        import subprocess

        subprocess.Popen(
            [sys.executable, "-c", "import os, time; os.setsid(); time.sleep(3600)", args.grandchild]
        )
    number = _call_number(args.counter)
    cost = args.cost
    if args.first_free:
        cost = min(args.cap, (number - 1) * args.rise)
    if args.max_budget is not None and not args.ignore_flag:
        cost = min(cost, args.max_budget)
    deadline = time.monotonic() + 120  # a test that never releases the hold still ends
    while args.hold is not None and not os.path.exists(args.hold) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(args.sleep)
    _spend(args.provider, cost)
    if args.mix:
        args.then = ["ok", "ok", "ok", "garbage", "fail", "hang"][number % 6]
    if args.fail_after and number > args.fail_after:
        args.then = "fail"
    if args.then == "hang":
        time.sleep(3600)
    if args.then == "garbage":
        print("{not json at all")
        return 0
    if args.then == "fail":
        print("upstream error", file=sys.stderr)
        return 1
    print(
        json.dumps(
            {
                "result": f"answer to {args.prompt[:20]}",
                "usage": {"input_tokens": 1},
                "total_cost_usd": cost if args.report is None else args.report,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
