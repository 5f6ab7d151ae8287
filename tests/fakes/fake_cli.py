"""A small fake model CLI for runner tests: answers in each response format,
fails N times before succeeding, reports cost (honouring a budget flag), sleeps,
hangs, floods, spawns a grandchild, reads its prompt from stdin, and appends
every call to a file so tests can count them.

    fake_cli.py [--format text|claude-json|codex-jsonl] [--cost USD|nan]
                [--fail-times N --state FILE [--fail-cost USD]]
                [--sleep S] [--hang] [--max-budget USD] [--calls FILE] [--grandchild MARKER]
                [--flood BYTES] [--stdin] [--numbered] [--hold FILE] [PROMPT]

--numbered adds the call's number (its line in --calls) to the answer, so repeated
calls of one prompt answer differently (as a model sampling at temperature does).
--hold FILE keeps each call from answering until FILE exists (at most 120 s), so a test
knows the run is still going (a fixed --sleep does not, on a loaded machine).
"""

from __future__ import annotations

# Only what every call needs is imported at the top: the suite starts this script hundreds
# of times, and json, subprocess and pathlib would nearly double each start's CPU time.
import os
import sys
import time
import zlib

from _argv import Convert, parse

OPTIONS: dict[str, tuple[Convert, object]] = {
    "--format": (str, "text"),
    "--cost": (str, None),
    "--fail-times": (int, 0),
    "--fail-cost": (str, None),
    "--state": (str, None),
    "--sleep": (float, 0.0),
    "--max-budget": (float, None),
    "--calls": (str, None),
    "--grandchild": (str, None),
    "--flood": (int, 0),
    "--hold": (str, None),
}
FLAGS = ("--hang", "--stdin", "--numbered")


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _print_json(value: object) -> None:
    import json

    print(json.dumps(value))


def main() -> int:
    args = parse(sys.argv[1:], OPTIONS, FLAGS)
    prompt = sys.stdin.read() if args.stdin else args.prompt
    if args.calls is not None:  # one line per call, appended whole (O_APPEND)
        import json

        with open(args.calls, "a", encoding="utf-8") as calls:
            calls.write(json.dumps({"pid": os.getpid(), "prompt": prompt, "budget": args.max_budget}) + "\n")
    if args.grandchild:  # a process of its own group that outlives nothing it should
        import subprocess

        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", args.grandchild])
    if args.hang:
        time.sleep(3600)
    if args.fail_times and args.state is not None:
        count = int(_read(args.state)) if os.path.exists(args.state) else 0
        if count < args.fail_times:
            with open(args.state, "w", encoding="utf-8") as state:
                state.write(str(count + 1))
            print(f"upstream overloaded (attempt {count + 1})", file=sys.stderr)
            if args.fail_cost is not None:  # as claude does: is_error, and what the attempt cost
                _print_json(
                    {"is_error": True, "result": "overloaded", "total_cost_usd": float(args.fail_cost)}
                )
            return 3
    time.sleep(args.sleep)
    deadline = time.monotonic() + 120
    while args.hold is not None and not os.path.exists(args.hold) and time.monotonic() < deadline:
        time.sleep(0.02)
    if args.flood:
        sys.stdout.write("x" * args.flood)
        return 0
    digest = f"{zlib.crc32(prompt.encode('utf-8', 'surrogatepass')):08x}"
    text = f"answer {digest}" + (" <task> seen" if "<task>" in prompt else "")
    if args.numbered and args.calls is not None:
        text += f" call {len(_read(args.calls).splitlines())}"
    if args.max_budget is not None:
        text += f" budget={args.max_budget:.4f}"
    cost = None if args.cost is None else float(args.cost)
    if cost is not None and args.max_budget is not None:
        cost = min(cost, args.max_budget)  # a CLI that honours its budget flag never spends past it
    if args.format == "claude-json":
        payload: dict[str, object] = {"result": text, "usage": {"input_tokens": 10, "output_tokens": 5}}
        if cost is not None:
            payload["total_cost_usd"] = cost
        _print_json(payload)
    elif args.format == "codex-jsonl":
        _print_json({"type": "item.completed", "item": {"type": "agent_message", "text": text}})
        _print_json({"type": "turn.completed", "usage": {"input_tokens": 7, "output_tokens": 3}})
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
