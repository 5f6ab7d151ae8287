"""A fake agent CLI that prints a real-shaped event stream: Claude Code's
`claude -p --output-format stream-json --verbose`, or `codex exec --json`
(shapes as fixtures/traces/ holds them, from each tool's documentation).

    trace_cli.py [--format claude-stream-json|codex-jsonl] [--skill NAME]
                 [--trigger-on WORD] [--write PATH] [--cost USD] PROMPT

It invokes the skill NAME (Claude: the Skill tool, input {"skill": NAME};
codex: a shell command reading the skill's SKILL.md) when the prompt holds
WORD (any letter case), then runs `ls`, then writes PATH when given, then answers.
Deterministic: the same prompt always gets the same transcript.
"""

from __future__ import annotations

import json
import sys
import zlib

from _argv import Convert, parse

OPTIONS: dict[str, tuple[Convert, object]] = {
    "--format": (str, "claude-stream-json"),
    "--skill": (str, "demo-skill"),
    "--trigger-on": (str, None),
    "--write": (str, None),
    "--cost": (float, 0.01),
}
SESSION = "5f1c2a9e-3b7d-4c1e-9a0f-2d6e8b4c7a11"
MODEL = "claude-sonnet-4-5-20250929"


def _emit(event: dict[str, object]) -> None:
    print(json.dumps(event, separators=(",", ":")))


def _steps(skill: str, triggered: bool, write: str | None) -> list[tuple[str, dict[str, object]]]:
    steps: list[tuple[str, dict[str, object]]] = [("Skill", {"skill": skill})] if triggered else []
    steps.append(("Bash", {"command": "ls", "description": "List the files"}))
    if write is not None:
        steps.append(("Write", {"file_path": write, "content": "notes\n"}))
    return steps


def _claude(steps: list[tuple[str, dict[str, object]]], text: str, cost: float) -> None:
    _emit({"type": "system", "subtype": "init", "cwd": "/tmp/eval-work", "session_id": SESSION,
           "tools": ["Bash", "Read", "Write", "Skill"], "mcp_servers": [], "model": MODEL,
           "permissionMode": "bypassPermissions", "apiKeySource": "none"})  # fmt: skip
    for at, (name, value) in enumerate(steps, start=1):
        use = f"toolu_01{at:022d}"
        block = {"type": "tool_use", "id": use, "name": name, "input": value}
        message = {"id": f"msg_01{at:022d}", "type": "message", "role": "assistant", "model": MODEL,
                   "content": [block], "stop_reason": None, "stop_sequence": None,
                   "usage": {"input_tokens": 4, "output_tokens": 20}}  # fmt: skip
        _emit({"type": "assistant", "message": message, "parent_tool_use_id": None, "session_id": SESSION})
        result = {"tool_use_id": use, "type": "tool_result", "content": "ok"}
        _emit({"type": "user", "message": {"role": "user", "content": [result]},
               "parent_tool_use_id": None, "session_id": SESSION})  # fmt: skip
    final = {"id": "msg_01final", "type": "message", "role": "assistant", "model": MODEL,
             "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}  # fmt: skip
    _emit({"type": "assistant", "message": final, "parent_tool_use_id": None, "session_id": SESSION})
    _emit({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1200,
           "num_turns": len(steps) + 1, "result": text, "session_id": SESSION, "total_cost_usd": cost,
           "usage": {"input_tokens": 16, "output_tokens": 60}})  # fmt: skip


def _codex(steps: list[tuple[str, dict[str, object]]], text: str) -> None:
    _emit({"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"})
    _emit({"type": "turn.started"})
    for at, (name, value) in enumerate(steps):
        if name == "Write":
            change = {"path": value["file_path"], "kind": "add"}
            item: dict[str, object] = {"id": f"item_{at}", "type": "file_change", "changes": [change],
                                       "status": "completed"}  # fmt: skip
        else:
            command = f"cat ~/.codex/skills/{value['skill']}/SKILL.md" if name == "Skill" else "ls"
            item = {"id": f"item_{at}", "type": "command_execution", "command": f"bash -lc '{command}'",
                    "aggregated_output": "", "exit_code": None, "status": "in_progress"}  # fmt: skip
            _emit({"type": "item.started", "item": item})
            item = {**item, "aggregated_output": "ok\n", "exit_code": 0, "status": "completed"}
        _emit({"type": "item.completed", "item": item})
    _emit({"type": "item.completed", "item": {"id": "item_end", "type": "agent_message", "text": text}})
    _emit(
        {
            "type": "turn.completed",
            "usage": {"input_tokens": 900, "cached_input_tokens": 0, "output_tokens": 30},
        }
    )


def main() -> int:
    args = parse(sys.argv[1:], OPTIONS)
    word = args.trigger_on
    triggered = word is not None and word.casefold() in args.prompt.casefold()
    steps = _steps(args.skill, triggered, args.write)
    text = f"answer {zlib.crc32(args.prompt.encode('utf-8', 'surrogatepass')):08x}"
    if args.format == "codex-jsonl":
        _codex(steps, text)
    else:
        _claude(steps, text, args.cost)
    return 0


if __name__ == "__main__":
    sys.exit(main())
