"""Import benchmarks: each figure next to its floor, measured in the same run.

    python tests/bench/run.py [--only import|module|lint|runs|cached-run|shards|dialect|sources|realistic|realistic-memory|startup|help-terminal|report|check|paired|ppi] [--lint-rows 50000,200000,1000000] [--realistic 10000,200000] [--memory-cases 1000000] [--cases 50000] [--yaml-files 5000]
                              [--module-cases 10000] [--edited 100] [--repeat 3]

Import figures are the median wall time of whole processes (interpreter
start included on both sides), so the ratio compares like with like; peak
memory is the child's own maximum resident set. Check-module figures are
in-process, against Python's own `ast.parse` of the same module. Not a test: it asserts nothing and
prints the targets beside the ratios for a person to read.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# The child's own peak memory. Not ru_maxrss: on Linux it survives exec, so a
# child would report the size of this (large) parent process.
PEAK = (
    "print('PEAK_KB', next(l.split()[1] for l in open('/proc/self/status')"
    " if l.startswith('VmHWM')), file=sys.stderr)\n"
)

# Runs the real CLI, then reports the process's peak memory on stderr.
CLI = (
    "import resource, sys\n"
    "from adhd_evals.entry import main\n"
    "code = main(sys.argv[1:])\n" + PEAK + "sys.exit(code)\n"
)

JSON_FLOOR = (
    "import json, resource, sys\n"
    "with open(sys.argv[1], encoding='utf-8') as f: data = json.load(f)\n"
    "out = sys.stdout\n"
    "for case in data['evals']:\n"
    "    criteria = [a if isinstance(a, str) else a.get('text') or json.dumps(a) for a in case['assertions']]\n"
    "    out.write(json.dumps({'id': str(case['id']), 'category': data['skill_name'],\n"
    "        'prompt': case['prompt'], 'risk': 'medium', 'criteria': criteria},\n"
    "        ensure_ascii=False) + '\\n')\n" + PEAK
)

JSON_LOAD_FLOOR = "import json, sys\nwith open(sys.argv[1], encoding='utf-8') as f: json.load(f)\n" + PEAK

YAML_FLOOR = (
    "import resource, sys, yaml\n"
    "from pathlib import Path\n"
    "for path in sorted(Path(sys.argv[1]).glob('*.yaml')):\n"
    "    yaml.load(path.read_text(encoding='utf-8'), Loader=yaml.CSafeLoader)\n" + PEAK
)


PROMPTFOO_FLOOR = (
    "import json, resource, sys, yaml\n"
    "with open(sys.argv[1], encoding='utf-8') as f: data = yaml.load(f, Loader=yaml.CSafeLoader)\n"
    "out = sys.stdout\n"
    "for test in data['tests']:\n"
    "    for prompt in data['prompts']:\n"
    "        text = prompt\n"
    "        for key, value in test['vars'].items(): text = text.replace('{{ ' + key + ' }}', value)\n"
    "        out.write(json.dumps({'id': test['description'], 'category': 'bench', 'prompt': text, 'risk': 'medium',\n"
    "            'criteria': [a['type'] + ': ' + a['value'] for a in test['assert']]}, ensure_ascii=False) + '\\n')\n"
    + PEAK
)


def make_promptfoo_config(path: Path, tests: int) -> None:
    """`tests` inline tests x 2 prompts, two vars and two assertions each (issue 23's size: 10,000)."""
    lines = [
        "prompts:",
        '  - "Answer about {{ topic }} for {{ name }}."',
        '  - "Explain {{ topic }} to {{ name }}, briefly."',
        "tests:",
    ]
    for n in range(tests):
        lines += [
            f"  - description: case {n}",
            "    vars:",
            f"      topic: topic number {n}",
            f"      name: Person {n % 97}",
            "    assert:",
            "      - type: contains",
            f"        value: number {n}",
            "      - type: icontains",
            "        value: PERSON",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def bench_promptfoo(repeat: int, tests: int) -> None:
    """Import of a promptfoo config against yaml.load (C loader) plus json.dumps of the rendered cases."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "promptfooconfig.yaml"
        make_promptfoo_config(source, tests)
        floor = timed([py, "-c", PROMPTFOO_FLOOR, str(source)], repeat)
        report(f"yaml.load + json.dumps, {tests} tests x 2 prompts", floor, None, "(floor)")
        argv = [py, "-c", CLI, "import", "--format", "promptfoo", str(source)]
        report("  import --format promptfoo to stdout", timed(argv, repeat), floor, "<= 3x (issue 23)")


def make_evals_json(path: Path, count: int) -> None:
    cases = []
    for n in range(count):
        assertions: list[object] = [f"Explains step {n} of the migration", "Keeps the answer short"]
        if n % 3 == 0:
            assertions.append(
                {
                    "text": "Names the flag",
                    "kind": "content_contains_any",
                    "needles": ["--legacy", f"--mode-{n}"],
                }
            )
        cases.append(
            {
                "id": n + 1,
                "prompt": f"Case {n}: migrate the config of service {n} to v2 and explain.",
                "expected_output": "A migrated config and a two-line explanation.",
                "files": [f"configs/{n}.toml"],
                "assertions": assertions,
            }
        )
    path.write_text(json.dumps({"skill_name": "bench", "evals": cases}, indent=2), encoding="utf-8")


def make_yaml_dir(folder: Path, count: int) -> None:
    folder.mkdir()
    for n in range(count):
        (folder / f"task_{n:05d}.yaml").write_text(
            f"name: Task {n}\n"
            f"task: Go to https://example.com/{n} and return the title of the first article.\n"
            "judge_context:\n  - The agent must open the page\n  - The output must contain the exact title\n"
            "max_steps: 10\n"
            f"source_id: site_{n}\n"
            "keyless:\n  start_url: https://example.com\n  expected_domains: [example.com]\n"
            "  fields:\n    - name: title\n      selectors: ['main h1', 'h1']\n"
            "  reviewed_at: 2026-08-12\n",
            encoding="utf-8",
        )


def timed(
    argv: list[str], repeat: int, before: Callable[[], object] | None = None, allowed: tuple[int, ...] = (0,)
) -> tuple[float, int]:
    """Median seconds of `repeat` runs, and the largest peak memory in KiB (exit codes but
    `allowed` stop the benchmark)."""
    times, peaks = [], []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode not in allowed:
            sys.exit(f"benchmark command failed: {' '.join(argv)}\n{done.stderr}")
        peaks += [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_KB")]
    return statistics.median(times), max(peaks, default=0)


def report(label: str, ours: tuple[float, int], floor: tuple[float, int] | None, target: str) -> None:
    seconds, peak = ours
    line = f"{label:<44} {seconds:7.3f} s  peak {peak / 1024:6.1f} MiB"
    if floor is not None:
        line += f"   floor {floor[0]:7.3f} s  ratio {seconds / floor[0]:5.2f}x"
    print(f"{line}   target {target}")


def best_of(repeat: int, action: Callable[[], object]) -> float:
    """Median in-process seconds of `repeat` runs of `action`."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def line(label: str, seconds: float, floor: float, target: str) -> None:
    print(
        f"{label:<44} {seconds:7.3f} s   floor {floor:7.3f} s  ratio {seconds / floor:5.2f}x   target {target}"
    )


def bench_check_module(cases: int, edited: int, repeat: int) -> None:
    """Generation, merge and placeholder listing, each against ast.parse of the module."""
    import ast

    from adhd_evals.importing.importer import read_source, render_module
    from adhd_evals.importing.merge import merge
    from adhd_evals.lint.placeholders import find_placeholders

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "evals.json"
        make_evals_json(source, cases)
        result = read_source("evals-json", source)
        module = render_module(result)
        print(f"check module: {cases} cases, {module.count(chr(10))} lines")
        floor = best_of(repeat, lambda: ast.parse(module))
        line("generate the module", best_of(repeat, lambda: render_module(result)), floor, "<= 3x")
        existing = _edit_checks(module, edited)
        changed = read_source("evals-json", _grow(source, tmp))
        merged, _ = merge(existing, changed)
        mfloor = best_of(repeat, lambda: ast.parse(merged))
        line(
            f"re-import into it, {edited} checks edited",
            best_of(repeat, lambda: merge(existing, changed)),
            mfloor,
            "<= 10x",
        )
        line(
            "list unwritten(...) placeholders",
            best_of(repeat, lambda: find_placeholders(merged)),
            mfloor,
            "<= 2x",
        )


def _edit_checks(module: str, count: int) -> str:
    """The module with `count` placeholders turned into hand-written checks."""
    parts = module.split("return unwritten(", count)
    return "return 'edited by hand' in answer or unwritten(".join(parts)


def _grow(source: Path, tmp: str) -> Path:
    """The same source with one more case and one changed prompt: a typical re-import."""
    data = json.loads(source.read_text())
    data["evals"][0]["prompt"] += " (revised)"
    data["evals"].append({"id": len(data["evals"]) + 1, "prompt": "A new case.", "assertions": ["New"]})
    grown = Path(tmp) / "grown.json"
    grown.write_text(json.dumps(data))
    return grown


LINT_FLOOR = (
    "import json, sys\nwith open(sys.argv[1], 'rb') as f:\n    for line in f: json.loads(line)\n" + PEAK
)


def _catalog(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            out.write(
                json.dumps(
                    {
                        "id": f"case-{n}",
                        "category": "bench",
                        "prompt": f"Question {n}: what is {n} * 6?",
                        "risk": "low",
                        "criteria": [f"Answers {n * 6}.", "Shows no working."],
                    }
                )
                + "\n"
            )


def bench_lint(repeat: int, sizes: list[int]) -> None:
    """The pre-commit path (whole processes) and throughput on a large catalog."""
    py = sys.executable
    tool = str(Path(py).with_name("adhd-evals"))
    checker = shutil.which("check-jsonschema", path=str(Path(py).parent)) or shutil.which("check-jsonschema")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        small = work / "evals" / "cases.jsonl"
        small.parent.mkdir()
        _catalog(small, 20)
        hook = timed([tool, "lint", str(small)], max(repeat, 15))
        bare = timed([py, "-c", "pass"], max(repeat, 15))
        report("python -c pass", bare, None, "(floor)")
        if checker:
            array = work / "cases.json"
            array.write_text(json.dumps([json.loads(line) for line in small.read_text().splitlines()]))
            schema = work / "array.schema.json"
            case_schema = Path(__file__).resolve().parents[2] / "schemas" / "case.schema.json"
            schema.write_text(
                json.dumps(
                    {
                        "$schema": "https://json-schema.org/draft/2020-12/schema",
                        "type": "array",
                        "items": json.loads(case_schema.read_text()),
                    }
                )
            )
            peer = timed([checker, "--schemafile", str(schema), str(array)], max(repeat, 15))
            report("check-jsonschema on the same 20 cases", peer, None, "(peer)")
            report("lint evals/cases.jsonl (20 cases)", hook, peer, "<= 0.6x check-jsonschema, < 150 ms")
        else:
            print("check-jsonschema not installed (pip install -e '.[bench]'): peer figure skipped")
            report("lint evals/cases.jsonl (20 cases)", hook, bare, "< 150 ms")
        for rows in sizes:
            big = work / "big.jsonl"
            _catalog(big, rows)
            floor = timed([py, "-c", LINT_FLOOR, str(big)], repeat)
            report(f"json.loads per line, {rows} cases", floor, None, "(floor)")
            entry = (
                "import sys\nfrom adhd_evals.entry import main\ncode = main(sys.argv[1:])\n"
                + PEAK
                + "sys.exit(code)\n"
            )
            report(
                f"lint the catalog of {rows} cases",
                timed([py, "-c", entry, "lint", str(big)], repeat),
                floor,
                "<= 1.3x, peak <= 64 MiB (issues 15, 38)",
            )
            # CPU time too, the two interleaved: on a shared machine the wall clock is the load's
            (_, floor_cpu), (_, lint_cpu) = interleaved(
                [[py, "-c", LINT_FLOOR, str(big)], [py, "-c", CLI, "lint", str(big)]], repeat
            )
            print(
                f"{'  CPU (user+sys), least of ' + str(repeat):<44} {lint_cpu:7.3f} s"
                f"{'':17}   floor {floor_cpu:7.3f} s  ratio {lint_cpu / floor_cpu:5.2f}x   target <= 1.3x"
            )
            big.unlink()
        # The other sources a hook lints: one large evals.json, and a folder of YAML cases.
        source = work / "skill" / "evals" / "evals.json"
        source.parent.mkdir(parents=True)
        realistic_evals_json(source, 10_000)
        floor = timed([py, "-c", JSON_LOAD_FLOOR, str(source)], repeat)
        report("json.load of a 10,000-case realistic evals.json", floor, None, "(floor)")
        report(
            "lint that evals.json",
            timed([py, "-c", CLI, "lint", str(source)], repeat, allowed=(0, 1)),
            floor,
            "reported",
        )
        folder = work / "tasks"
        make_yaml_dir(folder, 2_000)
        yfloor = timed([py, "-c", YAML_FLOOR, str(folder)], repeat)
        report("CSafeLoader on 2,000 YAML files", yfloor, None, "(floor)")
        report(
            "lint that folder",
            timed([py, "-c", CLI, "lint", str(folder)], repeat, allowed=(0, 1)),
            yfloor,
            "reported",
        )


FAKE_CLI = """#!/bin/sh
sleep 0.05
printf '{"result": "ok", "usage": {"input_tokens": 1, "output_tokens": 1}, "total_cost_usd": 0}'
"""


def bench_runs(calls: int, repeat: int) -> None:
    """`run` against a fake CLI that sleeps 50 ms: --jobs 1 vs --jobs 8, and overhead per call."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        fake = work / "fake-cli"
        fake.write_text(FAKE_CLI)
        fake.chmod(0o755)
        cases = work / "cases.jsonl"
        cases.write_text(
            "".join(
                json.dumps(
                    {"id": f"c{n}", "category": "b", "prompt": f"Q{n}", "risk": "low", "criteria": ["x"]}
                )
                + "\n"
                for n in range(calls)
            )
        )
        config = work / "runners.json"
        # As claude's own runner is configured: it is told its share of the budget (--max-budget-usd).
        spec = {"command": [str(fake)], "response_format": "claude-json", "budget_flag": "--max-budget-usd"}
        config.write_text(json.dumps({"fake": spec}))
        bare_code = (
            "import subprocess, sys\n"
            f"for n in range({calls}): subprocess.run([sys.argv[1], 'Q' + str(n)], capture_output=True)\n"
        )
        bare = timed([py, "-c", bare_code, str(fake)], 1)

        def run_with(jobs: int) -> tuple[float, int]:
            out = work / f"out-{jobs}.jsonl"
            argv = [
                py,
                "-m",
                "adhd_evals",
                "run",
                "--runner",
                "fake",
                "--runner-config",
                str(config),
                "--condition",
                "baseline",
                "--cases",
                str(cases),
                "--trials",
                "1",
                "--jobs",
                str(jobs),
                "--output",
                str(out),
            ]
            times = []
            for _ in range(repeat):
                out.unlink(missing_ok=True)
                times.append(timed(argv, 1)[0])
            return statistics.median(times), 0

        serial, parallel = run_with(1), run_with(8)
        report(f"bare subprocess.run loop, {calls} calls", bare, None, "(floor)")
        report("run --jobs 1", serial, bare, "reported")
        print(f"{'runner overhead per call':<44} {(serial[0] - bare[0]) / calls * 1000:7.2f} ms")
        print(
            f"{'run --jobs 8':<44} {parallel[0]:7.3f} s   speed-up over --jobs 1: "
            f"{serial[0] / parallel[0]:5.2f}x   target >= 7.5x (issue 38)"
        )
        bench_parallel_floor(fake, calls, bare, parallel, repeat)


MERGE_FLOOR = (
    "import json, sys\n"
    "for name in sys.argv[1:]:\n"
    "    with open(name, 'rb') as f:\n"
    "        for line in f: json.loads(line)\n" + PEAK
)
CACHE_FLOOR = (
    "import json, os, sys\n"
    "for folder in os.scandir(sys.argv[1]):\n"
    "    for entry in os.scandir(folder.path):\n"
    "        with open(entry.path, 'rb') as f: json.loads(f.read())\n" + PEAK
)


def _shards(work: Path, count: int, per_shard: int) -> list[Path]:
    """`count` shard outputs of about `per_shard` rows each (two conditions, one trial), with
    the sidecars `run --shard` writes, split by the real hash."""
    from adhd_evals.runs.calling.shard import SIDECAR_SUFFIX, ids_sha256, sealed, shard_of

    cases = [f"case-{n:07d}" for n in range(count * per_shard // 2)]
    runner = {
        "name": "fake",
        "command": ["fake"],
        "response_format": "claude-json",
        "budget_flag": None,
        "prompt_via": "argv",
    }
    parts: list[list[tuple[int, str]]] = [[] for _ in range(count)]
    for at, case_id in enumerate(cases):
        parts[shard_of(case_id, count) - 1].append((at, case_id))
    paths = []
    answer = "A model's reply of a realistic length, " * 5
    for k, part in enumerate(parts, start=1):
        path = work / f"shard-{k}.jsonl"
        with path.open("w") as out:
            for condition in ("baseline", "candidate"):
                for _, case_id in part:
                    out.write(
                        sealed(
                            "bench",
                            json.dumps(
                                {
                                    "case_id": case_id,
                                    "trial": 1,
                                    "condition": condition,
                                    "runner": "fake",
                                    "response": answer,
                                    "usage": {"input_tokens": 10, "output_tokens": 50},
                                    "cost_usd": 0.0123,
                                    "elapsed_s": 4.2,
                                }
                            ).encode(),
                        ).decode()
                        + "\n"
                    )
        places = [at for at, _ in part]
        runs = {
            f"{c} fake": {
                "condition": c,
                "runner": runner,
                "trials": 1,
                "skill_sha256": None,
                "places": places,
            }
            for c in ("baseline", "candidate")
        }
        record = {
            "adhd_evals_shard": 3,
            "shard": f"{k}/{count}",
            "index": k,
            "count": count,
            "catalog_sha256": "bench",
            "plan": {"cases": len(cases), "sha256": ids_sha256(cases)},
            "places": places,
            "ids": [c for _, c in part],
            "runs": runs,
        }
        (work / (path.name + SIDECAR_SUFFIX)).write_text(json.dumps(record))
        paths.append(path)
    return paths


def bench_scale(hits: int, shards: int, per_shard: int, repeat: int) -> None:
    """Cache hits against the same run without the cache; merge against a json.loads loop."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _catalog(work / "cases.jsonl", hits)
        base = [
            py,
            "-c",
            CLI,
            "run",
            "--runner",
            "stub",
            "--condition",
            "baseline",
            "--cases",
            str(work / "cases.jsonl"),
            "--trials",
            "1",
            "--output",
            str(work / "out.jsonl"),
        ]
        fresh = lambda: (work / "out.jsonl").unlink(missing_ok=True)  # noqa: E731
        subprocess.run([*base, "--cache", str(work / "cache")], capture_output=True, check=True)  # fill it
        uncached = timed(base, repeat, before=fresh)
        cached = timed([*base, "--cache", str(work / "cache")], repeat, before=fresh)
        reading = timed([py, "-c", CACHE_FLOOR, str(work / "cache" / "v2")], repeat)
        report(f"run, stub, {hits} rows, no cache", uncached, None, "(floor)")
        report(f"run, stub, {hits} rows, every row a cache hit", cached, uncached, "reported")
        report(f"  reading the {hits} entries alone (json.loads)", reading, None, "(floor of the reads)")
        per_hit = (cached[0] - uncached[0]) / hits * 1000
        print(f"{'cache hit overhead per row':<44} {per_hit:7.3f} ms   target < 2 ms")
        paths = _shards(work, shards, per_shard)
        floor = timed([py, "-c", MERGE_FLOOR, *map(str, paths)], repeat)
        merged = timed(
            [py, "-c", CLI, "merge", *map(str, paths), "--output", str(work / "merged.jsonl")], repeat
        )
        report(f"json.loads loop, {shards} shards x {per_shard} rows", floor, None, "(floor)")
        report("merge", merged, floor, "<= 2x")


TYPED = [
    "contains",
    "not_contains",
    "regex",
    "contains_any",
    "contains_all",
    "min_length",
    "max_length",
    "min_words",
    "max_words",
    "starts_with",
    "equals",
    "ordered_content",
    "content_contains",
    "content_regex",
    "is_json",
    "llm_judge",
    "behavioral",
    "not_regex",
    "exact",
    "in_order",
]


def make_typed_evals_json(path: Path, count: int) -> None:
    """Cases with typed assertion objects of 20 shapes, as real files carry them."""
    cases = []
    for n in range(count):
        typed = TYPED[n % len(TYPED)], TYPED[(n * 7 + 3) % len(TYPED)]
        assertions: list[object] = [f"Explains step {n} of the migration"]
        for kind in typed:
            value: object = (
                n % 50 + 1
                if "length" in kind or "words" in kind
                else ["alpha", f"beta-{n}"]
                if kind in ("contains_any", "contains_all", "ordered_content", "in_order")
                else f"^step {n}"
                if "regex" in kind
                else f"needle {n}"
            )
            assertions.append({"type": kind, "value": value, "description": f"{kind} check {n}"})
        cases.append(
            {
                "id": n + 1,
                "prompt": f"Case {n}: migrate the config of service {n} to v2 and explain.",
                "assertions": assertions,
            }
        )
    path.write_text(json.dumps({"skill_name": "bench", "evals": cases}, indent=2), encoding="utf-8")


def write_bench_dialect(path: Path) -> None:
    checks = {
        "contains": "contains",
        "not_contains": "contains_none",
        "regex": "regex",
        "contains_any": "contains_any",
        "contains_all": "contains_all",
        "min_length": "min_chars",
        "max_length": "max_chars",
        "min_words": "min_words",
        "max_words": "max_words",
        "starts_with": "starts_with",
        "equals": "equals",
        "ordered_content": "in_order",
        "content_contains": "contains",
        "content_regex": "regex",
        "is_json": "is_json",
        "llm_judge": "unwritten",
        "behavioral": "unwritten",
        "not_regex": "not_regex",
        "exact": "matches_exactly",
        "in_order": "in_order",
    }
    lines = ["adhd-evals-dialect: 1", "format: evals-json", "assertions:"]
    for kind, check in checks.items():
        lines += [f"  - when: {{type: {kind}}}", f"    check: {check}", "    criterion: description"]
        if check not in ("is_json", "unwritten"):
            lines.append("    needle: value")
        if check not in (
            "min_chars",
            "max_chars",
            "min_words",
            "max_words",
            "is_json",
            "unwritten",
            "matches_exactly",
        ):
            lines.append("    case: insensitive")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def bench_dialect(cases: int, repeat: int) -> None:
    """import --dialect (20 rules) and survey, against the plain import of the same file."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        source, dialect_file = Path(tmp) / "evals.json", Path(tmp) / "dialect.yaml"
        make_typed_evals_json(source, cases)
        write_bench_dialect(dialect_file)
        plain = timed([py, "-c", CLI, "import", "--format", "evals-json", str(source)], repeat)
        report(f"import evals-json, {cases} typed cases (no dialect)", plain, None, "(floor)")
        report(
            "  the same with a 20-rule --dialect",
            timed(
                [
                    py,
                    "-c",
                    CLI,
                    "import",
                    "--format",
                    "evals-json",
                    str(source),
                    "--dialect",
                    str(dialect_file),
                ],
                repeat,
            ),
            plain,
            "<= 1.2x",
        )
        report(
            "  survey of the same file",
            timed([py, "-c", CLI, "survey", "--format", "evals-json", str(source)], repeat),
            plain,
            "<= 2x",
        )


def make_team_shaped_evals_json(path: Path, count: int, *, nested: bool) -> None:
    """Issue 22's shapes: a prompt one level down, type-less rubric objects, a needle list in
    the case's own keys; `nested=False` writes the same content flat in the format's documented
    shapes (the plain import's floor: as many checks and notes, no dialect)."""
    cases = []
    for n in range(count):
        rubric: list[object] = [
            f"Explains step {n} of the migration",
            {"name": f"names-{n}", "description": f"Names service {n}", "contains": f"service {n}"},
            {"name": f"tone-{n}", "description": "Calm and specific"},
        ]
        needles = ["migrat", f"v{n % 7 + 2}"]
        prompt = f"Case {n}: migrate the config of service {n} to v2 and explain."
        if nested:
            case = {
                "ticket_id": n + 1,
                "inputs": {"prompt": prompt, "locale": "en-GB"},
                "rubric": rubric,
                "expected": {"output_contains_any": needles},
            }
        else:  # the format's documented shapes: the same checks and notes, no dialect needed
            assertions = [
                rubric[0],
                {
                    "text": f"Names service {n}",
                    "kind": "content_contains_all",
                    "needles": [f"service {n}"],
                    "name": f"names-{n}",
                },
                {"text": "Calm and specific", "name": f"tone-{n}"},
                {"kind": "content_contains_any", "needles": needles},
            ]
            case = {"id": n + 1, "prompt": prompt, "locale": "en-GB", "assertions": assertions}
        cases.append(case)
    path.write_text(json.dumps({"skill_name": "bench", "evals": cases}, indent=2), encoding="utf-8")


TEAM_DIALECT = """adhd-evals-dialect: 1
format: evals-json
cases:
  prompt: [prompt, inputs.prompt]
  id: [id, ticket_id]
  criteria:
    - "rubric[]"
    - {at: expected.output_contains_any, check: contains_any, case: insensitive, missing: skip}
assertions:
  - {has: [name, description, contains], check: contains, needle: contains, case: insensitive, criterion: description}
  - {has: [name, description], check: unwritten, criterion: description}
"""


def interleaved(argvs: list[list[str]], repeat: int) -> list[tuple[float, float]]:
    """For each command, the min wall seconds and the min CPU seconds (user + system of the
    child) over `repeat` rounds; each round runs every command once, in turn, so a load
    that comes and goes on a shared machine falls on all of them alike. The min is the
    run the machine disturbed least."""
    return [(min(wall), min(cpu)) for wall, cpu in rounds_of(argvs, repeat)]


def rounds_of(argvs: list[list[str]], repeat: int) -> list[tuple[list[float], list[float]]]:
    """For each command, its wall and CPU seconds in every round, in round order (interleaved's
    rounds, kept: a ratio taken within each round is paired against what the machine did then)."""
    walls: list[list[float]] = [[] for _ in argvs]
    cpus: list[list[float]] = [[] for _ in argvs]
    for _ in range(repeat):
        for index, argv in enumerate(argvs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(
                argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False
            )
            walls[index].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[index].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode != 0:
                sys.exit(f"benchmark command failed: {' '.join(argv)}\n{done.stderr}")
    return list(zip(walls, cpus, strict=True))


def bench_team_dialect(cases: int, repeat: int) -> None:
    """import --dialect with nested paths and has-only rules, against the plain import of
    the same content written flat (issue 22: within 1.2x). Both files hold the same cases,
    prompts, criteria and notes; they differ only where the dialect is needed (a nested
    prompt and id, type-less rubric objects, a needle list in the case's own keys, where
    the flat file has the format's documented `kind`/`needles` objects). The two imports
    alternate, `repeat` rounds (at least 5), and each figure is the min of its rounds:
    wall time, and the child's CPU time, which a loaded machine disturbs less."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        flat, nested, rules = Path(tmp) / "flat.json", Path(tmp) / "nested.json", Path(tmp) / "dialect.yaml"
        make_team_shaped_evals_json(flat, cases, nested=False)
        make_team_shaped_evals_json(nested, cases, nested=True)
        rules.write_text(TEAM_DIALECT, encoding="utf-8")
        rounds = max(repeat, 5)
        plain_argv = [py, "-c", CLI, "import", "--format", "evals-json", str(flat)]
        ours_argv = [py, "-c", CLI, "import", "--format", "evals-json", str(nested), "--dialect", str(rules)]
        (plain_wall, plain_cpu), (ours_wall, ours_cpu) = interleaved([plain_argv, ours_argv], rounds)
        print(
            f"import evals-json, {cases} team-shaped cases ({flat.stat().st_size:,} bytes flat, "
            f"{nested.stat().st_size:,} nested), min of {rounds} alternating runs; load {os.getloadavg()[0]:.1f}"
        )
        line("  flat, no dialect: wall", plain_wall, plain_wall, "(floor)")
        line("  nested, with the dialect: wall", ours_wall, plain_wall, "<= 1.2x")
        line("  flat, no dialect: CPU (user+sys)", plain_cpu, plain_cpu, "(floor)")
        line("  nested, with the dialect: CPU (user+sys)", ours_cpu, plain_cpu, "<= 1.2x")


TREE_FLOOR = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "for path in sorted(Path(sys.argv[1]).rglob('evals.json')):\n"
    "    json.loads(path.read_text(encoding='utf-8'))\n" + PEAK  # its peak memory, as the import's
)
# Issue 38's floor for a tree: read every file AND write the catalog rows (as JSON_FLOOR does
# for one file), so the import is measured against reading plus writing, not reading alone.
TREE_RW_FLOOR = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "out = sys.stdout\n"
    "for path in sorted(Path(sys.argv[1]).rglob('evals.json')):\n"
    "    data = json.loads(path.read_text(encoding='utf-8'))\n"
    "    for case in data['evals']:\n"
    "        out.write(json.dumps({'id': str(case['id']), 'category': data['skill_name'],\n"
    "            'prompt': case['prompt'], 'risk': 'medium', 'criteria': case['assertions']},\n"
    "            ensure_ascii=False) + '\\n')\n" + PEAK
)


def bench_sources(repeat: int) -> None:
    """Many sources: a 500-skill tree against json.load of every file; re-import of a
    10,000-case module with 100 edited checks whose criteria were reworded, against ast.parse."""
    import ast

    from adhd_evals.importing.importer import Request, import_sources

    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tree = work / "skills"
        for skill in range(500):
            folder = tree / f"skill-{skill:03d}" / "evals"
            folder.mkdir(parents=True)
            evals = [
                {
                    "id": n + 1,
                    "prompt": f"Skill {skill}, case {n}: migrate service {n} and explain.",
                    "assertions": [f"Explains step {n}", "Keeps it short"],
                }
                for n in range(50)
            ]
            (folder / "evals.json").write_text(
                json.dumps({"skill_name": f"skill-{skill:03d}", "evals": evals})
            )
        floor = timed([py, "-c", TREE_FLOOR, str(tree)], repeat)
        report("json.loads of 500 evals.json (25,000 cases)", floor, None, "(floor)")
        report(
            "import evals-json of the 500-skill tree",
            timed([py, "-c", CLI, "import", "--format", "evals-json", str(tree)], repeat),
            floor,
            "<= 3x",
        )
        bench_tree_read_write(tree, repeat)

        source = work / "one" / "evals" / "evals.json"
        source.parent.mkdir(parents=True)
        criteria = [[f"Criterion {n} a", f"Criterion {n} b"] for n in range(10_000)]
        cases = [{"id": n + 1, "prompt": f"Case {n}", "assertions": criteria[n]} for n in range(10_000)]
        source.write_text(json.dumps({"skill_name": "one", "evals": cases}))
        out = work / "evals"
        import_sources("evals-json", [source], Request(out=out))
        module = out / "checks.py"
        text = module.read_text()
        for n in range(0, 10_000, 100):  # 100 checks written by hand
            text = text.replace(
                f'    return unwritten("Criterion {n} a")', f"    return 'v{n}' in answer  # mine", 1
            )
        module.write_text(text)
        for n in range(0, 10_000, 100):  # and their criteria reworded upstream
            criteria[n][0] = f"Criterion {n} a, reworded"  # the list cases[n] holds
        source.write_text(json.dumps({"skill_name": "one", "evals": cases}))
        edited = text

        def reimport() -> None:
            module.write_text(edited)
            outcome = import_sources("evals-json", [source], Request(out=out))
            assert outcome.merge_report is not None and len(outcome.merge_report.retargeted) == 100

        ours = best_of(repeat, reimport)
        parse = best_of(repeat, lambda: ast.parse(edited))
        line("re-import, 100 reworded edited checks retargeted", ours, parse, "<= 3x (floor: ast.parse)")


def bench_tree_read_write(tree: Path, repeat: int) -> None:
    """The 500-skill tree's import against reading every file and writing the catalog rows
    (issue 38: <= 1.5x); both write to a pipe, as the import to stdout does."""
    py = sys.executable
    floor = timed([py, "-c", TREE_RW_FLOOR, str(tree)], repeat)
    report("read every evals.json + write the catalog rows", floor, None, "(floor)")
    argv = [py, "-c", CLI, "import", "--format", "evals-json", str(tree)]
    report("import evals-json of the 500-skill tree", timed(argv, repeat), floor, "<= 1.5x (issue 38)")
    from adhd_evals.importing.importer import import_sources

    def to_stdout() -> None:
        for piece in import_sources("evals-json", [tree]).catalog_pieces():
            piece.encode("utf-8")  # as the CLI writes it

    in_process = _cpu(repeat, functools.partial(_tree_rows, tree))
    print(f"{'  floor, in process (CPU)':<44} {in_process:7.3f} s")
    line("  import of the tree, in process (CPU)", _cpu(repeat, to_stdout), in_process, "(the core call)")
    bench_tree_phases(tree, repeat)


def bench_tree_phases(tree: Path, repeat: int) -> None:
    """The tree's core call, phase by phase, in CPU time (least of `repeat`, the collector paused
    as the CLI pauses it): the walk for every evals.json, each file read and parsed (bytes, UTF-8,
    strict JSON), the whole read (walk and parse included: the phases before are their shares), and
    the catalog's pieces made and encoded."""
    from adhd_evals.catalog import catalog_chunks
    from adhd_evals.collector import collector_paused
    from adhd_evals.importing import importer, sourcetext
    from adhd_evals.importing.model import RefusalCode

    files = importer.expand("evals-json", [tree])
    cases = importer.read_sources("evals-json", [tree]).cases

    def parse() -> None:
        for path in files:
            text = sourcetext.decode_utf8(sourcetext.read_bytes(path, "x"), "x", RefusalCode.NOT_JSON, "")
            sourcetext.load_json(text, "x")

    phases: list[tuple[str, Callable[[], object]]] = [
        ("walk", lambda: importer.expand("evals-json", [tree])),
        ("read and parse each file", parse),
        ("whole read, all included", lambda: importer.read_sources("evals-json", [tree])),
        ("catalog pieces", lambda: [piece.encode("utf-8") for piece in catalog_chunks(cases)]),
    ]
    with collector_paused():
        for label, action in phases:
            print(f"{'    tree: ' + label + ' (CPU)':<44} {_cpu(repeat, action):7.3f} s")


def _tree_rows(tree: Path) -> None:
    """TREE_RW_FLOOR's work in this process (its rows encoded, as a pipe would take them)."""
    for path in sorted(tree.rglob("evals.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["evals"]:
            row = {"id": str(case["id"]), "category": data["skill_name"], "prompt": case["prompt"]}
            row |= {"risk": "medium", "criteria": case["assertions"]}
            (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")


_WORDS = (
    "migrate",
    "service",
    "config",
    "explain",
    "release",
    "notes",
    "version",
    "check",
    "answer",
    "deploy",
)
_FOREIGN = ("café", "naïve", "東京", "データ", "설정", "Größe", "résumé", "проверка", "日本語", "übersicht")


def _words(rng: random.Random, low: int, high: int) -> str:
    """Between `low` and `high` characters of words, about 6% of them non-ASCII."""
    words: list[str] = []
    size = rng.randint(low, high)
    length = 0  # a running total: summing the words each time made 1,000,000 cases take minutes
    while length < size:
        words.append(rng.choice(_FOREIGN) if rng.random() < 0.06 else rng.choice(_WORDS))
        length += len(words[-1]) + 1
    return " ".join(words)


def realistic_evals_json(path: Path, count: int, seed: int = 7) -> None:
    """Cases as real files carry them: prompts of 200-2,000 characters with about 6% non-ASCII
    words, string and object assertions mixed (seeded, so every run measures the same input)."""
    rng = random.Random(seed)
    text = functools.partial(_words, rng)

    cases = []
    for n in range(count):
        assertions: list[object] = [text(20, 80) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.4:
            assertions.append({"text": text(20, 60), "type": "behavioral"})
        if rng.random() < 0.2:
            assertions.append({"type": "contains", "value": rng.choice(_WORDS)})
        cases.append(
            {
                "id": n + 1,
                "prompt": text(200, 2000),
                "expected_output": text(40, 200),
                "assertions": assertions,
            }
        )
    path.write_text(json.dumps({"skill_name": "bench", "evals": cases}, ensure_ascii=False), encoding="utf-8")


def bench_realistic(repeat: int, sizes: list[int]) -> None:
    """Import of realistic text (issue 15's inputs) against json.load + json.dumps."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for count in sizes:
            source = work / f"real-{count}.json"
            realistic_evals_json(source, count)
            floor = timed([py, "-c", JSON_FLOOR, str(source)], repeat)
            report(f"json.load + json.dumps, {count} realistic cases", floor, None, "(floor)")
            # Past the default --max-bytes (256 MiB) at 200,000 cases: raise it, as a user would.
            argv = [py, "-c", CLI, "import", "--format", "evals-json", str(source), "--max-bytes", str(2**31)]
            report("  import to stdout", timed(argv, repeat), floor, "<= 1.5x (issue 38)")
            out = work / f"out-{count}"
            report(
                "  import --out",
                timed(
                    [*argv, "--out", str(out)],
                    repeat,
                    before=functools.partial(shutil.rmtree, out, ignore_errors=True),
                ),
                floor,
                "<= 1.5x (issue 38)",
            )
            if count <= 10_000:  # in this process: the larger sizes would hold it all at once
                bench_realistic_cpu(source, out, repeat)


def bench_realistic_memory(sizes: list[int]) -> None:
    """Peak memory of the import to stdout beside the floor's (issue 38: within 1.3x at 1,000,000
    realistic cases, about 1.4 GB of JSON), one run of each: peaks barely vary, and a run of
    1,000,000 cases takes a minute and some 6 GiB."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        for count in sizes:
            source = Path(tmp) / f"real-{count}.json"
            realistic_evals_json(source, count)
            floor = timed([py, "-c", JSON_FLOOR, str(source)], 1)
            report(f"json.load + json.dumps, {count} realistic cases", floor, None, "(floor)")
            argv = [py, "-c", CLI, "import", "--format", "evals-json", str(source), "--max-bytes", str(2**32)]
            ours = timed(argv, 1)
            report("  import to stdout", ours, floor, "(one run)")
            ratio = ours[1] / floor[1]
            print(f"{'  peak memory, import / floor':<44} {ratio:7.2f}x   target <= 1.3x (issue 38)")
            source.unlink()


def _floor_rows(source: Path) -> None:
    """JSON_FLOOR's work in this process (its rows encoded, as a pipe would take them)."""
    with source.open(encoding="utf-8") as f:
        data = json.load(f)
    for case in data["evals"]:
        criteria = [a if isinstance(a, str) else a.get("text") or json.dumps(a) for a in case["assertions"]]
        row = {"id": str(case["id"]), "category": data["skill_name"], "prompt": case["prompt"]}
        row |= {"risk": "medium", "criteria": criteria}
        (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")


def _cpu(repeat: int, action: Callable[[], object], before: Callable[[], object] | None = None) -> float:
    """The least CPU time (time.process_time: this process only, whatever else the machine runs)
    of `repeat` runs of `action`."""
    spent = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.process_time()
        action()
        spent.append(time.process_time() - start)
    return min(spent)


def bench_realistic_cpu(source: Path, out: Path, repeat: int) -> None:
    """The import's core call against the floor's work, both in this process, in CPU time: start-up
    (another figure) and the shared machine's load left out."""
    from adhd_evals.importing.importer import Request, import_sources

    def to_stdout() -> None:
        for piece in import_sources("evals-json", [source]).catalog_pieces():
            piece.encode("utf-8")  # as the CLI writes it

    floor = _cpu(repeat, functools.partial(_floor_rows, source))
    print(f"{'  floor, in process (CPU)':<44} {floor:7.3f} s")
    line("  import to stdout, in process (CPU)", _cpu(repeat, to_stdout), floor, "(the core call)")
    again = functools.partial(shutil.rmtree, out, ignore_errors=True)
    ours = _cpu(repeat, lambda: import_sources("evals-json", [source], Request(out=out)), again)
    line("  import --out, in process (CPU)", ours, floor, "(the core call)")
    bench_realistic_out_phases(source, out, repeat)


def bench_realistic_out_phases(source: Path, out: Path, repeat: int) -> None:
    """What `--out` adds to the stdout import, phase by phase, in CPU time (least of `repeat`): the
    catalog's and the check module's pieces made and encoded (and, of the latter, the BLAKE2s
    hashes its markers and names carry), the record of sources, and the atomic write of all three (hashes for the manifest, writes, fsync, renames; wall time beside,
    as fsync waits on the disk, not the CPU)."""
    from adhd_evals.catalog import catalog_chunks
    from adhd_evals.collector import collector_paused
    from adhd_evals.importing import checkgen, importer
    from adhd_evals.output import write_all_atomically

    result = importer.read_sources("evals-json", [source])
    catalog, module = list(catalog_chunks(result.cases)), list(checkgen.render_pieces(result))
    # The hashes the module's markers and names carry, on the texts the generation hashes (the part
    # of it no layout can remove: each is output, at its own digest size).
    marked = [unit.text for unit in checkgen.units(result)]
    criteria = [check.criterion for case in result.cases for check in case.checks]
    ids = [case.id for case in result.cases]
    phases: list[tuple[str, Callable[[], object]]] = [
        ("catalog pieces", lambda: [piece.encode("utf-8") for piece in catalog_chunks(result.cases)]),
        (
            "check module generation",
            lambda: [piece.encode("utf-8") for piece in checkgen.render_pieces(result)],
        ),
        (
            "  of which its BLAKE2s hashes",
            lambda: (
                [checkgen.fingerprint(text) for text in marked],
                [checkgen._key_and_short(text) for text in criteria],
                [checkgen.short_hash(text) for text in ids],
            ),
        ),
        (
            "sources record",
            lambda: importer._with_left_out(importer._sources_record("evals-json", [source], out), result),
        ),
    ]
    texts = {out / importer.CATALOG_NAME: catalog, out / importer.MODULE_NAME: module}

    def write() -> None:
        write_all_atomically({**texts, out / importer.SOURCES_NAME: "{}\n"}, paired=True)

    again = functools.partial(shutil.rmtree, out, ignore_errors=True)
    with collector_paused():  # as the import makes and writes them
        for label, action in phases:
            print(f"{'    --out: ' + label + ' (CPU)':<44} {_cpu(repeat, action):7.3f} s")
        cpu, wall = _cpu(repeat, write, again), min(_wall(write, again) for _ in range(repeat))
    print(f"{'    --out: write, hash, fsync, rename (CPU)':<44} {cpu:7.3f} s   wall {wall:.3f} s")


def _wall(action: Callable[[], object], before: Callable[[], object]) -> float:
    before()
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _reordered(rows: Path, out: Path) -> Path:
    """`rows`' lines in reverse order: the same rows in a file of other bytes."""
    out.write_text(
        "".join(reversed(rows.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8"
    )
    return out


def bench_startup(repeat: int) -> None:
    """Every command a user runs often, on a tiny input, against `python -c pass`."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tiny = work / "tiny.json"
        realistic_evals_json(tiny, 3)
        tiny_out = work / "tiny-out"
        subprocess.run(
            [py, "-m", "adhd_evals", "import", "--format", "evals-json", str(tiny), "--out", str(tiny_out)],
            capture_output=True,
            check=True,
        )
        ids = [json.loads(line)["id"] for line in (tiny_out / "cases.jsonl").read_text().splitlines()]
        answers = tiny_out / "responses.jsonl"
        answers.write_text(
            "".join(
                json.dumps(
                    {"case_id": i, "trial": 1, "condition": c, "runner": "r", "response": "An answer."}
                )
                + "\n"
                for i in ids
                for c in ("baseline", "candidate")
            )
        )
        run = work / "run"
        run.mkdir()
        _report_run(run, 3, trials=1)
        bare = timed([py, "-c", "pass"], repeat * 3)
        report("python -c pass", bare, None, "(floor)")
        cases = str(tiny_out / "cases.jsonl")
        alone = work / "alone" / "cases.jsonl"  # the same catalog with nothing beside it
        alone.parent.mkdir()
        shutil.copyfile(cases, alone)
        tasks = work / "tasks"
        make_yaml_dir(tasks, 3)
        commands = {
            # the hook's usual input: the catalog as import writes it, checks.py and the sources
            # record beside it; pre-commit passes both files when both changed
            "lint (hook: catalog + checks.py)": ["lint", cases, str(tiny_out / "checks.py")],
            "lint (catalog beside checks.py)": ["lint", cases],
            "lint (catalog alone)": ["lint", str(alone)],
            "lint (evals.json)": ["lint", str(tiny)],
            "lint (YAML folder)": ["lint", str(tasks)],
            "validate": ["validate", cases],
            "import (3 cases)": ["import", "--format", "evals-json", str(tiny)],
            "survey": ["survey", "--format", "evals-json", str(tiny)],
            "plan": ["plan", "--cases", cases, "--trials", "1"],
            "check": ["check", str(answers), "--cases", cases, "--suite", str(tiny_out / "checks.py")],
            "score": ["score", str(run / "scores.jsonl")],
            "blind": [
                "blind",
                str(run / "responses.jsonl"),
                "--sheet",
                str(work / "sheet.jsonl"),
                "--key",
                str(work / "key.jsonl"),
                "--cases",
                str(run / "cases.jsonl"),
            ],
            "report (markdown)": [
                "report",
                "--cases",
                str(run / "cases.jsonl"),
                "--responses",
                str(run / "responses.jsonl"),
                "--scores",
                str(run / "scores.jsonl"),
                "--out",
                str(work / "r.md"),
                "--format",
                "markdown",
            ],
            "run (stub runner)": [
                "run",
                "--runner",
                "stub",
                "--condition",
                "baseline",
                "--cases",
                cases,
                "--output",
                str(work / "run-out.jsonl"),
                "--trials",
                "1",
            ],
            "judge (stub judge)": [
                "judge",
                str(work / "sheet.jsonl"),
                "--runner",
                "stub",
                "--cases",
                str(run / "cases.jsonl"),
                "--output",
                str(work / "judged.jsonl"),
            ],
            # the person's sheet: the same rows in another order (agree refuses one file on both sides)
            "agree": [
                "agree",
                str(_reordered(run / "scores.jsonl", work / "person.jsonl")),
                str(run / "scores.jsonl"),
            ],
            "verdicts": [
                "verdicts",
                "--cases",
                str(run / "cases.jsonl"),
                "--checks",
                str(run / "checks.jsonl"),
                "--out",
                str(work / "verdicts.jsonl"),
            ],
            "--version": ["--version"],
            # help is pre-rendered where rich's width is 80 or more, plain off a terminal and in
            # colour on one, else typer's (docs/startup.md): the CPU figures run with stdin
            # closed; for the wall figures run the benchmark with </dev/null (at a terminal:
            # --only help-terminal)
            "validate --help": ["validate", "--help"],
            "score --help": ["score", "--help"],
            "--help (the listing)": ["--help"],
        }
        # CPU time (user + system) of each process, the fastest run: what a loaded machine does not
        # inflate as it does wall time (docs/startup.md)
        bare_cpu = _cpu_best([py, "-c", "pass"], repeat * 6)
        for label, argv in commands.items():  # run and judge resume: the first call does the work
            target = "<= 4x (the hook, issue 38)" if label.startswith("lint (hook") else "<= 5x (issue 38)"
            report(
                f"  start-up: {label}",
                timed([py, "-m", "adhd_evals", *argv], repeat * 3, allowed=(0, 1)),
                bare,
                target,
            )
            cpu = _cpu_best([py, "-m", "adhd_evals", *argv], repeat * 3)
            print(
                f"    CPU, fastest of {repeat * 3}: {cpu * 1000:.0f} ms, ratio {cpu / bare_cpu:.2f}x "
                f"(python -c pass {bare_cpu * 1000:.0f} ms)"
            )


def bench_help_terminal(repeat: int) -> None:
    """Every command's --help where people type it, at a terminal: an 80-column pseudo-terminal
    (TERM=xterm-256color), beside `python -c pass` on the same terminal; the median wall time and
    the least CPU time (user + system) of each (docs/startup.md)."""
    from adhd_evals.cli.declare_help import environment, in_terminal, names

    py = sys.executable
    env = environment(TERM="xterm-256color")
    runs = repeat * 3

    def measured(argv: list[str]) -> tuple[float, float]:
        walls, cpus = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            code, written = in_terminal(argv, columns=80, env=env)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if code != 0:
                sys.exit(f"benchmark command failed: {' '.join(argv)}\n{written.decode(errors='replace')}")
        return statistics.median(walls), min(cpus)

    bare_wall, bare_cpu = measured([py, "-c", "pass"])
    line("python -c pass (at a terminal)", bare_wall, bare_wall, "(floor)")
    for name in names():
        argv = [name, "--help"] if name else ["--help"]
        wall, cpu = measured([py, "-m", "adhd_evals", *argv])
        line(f"  at a terminal: {' '.join(argv)}", wall, bare_wall, "<= 5x (issue 38)")
        print(
            f"    CPU, fastest of {runs}: {cpu * 1000:.0f} ms, ratio {cpu / bare_cpu:.2f}x "
            f"(python -c pass {bare_cpu * 1000:.0f} ms)"
        )
    print(f"  load {os.getloadavg()[0]:.1f}; python tests/bench/run.py --only help-terminal")


def _cpu_best(argv: list[str], repeat: int) -> float:
    """The least user + system CPU seconds of `repeat` runs of `argv` (getrusage of children)."""
    import resource

    best = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def _report_run(work: Path, cases: int, trials: int, seed: int = 11) -> None:
    """A finished comparison: catalog, responses, check results and scores (seeded)."""
    rng = random.Random(seed)
    text = functools.partial(_words, rng)

    catalog, responses, checks, scores = [], [], [], []
    for n in range(cases):
        case_id = f"case-{n:05d}"
        catalog.append(
            {
                "id": case_id,
                "category": "bench",
                "prompt": text(200, 800),
                "risk": "medium",
                "criteria": [text(20, 60) for _ in range(2)],
            }
        )
        for trial in range(1, trials + 1):
            for condition in ("baseline", "candidate"):
                key = {"case_id": case_id, "trial": trial, "condition": condition}
                responses.append({**key, "runner": "bench", "response": text(100, 600)})
                checks.append(
                    {
                        **key,
                        "runner": "bench",
                        "criterion": catalog[-1]["criteria"][0],
                        "check": "c",
                        "status": rng.choice(("pass", "pass", "fail", "unwritten")),
                    }
                )
                marks = {
                    m: rng.randint(1, 5)
                    for m in ("correctness", "autonomy", "actionability", "safety", "concision")
                }
                scores.append({**key, **marks, "blocker": False, "notes": ""})
    for name, rows in (("cases", catalog), ("responses", responses), ("checks", checks), ("scores", scores)):
        (work / f"{name}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )


READ_RESPONSES = (
    "import sys\nfrom adhd_evals.runs.judging.check import read_responses\nread_responses(__import__('pathlib').Path(sys.argv[1]))\n"
    + PEAK
)


def bench_report(cases: int, repeat: int) -> None:
    """The report against `score` on the same scores plus reading the responses (issue 13),
    its size, and how long headless Chromium takes to render it."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _report_run(work, cases, trials=3)
        files = {name: str(work / f"{name}.jsonl") for name in ("cases", "responses", "checks", "scores")}
        scoring = [py, "-c", CLI, "score", files["scores"], "--checks", files["checks"], "--json"]
        score = timed(scoring, repeat, allowed=(0, 1))  # exit 1: the gate fails on this data, as on many
        reading = timed([py, "-c", READ_RESPONSES, files["responses"]], repeat)
        floor = (score[0] + reading[0], max(score[1], reading[1]))
        report(f"score + reading responses, {cases} cases x 3 x 2", floor, None, "(floor)")
        out = work / "report.html"
        argv = [
            "report",
            "--cases",
            files["cases"],
            "--responses",
            files["responses"],
            "--checks",
            files["checks"],
            "--scores",
            files["scores"],
            "--out",
            str(out),
        ]
        report("  report --out report.html", timed([py, "-c", CLI, *argv], repeat), floor, "<= 3x (issue 13)")
        md = work / "report.md"
        report(
            "  report --format markdown",
            timed([py, "-c", CLI, *argv[:-1], str(md), "--format", "markdown"], repeat),
            floor,
            "reported",
        )
        print(
            f"  report size: {out.stat().st_size / 2**20:.1f} MiB HTML, {md.stat().st_size / 1000:.1f} kB Markdown"
        )
        full = work / "full.html"
        subprocess.run([py, "-c", CLI, *argv[:-1], str(full), "--full"], check=True, capture_output=True)
        print(
            f"  report --full size: {full.stat().st_size / 2**20:.1f} MiB HTML (every case, every response)"
        )
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        if browser is None:
            print("  Chromium load: skipped (no chromium on PATH; apt-get install -y chromium)")
            return
        bench_chromium(browser, work, argv, repeat)


def bench_chromium(browser: str, work: Path, argv: list[str], repeat: int) -> None:
    """Load time in headless Chromium (start-up included, --dump-dom: parsed and laid out) of the
    large run's default report against the 3-case demo's, interleaved so a passing load falls on
    both (issue 38: within 3x)."""
    demo = work / "demo"
    demo.mkdir()
    _report_run(demo, 3, trials=3)
    small = demo / "report.html"
    subprocess.run(
        [
            sys.executable,
            "-c",
            CLI,
            "report",
            *(f"--{n}={demo / n}.jsonl" for n in ("cases", "responses", "checks", "scores")),
        ]
        + ["--out", str(small)],
        check=True,
        capture_output=True,
    )
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--dump-dom"]
    large = Path(argv[-1])
    (demo_load, _), (large_load, _) = interleaved(
        [[browser, *flags, small.as_uri()], [browser, *flags, large.as_uri()]], repeat
    )
    report("Chromium load, 3-case demo report", (demo_load, 0), None, "(floor)")
    report(
        f"  Chromium load, default report ({large.stat().st_size / 2**20:.1f} MiB)",
        (large_load, 0),
        (demo_load, 0),
        "<= 3x (issue 38)",
    )
    print("  reproduce: python tests/bench/run.py --only report")


AST_FLOOR = "import ast, sys\nast.parse(open(sys.argv[1], encoding='utf-8').read())\n" + PEAK
ROWS_FLOOR = (
    "import json, sys\n"
    "with open(sys.argv[1], encoding='utf-8') as f: rows = [json.loads(line) for line in f]\n" + PEAK
)


def bench_check_and_score(cases: int, repeat: int) -> None:
    """`check` on cases x 3 trials against ast.parse of the module (issue 15: <= 1x, with the
    compiled module cached), and `score` against json.loads of its rows."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "real.json"
        realistic_evals_json(source, cases)
        out = work / "evals"
        subprocess.run(
            [py, "-m", "adhd_evals", "import", "--format", "evals-json", str(source), "--out", str(out)],
            capture_output=True,
            check=True,
        )
        ids = [
            json.loads(line)["id"] for line in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        responses = work / "responses.jsonl"
        rows = [
            {"case_id": i, "trial": t, "condition": "candidate", "runner": "bench", "response": f"answer {i}"}
            for i in ids
            for t in (1, 2, 3)
        ]
        responses.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        env_cache = work / "cache"
        os.environ["ADHD_EVALS_CACHE"] = str(env_cache)  # the children inherit it
        floor = timed([py, "-c", AST_FLOOR, str(out / "checks.py")], repeat)
        report(f"ast.parse of the check module, {cases} cases", floor, None, "(floor)")
        argv = [
            py,
            "-c",
            CLI,
            "check",
            str(responses),
            "--cases",
            str(out / "cases.jsonl"),
            "--suite",
            str(out / "checks.py"),
        ]
        # exit 1: every criterion is still unwritten, as after any first import
        report(
            f"  check, {len(rows)} responses (cache warm)",
            timed(argv, repeat, allowed=(0, 1)),
            floor,
            "<= 1x (issue 15)",
        )
        shutil.rmtree(env_cache, ignore_errors=True)
        report("  check, cache cold", timed(argv, 1, allowed=(0, 1)), floor, "reported")
        scores = work / "scores.jsonl"
        marks = {"correctness": 4, "autonomy": 4, "actionability": 4, "safety": 5, "concision": 4}
        scored = [
            {"case_id": i, "trial": t, "condition": c, **marks, "blocker": False, "notes": ""}
            for i in ids
            for t in (1, 2, 3)
            for c in ("baseline", "candidate")
        ]
        scores.write_text("".join(json.dumps(r) + "\n" for r in scored), encoding="utf-8")
        rfloor = timed([py, "-c", ROWS_FLOOR, str(scores)], repeat)
        report(f"json.loads of {len(scored)} score rows", rfloor, None, "(floor)")
        report(
            "  score",
            timed([py, "-c", CLI, "score", str(scores)], repeat, allowed=(0, 1)),
            rfloor,
            "reported",
        )


SCORE_FLOOR = (
    "import sys\nfrom pathlib import Path\nfrom adhd_evals.runs.deciding import score as s\n"
    "print(s.dumps(s.summarize(s.read_rows(Path(sys.argv[1])))))\n" + PEAK
)


def bench_paired(cases: int, repeat: int) -> None:
    """`score` with the paired analysis (10,000 bootstrap resamples, numpy) against the same file scored
    as before it (the reference's summary alone, `summarize` without a decision): issue 19, <= 3x."""
    py = sys.executable
    rng = random.Random(19)
    metrics = ("correctness", "autonomy", "actionability", "safety", "concision")
    with tempfile.TemporaryDirectory() as tmp:
        scores = Path(tmp) / "scores.jsonl"
        with scores.open("w", encoding="utf-8") as out:
            for n in range(cases):
                for trial in range(1, 6):
                    for condition in ("baseline", "candidate"):
                        marks = {m: rng.randint(1, 5) for m in metrics}
                        out.write(
                            json.dumps(
                                {
                                    "case_id": f"case-{n:05d}",
                                    "trial": trial,
                                    "condition": condition,
                                    **marks,
                                    "blocker": False,
                                    "notes": "",
                                }
                            )
                            + "\n"
                        )
        floor = timed([py, "-c", SCORE_FLOOR, str(scores)], repeat)
        report(f"score without the paired analysis, {cases} cases x 5 trials x 2", floor, None, "(floor)")
        argv = [py, "-c", CLI, "score", str(scores), "--json"]
        report(
            "  score --json (paired analysis)", timed(argv, repeat, allowed=(0, 1)), floor, "<= 3x (issue 19)"
        )
        paired = [py, "-c", CLI, "score", str(scores), "--gate", "paired"]
        report("  score --gate paired", timed(paired, repeat, allowed=(0, 1, 8)), floor, "<= 3x (issue 19)")


def _judged_suite(folder: Path, cases: int, labelled: int) -> tuple[Path, Path, Path]:
    """A judged blind sheet (cases x 5 trials x 2 conditions, labels A/B, the judge's fingerprint on
    every row), its key recording a random label sample of `labelled` cases, and the person's filled
    label sheet for those cases (the judge's marks, one lower on the candidate: a biased judge)."""
    from adhd_evals.runs.inference import ppi

    rng = random.Random(30)
    metrics = ("correctness", "autonomy", "actionability", "safety", "concision")
    judge = {"runner": "judge", "command": ["judge"], "model": None, "template": "0" * 64}
    ids = [f"case-{n:05d}" for n in range(cases)]
    sample = set(ppi.draw(ids, labelled, 30))
    sheet, key, person = [], [], []
    for case in ids:
        for trial in range(1, 6):
            for label, condition in zip("AB", rng.sample(["baseline", "candidate"], 2), strict=True):
                marks = {m: rng.randint(1, 5) for m in metrics}
                sheet.append(
                    {
                        "case_id": case,
                        "trial": trial,
                        "condition": label,
                        **marks,
                        "blocker": False,
                        "notes": "",
                        "judge": judge,
                    }
                )
                key.append({"case_id": case, "trial": trial, "label": label, "condition": condition})
                if case in sample:
                    lower = {m: max(1, v - (condition == "candidate")) for m, v in marks.items()}
                    person.append(
                        {
                            "case_id": case,
                            "trial": trial,
                            "condition": label,
                            **lower,
                            "blocker": False,
                            "notes": "",
                        }
                    )
    key.append({"label_sample": {"seed": 30, "method": ppi.SAMPLE_METHOD, "case_ids": sorted(sample)}})
    paths = folder / "judged.jsonl", folder / "key.jsonl", folder / "labels.jsonl"
    for path, rows in zip(paths, (sheet, key, person), strict=True):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return paths


def bench_ppi(cases: int, labelled: int, repeat: int) -> None:
    """`score --labels` (the prediction-powered figures, and the decision on them) against today's
    `score --gate paired` on the same judged file: issue 30, <= 2x."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        judged, key, labels = _judged_suite(Path(tmp), cases, labelled)
        floor_argv = [py, "-c", CLI, "score", str(judged), "--key", str(key), "--gate", "paired"]
        floor = timed(floor_argv, repeat, allowed=(0, 1, 8))
        report(f"score --gate paired, {cases} cases x 5 trials x 2", floor, None, "(floor)")
        ours = timed([*floor_argv, "--labels", str(labels)], repeat, allowed=(0, 1, 8))
        report(f"  + --labels ({labelled} labelled cases, PPI)", ours, floor, "<= 2x (issue 30)")


# Runs (issue 38 item 4): a cached run, --jobs, shards ----------------------------------------

CACHED_FLOOR = (  # read the catalog, read every entry, write a row for each: all a cached run must do
    "import json, os, sys\n"
    "with open(sys.argv[1], 'rb') as f: cases = [json.loads(line) for line in f if line.strip()]\n"
    "with open(sys.argv[3], 'w', encoding='utf-8') as out:\n"
    "    for folder in os.scandir(sys.argv[2]):\n"
    "        for entry in os.scandir(folder.path):\n"
    "            with open(entry.path, 'rb') as f: hit = json.loads(f.read())\n"
    "            out.write(json.dumps({'case_id': hit['key'], 'trial': 1, 'condition': 'baseline',\n"
    "                'runner': 'stub', 'response': hit['response'], 'usage': hit['usage'],\n"
    "                'cost_usd': hit['cost_usd'], 'elapsed_s': hit['elapsed_s'], 'cached': True}) + '\\n')\n"
    + PEAK
)
UNSYNCED = "import os, sys\nos.fsync = lambda fd: None\n" + CLI  # fills a bench cache without 10,000 fsyncs


def _runs_catalog(path: Path, count: int, seed: int = 5) -> None:
    """Cases as a realistic catalog holds them: prompts of 200-2,000 characters, about 6% of
    their words non-ASCII (seeded)."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            row = {
                "id": f"case-{n:05d}",
                "category": "bench",
                "prompt": _words(rng, 200, 2000),
                "risk": "low",
                "criteria": [_words(rng, 20, 80) for _ in range(rng.randint(1, 3))],
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def _stub_run(cases: Path, output: Path, *more: str, trials: int = 1) -> list[str]:
    return [
        sys.executable,
        "-c",
        CLI,
        "run",
        "--runner",
        "stub",
        "--condition",
        "baseline",
        "--cases",
        str(cases),
        "--trials",
        str(trials),
        "--output",
        str(output),
        *more,
    ]


def bench_cached_run(hits: int, repeat: int) -> None:
    """`run --cache` where every answer is cached, against reading the catalog and the entries
    and writing the rows (issue 38: within 2x); and the same run before its catalog was ever
    validated (the rules run once per catalog content). Alternating rounds, min of each."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(work / "xdg")  # the validation records: the bench's own
        _runs_catalog(work / "cases.jsonl", hits)
        cache, out = work / "cache", work / "out.jsonl"
        argv = _stub_run(work / "cases.jsonl", out, "--cache", str(cache))
        subprocess.run([argv[0], "-c", UNSYNCED, *argv[3:]], capture_output=True, check=True)  # fill it
        reading = [sys.executable, "-c", CACHED_FLOOR, str(work / "cases.jsonl"), str(cache / "v2"), str(out)]
        floor_argv = ["sh", "-c", f'rm -f "{out}" && exec "$@"', "sh", *reading]
        records = work / "xdg" / "adhd-evals" / "validated"
        unvalidated = ["sh", "-c", f'rm -f "{out}" && rm -rf "{records}" && exec "$@"', "sh", *argv]
        again = ["sh", "-c", f'rm -f "{out}" && exec "$@"', "sh", *argv]
        rounds = max(repeat, 5)
        (floor_wall, floor_cpu), (first, _), (ours_wall, ours_cpu) = interleaved(
            [floor_argv, unvalidated, again], rounds
        )
        print(
            f"run --cache, {hits} realistic cases, every answer cached; min of {rounds} alternating runs, "
            f"load {os.getloadavg()[0]:.1f}; python tests/bench/run.py --only cached-run --cache-hits {hits}"
        )
        line("  read catalog + entries, write rows: wall", floor_wall, floor_wall, "(floor)")
        line("  run, catalog validated before: wall", ours_wall, floor_wall, "<= 2x (issue 38)")
        line("  run, catalog never validated: wall", first, floor_wall, "reported (the rules run)")
        line("  read catalog + entries, write rows: CPU", floor_cpu, floor_cpu, "(floor)")
        line("  run, catalog validated before: CPU", ours_cpu, floor_cpu, "<= 2x (issue 38)")
        del os.environ["XDG_CACHE_HOME"]


PARALLEL_FLOOR = (  # the same calls on 8 threads, with nothing else: the speed-up this machine allows
    "import subprocess, sys\n"
    "from concurrent.futures import ThreadPoolExecutor\n"
    "with ThreadPoolExecutor(8) as pool:\n"
    "    list(pool.map(lambda n: subprocess.run([sys.argv[1], 'Q' + str(n)], capture_output=True), "
    "range(int(sys.argv[2]))))\n"
)


def bench_parallel_floor(
    fake: Path, calls: int, bare: tuple[float, int], parallel: tuple[float, int], repeat: int
) -> None:
    """The ideal is 8x; what this machine allows is the same calls on 8 bare threads."""
    threads = timed([sys.executable, "-c", PARALLEL_FLOOR, str(fake), str(calls)], repeat)
    print(
        f"{'  bare calls on 8 threads':<44} {threads[0]:7.3f} s   speed-up over the bare loop: "
        f"{bare[0] / threads[0]:5.2f}x   (the floor of --jobs 8)"
    )
    line("  run --jobs 8 against 8 bare threads", parallel[0], threads[0], "reported")
    print(f"  (python tests/bench/run.py --only runs --run-calls {calls})")


def bench_shards(cases: int, trials: int, repeat: int) -> None:
    """Four shards run one after another, then merge, against the one run they split (issue 38:
    within 1.3x): the stub runner, so the figure is adhd-evals' own overhead, no model's time.
    The warm-up run validates the catalog and writes its index, as any first run does, so each
    shard parses only its own lines (catalog.indexed)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(work / "xdg")
        _runs_catalog(work / "cases.jsonl", cases)
        subprocess.run(_stub_run(work / "cases.jsonl", work / "warm.jsonl"), capture_output=True, check=True)
        outs = [work / f"shard-{k}.jsonl" for k in range(1, 5)]
        one = _stub_run(work / "cases.jsonl", work / "one.jsonl", trials=trials)
        shards = [
            _stub_run(work / "cases.jsonl", out, "--shard", f"{k}/4", trials=trials)
            for k, out in enumerate(outs, start=1)
        ]
        merge = [sys.executable, "-c", CLI, "merge", *map(str, outs), "--output", str(work / "merged.jsonl")]
        clean = f'rm -f "{work}"/one.jsonl "{work}"/shard-* "{work}"/merged.jsonl'
        chain = " && ".join(shlex.join(argv) for argv in [*shards, merge])
        rounds = max(repeat, 5)
        (single_walls, single_cpus), (split_walls, split_cpus) = rounds_of(
            [["sh", "-c", f'{clean} && exec "$@"', "sh", *one], ["sh", "-c", f"{clean} && {chain}"]], rounds
        )
        single, single_cpu, split, split_cpu = (
            min(single_walls),
            min(single_cpus),
            min(split_walls),
            min(split_cpus),
        )
        print(
            f"run --runner stub, {cases} realistic cases x {trials} trials; min of {rounds} alternating runs, "
            f"load {os.getloadavg()[0]:.1f}; python tests/bench/run.py --only shards --shard-cases {cases} --shard-trials {trials}"
        )
        line("  one run: wall", single, single, "(floor)")
        line("  4 shards one after another + merge: wall", split, single, "<= 1.3x (issue 38)")
        line("  one run: CPU", single_cpu, single_cpu, "(floor)")
        line("  4 shards + merge: CPU", split_cpu, single_cpu, "<= 1.3x (issue 38)")
        # The mins above come from different rounds; on a VM whose speed drifts within minutes
        # (the one run's CPU moved 1.66-2.40 s in ten) the ratio of each round's pair is steadier.
        paired = sorted(split / one for split, one in zip(split_cpus, single_cpus, strict=True))
        print(
            f"  4 shards + merge: CPU, paired in each round: median {statistics.median(paired):.2f}x "
            f"(rounds {paired[0]:.2f}x to {paired[-1]:.2f}x); above one run, median "
            f"{statistics.median(s - o for s, o in zip(split_cpus, single_cpus, strict=True)):.3f} s"
        )
        subprocess.run(
            ["sh", "-c", f"{clean} && {chain}"], capture_output=True, check=True
        )  # the shards, kept
        _shards_breakdown(work, outs, trials, rounds, single_cpu, cases * trials)
        del os.environ["XDG_CACHE_HOME"]


SHARD_ROWS_FLOOR = (  # what merge must at least do: decode every row of every shard once
    "import json, sys\n"
    "for name in sys.argv[1:]:\n"
    "    with open(name, 'rb') as f: rows = [json.loads(line) for line in f]\n"
)
SHARD_ROWS_DROPPED = (  # the same decode, each row dropped once read (as merge drops it): no list of 30,000 dicts
    "import json, sys\n"
    "for name in sys.argv[1:]:\n"
    "    with open(name, 'rb') as f:\n"
    "        for line in f: json.loads(line)\n"
)
CATALOG_READ = (  # what every shard must do with the whole catalog: read it and hash it (its digest is in every seal)
    "import hashlib, sys\nwith open(sys.argv[1], 'rb') as f: hashlib.sha256(f.read()).hexdigest()\n"
)
LOADED = (  # runs the CLI, then writes the adhd_evals modules it loaded (for a floor of its imports)
    "import json, sys\n"
    "from adhd_evals.entry import main\n"
    "main(sys.argv[2:])\n"
    "with open(sys.argv[1], 'w') as out: json.dump(sorted(m for m in sys.modules if m.startswith('adhd_evals')), out)\n"
)


def _imports_of(argv: list[str], work: Path) -> list[str]:
    """A process that imports every adhd_evals module the command `argv` (a `_stub_run`) loads,
    and nothing else: its start-up and imports, without its work."""
    found = work / "loaded.json"
    subprocess.run([argv[0], "-c", LOADED, str(found), *argv[3:]], capture_output=True, check=True)
    modules = json.loads(found.read_text())
    return [sys.executable, "-c", "".join(f"import {name}\n" for name in modules)]


def _shards_breakdown(
    work: Path, outs: list[Path], trials: int, rounds: int, single_cpu: float, rows: int
) -> None:
    """Where the split's extra CPU goes: a process start-up, one shard's fixed cost (shard 2 of
    400 of the same catalog: 25 cases, its plan needing every id) beside what no shard can skip
    (its start-up and imports, the catalog read and hashed), a shard's own rows (shard 2/4 less
    that fixed cost, scaled to the run's row count) beside the one run's (less the same fixed
    cost), and the merge beside decoding every shard row once."""
    tiny = _stub_run(work / "cases.jsonl", work / "tiny.jsonl", "--shard", "2/400", trials=trials)
    second = _stub_run(work / "cases.jsonl", work / "second.jsonl", "--shard", "2/4", trials=trials)
    merge = [sys.executable, "-c", CLI, "merge", *map(str, outs), "--output", str(work / "merged.jsonl")]
    subprocess.run(["rm", "-f", f"{work}/tiny.jsonl", f"{work}/tiny.jsonl.shard.json"], check=True)
    imports = _imports_of(tiny, work)
    (_, bare), (_, fixed), (_, loaded), (_, catalog), (_, half), (_, merged), (_, floor), (_, dropped) = (
        interleaved(
            [
                [sys.executable, "-c", "pass"],
                ["sh", "-c", f'rm -f "{work}"/tiny.jsonl* && exec "$@"', "sh", *tiny],
                imports,
                [sys.executable, "-c", CATALOG_READ, str(work / "cases.jsonl")],
                ["sh", "-c", f'rm -f "{work}"/second.jsonl* && exec "$@"', "sh", *second],
                ["sh", "-c", f'rm -f "{work}"/merged.jsonl && exec "$@"', "sh", *merge],
                [sys.executable, "-c", SHARD_ROWS_FLOOR, *map(str, outs)],
                [sys.executable, "-c", SHARD_ROWS_DROPPED, *map(str, outs)],
            ],
            rounds,
        )
    )
    with outs[1].open("rb") as shard_two:  # shard 2/4's rows, as the chain above wrote them
        held = sum(1 for _ in shard_two)
    print("  where the split's CPU goes (min of the same rounds):")
    line("    python -c pass", bare, bare, "(floor)")
    line("    a shard's fixed cost (shard 2/400)", fixed, bare, "reported: four more than one run")
    line("      of it: start-up and imports", loaded, bare, "reported: the run's modules, imported")
    line("      of it: catalog read + SHA-256", catalog - bare, bare, "reported: every shard's")
    line(
        f"    shard 2/4's rows ({held}), scaled to {rows}",
        (half - fixed) * rows / held,
        single_cpu - fixed,
        "reported: the one run's rows (1x: a row costs the same sharded)",
    )
    line("    json.loads of every shard row", floor, floor, "(floor)")
    line("    merge", merged, floor, "reported")
    line("    merge, beside rows decoded, not kept", merged, dropped, "reported")
    # What 1.3x leaves room for once the shards' unskippable costs are paid: three more start-ups
    # with their imports and catalog reads, and the merge's decode of every row (with its start-up).
    least = single_cpu + 3 * (loaded + catalog - bare) + dropped
    line("    the split's least (derived: see code)", least, single_cpu, "reported: against 1.3x")


def compiled_like_an_install() -> None:
    """Byte-compile the package first, as `pip install` does (an editable install under
    PYTHONDONTWRITEBYTECODE, as on this machine, would otherwise compile every module
    on every start: 25-35 ms that no installed copy pays)."""
    import compileall

    import adhd_evals

    compileall.compile_dir(Path(adhd_evals.__file__).parent, quiet=1)
    print("(package byte-compiled first, as pip install does)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=50_000)
    parser.add_argument("--yaml-files", type=int, default=5_000)
    parser.add_argument("--module-cases", type=int, default=10_000)
    parser.add_argument("--edited", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--lint-rows",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[50_000, 200_000, 1_000_000],
    )
    parser.add_argument("--run-calls", type=int, default=200)
    parser.add_argument(
        "--only",
        choices=[
            "import",
            "promptfoo",
            "module",
            "lint",
            "runs",
            "dialect",
            "sources",
            "realistic",
            "realistic-memory",
            "startup",
            "help-terminal",
            "report",
            "check",
            "paired",
            "ppi",
            "scale",
            "cached-run",
            "shards",
        ],
        default=None,
    )
    parser.add_argument("--cache-hits", type=int, default=10_000)
    parser.add_argument("--shard-cases", type=int, default=10_000)
    parser.add_argument("--shard-trials", type=int, default=3)
    parser.add_argument(
        "--merge-shards",
        type=lambda text: [int(n) for n in text.split("x")],
        default=[8, 100_000],
        help="SHARDSxROWS, default 8x100000",
    )
    parser.add_argument("--report-cases", type=int, default=10_000)
    parser.add_argument("--paired-cases", type=int, default=10_000)
    parser.add_argument("--ppi-labelled", type=int, default=300)
    parser.add_argument(
        "--realistic", type=lambda text: [int(n) for n in text.split(",")], default=[10_000, 200_000]
    )
    parser.add_argument(
        "--memory-cases", type=lambda text: [int(n) for n in text.split(",")], default=[1_000_000]
    )
    args = parser.parse_args()
    compiled_like_an_install()
    if args.only == "realistic-memory":  # asked for by name only: a minute and 6 GiB at 1,000,000
        bench_realistic_memory(args.memory_cases)
    if args.only in (None, "paired"):
        bench_paired(args.paired_cases, args.repeat)
    if args.only in (None, "ppi"):
        bench_ppi(args.paired_cases, args.ppi_labelled, args.repeat)
    if args.only in (None, "cached-run"):
        bench_cached_run(args.cache_hits, args.repeat)
    if args.only in (None, "shards"):
        bench_shards(args.shard_cases, args.shard_trials, args.repeat)
    if args.only in (None, "scale"):
        bench_scale(args.cache_hits, args.merge_shards[0], args.merge_shards[1], args.repeat)
    if args.only in (None, "promptfoo"):
        bench_promptfoo(args.repeat, 10_000)
    if args.only in (None, "check"):
        bench_check_and_score(args.module_cases, args.repeat)
    if args.only in (None, "report"):
        bench_report(args.report_cases, args.repeat)
    if args.only in (None, "realistic"):
        bench_realistic(args.repeat, args.realistic)
    if args.only in (None, "startup"):
        bench_startup(args.repeat)
    if args.only in (None, "help-terminal"):
        bench_help_terminal(args.repeat)
    if args.only in (None, "sources"):
        bench_sources(args.repeat)
    if args.only in (None, "dialect"):
        bench_dialect(args.cases, args.repeat)
        bench_team_dialect(args.cases, args.repeat)
    if args.only in (None, "runs"):
        bench_runs(args.run_calls, args.repeat)
    if args.only in (None, "lint"):
        bench_lint(args.repeat, args.lint_rows)
    if args.only in (None, "module"):
        bench_check_module(args.module_cases, args.edited, args.repeat)
    if args.only not in (None, "import"):
        return
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "evals.json"
        make_evals_json(source, args.cases)
        floor = timed([py, "-c", JSON_FLOOR, str(source)], args.repeat)
        report(f"json.load + json.dumps, {args.cases} cases", floor, None, "(floor)")
        report(
            "import evals-json to stdout",
            timed([py, "-c", CLI, "import", "--format", "evals-json", str(source)], args.repeat),
            floor,
            "<= 3x",
        )
        out_argv = [
            py,
            "-c",
            CLI,
            "import",
            "--format",
            "evals-json",
            str(source),
            "--out",
            str(work / "out"),
        ]
        report(
            "import evals-json --out (catalog + module)",
            timed(out_argv, args.repeat, before=lambda: shutil.rmtree(work / "out", ignore_errors=True)),
            floor,
            "reported",
        )
        report("  the same again: re-import (merge)", timed(out_argv, args.repeat), floor, "reported")
        folder = work / "tasks"
        make_yaml_dir(folder, args.yaml_files)
        yfloor = timed([py, "-c", YAML_FLOOR, str(folder)], args.repeat)
        report(f"CSafeLoader on {args.yaml_files} YAML files", yfloor, None, "(floor)")
        report(
            "import yaml directory to stdout",
            timed([py, "-c", CLI, "import", "--format", "yaml", str(folder)], args.repeat),
            yfloor,
            "<= 3x",
        )


if __name__ == "__main__":
    main()
