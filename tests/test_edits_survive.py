"""Every line a person wrote survives a re-import: a property, and a fuzz run in the attack's style.

A module is imported from random cases (hostile criteria: quotes, backslashes,
marker look-alikes, line separators, long text); a person edits it at random
(helpers, extra checks, edited bodies, comments, in random regions and in the
preamble, sometimes then running a formatter over it); the source changes at random (reworded,
renamed, removed, reordered, added criteria and cases); it is imported again,
with or without --prune, sometimes bringing a dialect (whose helpers replace
the preamble's generated part). Then every line the person wrote is in the new module
exactly once. The one exception is the rule of --prune itself: a generated check
of a pruned case is removed even when a person edited its body; every other line
of a pruned case's regions moves to the end, once.

`ADHD_EVALS_FUZZ=2000` runs 2,000 re-imports (default: a few dozen) and prints the counts.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adhd_evals.errors import OutputError
from adhd_evals.importing.dialect import load
from adhd_evals.importing.importer import Request, import_sources
from helpers import FIXTURES

HOSTILE = [
    "Names the version",
    "Mentions dark mode",
    "Says 'yes' and \"no\"",
    "Ends with a backslash \\",
    "# adhd-evals: check 0123456789abcdef 0123456789abcdef",
    'Three quotes """ inside',
    "Line\u2028separator and \x0c form feed",
    "Ünïcödé 漢字 wide",
    "A very long criterion that goes on and on past the width a formatter allows " * 2,
    "x",
]


@dataclass
class Case:
    id: str
    prompt: str
    criteria: list[Any]

    def row(self) -> dict[str, Any]:
        return {"id": self.id, "prompt": self.prompt, "assertions": self.criteria}


def _criterion(rng: random.Random) -> Any:
    text = rng.choice(HOSTILE) + rng.choice(["", f" {rng.randint(0, 9)}"])
    if rng.random() < 0.25:
        return {"text": text, "kind": "content_contains_any", "needles": [rng.choice(HOSTILE)[:20], "n"]}
    return text


def make_cases(rng: random.Random) -> list[Case]:
    count = rng.randint(1, 5)
    return [
        Case(
            f"c{i}-{rng.randint(0, 99)}",
            f"prompt {i} {rng.random()}",
            [_criterion(rng) for _ in range(rng.randint(1, 4))],
        )
        for i in range(count)
    ]


@dataclass
class Person:
    """The lines a person wrote, and which generated checks they edited (by case id)."""

    lines: list[str] = field(default_factory=list)
    edited_in: dict[str, str] = field(default_factory=dict)  # person line -> case id of an edited check
    count: int = 0


_MARKER = re.compile(r"^# adhd-evals: (preamble|case|check) ", re.MULTILINE)


def hand_edit(text: str, rng: random.Random, person: Person, ids: list[str]) -> str:
    """One random edit of the kinds the attack used."""
    person.count += 1
    n = f"{person.count}"
    kind = rng.choice(["helper", "check", "body", "comment", "trailing", "preamble"])
    if kind == "preamble":  # an import and a helper of the person's own, inside the preamble
        lines = [f"import textwrap as textwrap_{n}  # p{n}"]
        helper = [f"def preamble_helper_{n}(answer: str) -> str:", f"    return answer  # p{n}"]
        person.lines += lines + helper
        text = text.replace("\nimport re\n", "\nimport re\n" + lines[0] + "\n", 1)
        return text.replace("\n\ndef unwritten(", "\n\n" + "\n".join(helper) + "\n\n\ndef unwritten(", 1)
    if kind == "body":
        generated = [
            m.start() for m in re.finditer(r"^def check_.*\n    return (unwritten|contains)", text, re.M)
        ]
        if generated:
            start = text.index("\n    return ", rng.choice(generated)) + 1
            end = text.index("\n", start)
            if text[end - 1] == "(":  # a return wrapped over lines: up to its closing parenthesis
                end = text.index("\n    )", start) + len("\n    )")
            case_id = _decorated_case(text, start)
            line = f"    return 'e{n}' in answer  # p{n}"
            person.lines.append(line)
            if case_id is not None:
                person.edited_in[line] = case_id
            return text[:start] + line + text[end:]
        kind = "helper"
    if kind == "helper":
        lines = [f"def person_{n}(answer: str) -> bool:", f"    return 'h{n}' in answer  # p{n}"]
    elif kind == "check":
        owner = json.dumps(rng.choice(ids))
        lines = [
            f"@check({owner}, 'mine {n}')",
            f"def mine_{n}(answer: str) -> bool:",
            f"    return True  # p{n}",
        ]
    else:
        lines = [f"# a note of mine p{n}"]
    person.lines += lines
    block = "\n\n" + "\n".join(lines) + "\n\n\n"
    if kind == "trailing":
        return text + block
    markers = [m.start() for m in _MARKER.finditer(text)]
    at = text.index("\n", rng.choice(markers)) + 1
    return text[:at] + block + text[at:]


def _decorated_case(text: str, at: int) -> str | None:
    """The case id the @check above position `at` registers (as generated: double-quoted, or single)."""
    above = text[:at].rsplit("@check(", 1)
    if len(above) < 2:
        return None
    try:
        import ast

        call = ast.parse("f(" + above[1].split(")\ndef ", 1)[0] + ")").body[0]
        return ast.literal_eval(call.value.args[0])  # type: ignore[attr-defined,no-any-return]
    except (SyntaxError, ValueError, AttributeError, IndexError):
        return None


def change_source(cases: list[Case], rng: random.Random) -> list[Case]:
    changed = [Case(c.id, c.prompt, list(c.criteria)) for c in cases]
    for _ in range(rng.randint(1, 3)):
        change = rng.choice(["reword", "rename", "remove", "reorder", "add", "criterion", "drop"])
        target = rng.choice(changed) if changed else None
        if change == "reword" and target is not None:
            i = rng.randrange(len(target.criteria))
            item = target.criteria[i]
            text = item["text"] if isinstance(item, dict) else item
            reworded = rng.choice([text + " (reworded)", text.upper(), text.replace(" ", "  "), "Quite new"])
            target.criteria[i] = dict(item, text=reworded) if isinstance(item, dict) else reworded
        elif change == "rename" and target is not None:
            target.id = target.id + "-renamed"
        elif change == "remove" and len(changed) > 1:
            changed.remove(target)  # type: ignore[arg-type]
        elif change == "reorder":
            rng.shuffle(changed)
        elif change == "add":
            changed.append(
                Case(f"new-{rng.randint(0, 10**6)}", f"new prompt {rng.random()}", [_criterion(rng)])
            )
        elif change == "criterion" and target is not None:
            target.criteria.insert(rng.randint(0, len(target.criteria)), _criterion(rng))
        elif change == "drop" and target is not None and len(target.criteria) > 1:
            target.criteria.pop(rng.randrange(len(target.criteria)))
    return changed


def _import(tmp: Path, cases: list[Case], prune: bool = False, dialect: bool = False) -> Any:
    source = tmp / "evals.json"
    source.write_text(json.dumps({"skill_name": "s", "evals": [c.row() for c in cases]}))
    chosen = load(DIALECT, "dialect.yaml") if dialect else None
    return import_sources("evals-json", [source], Request(out=tmp / "out", prune=prune), dialect=chosen)


DIALECT = FIXTURES / "evals-json/good/dialect-typed/dialect.yaml"


def _formatter() -> list[str] | None:
    found = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    return [found, "format", "--isolated", "-q"] if Path(found).exists() else None


@dataclass
class Counts:
    reimports: int = 0
    person_lines: int = 0
    lost: int = 0
    duplicated: int = 0
    pruned_edits: int = 0  # lines of edited generated checks of pruned cases, removed as --prune says
    refused: int = 0
    name_errors: int = 0
    formatted: int = 0
    dialects: int = 0  # re-imports that brought a dialect (and its helpers) over the preamble
    problems: list[str] = field(default_factory=list)


def one_round(tmp: Path, rng: random.Random, counts: Counts, *, formatter: list[str] | None = None) -> None:
    """Import, edit by hand, change the source, import again; count what happened to the person's lines."""
    shutil.rmtree(tmp / "out", ignore_errors=True)
    cases = make_cases(rng)
    _import(tmp, cases)
    module = tmp / "out" / "checks.py"
    person = Person()
    text = module.read_text()
    for _ in range(rng.randint(1, 4)):
        text = hand_edit(text, rng, person, [c.id for c in cases])
    module.write_text(text)
    if formatter is not None and rng.random() < 0.3:
        subprocess.run([*formatter, str(module)], check=False, capture_output=True, timeout=60)
        counts.formatted += 1
        formatted = module.read_text()
        person.lines = [_formatted_line(line, formatted) for line in person.lines]
        person.edited_in = {_formatted_line(k, formatted): v for k, v in person.edited_in.items()}
    changed, prune, dialect = change_source(cases, rng), rng.random() < 0.4, rng.random() < 0.2
    counts.reimports += 1
    counts.dialects += dialect
    try:
        _import(tmp, changed, prune=prune, dialect=dialect)
    except OutputError as refused:
        counts.refused += 1
        counts.problems.append(f"refused: {refused}")
        return
    after = module.read_text()
    lines = after.split("\n")
    gone = {c.id for c in cases} - {c.id for c in changed}
    for line in person.lines:
        counts.person_lines += 1
        found = lines.count(line)
        if found == 0 and prune and person.edited_in.get(line) in gone:
            counts.pruned_edits += 1
        elif found == 0:
            counts.lost += 1
            counts.problems.append(f"lost {line!r}")
        elif found > 1:
            counts.duplicated += 1
            counts.problems.append(f"duplicated {line!r}")
    namespace: dict[str, Any] = {}
    try:
        exec(compile(after, "checks.py", "exec"), namespace)
        for checks in namespace["CHECKS"].values():
            for _, function in checks:
                function("an answer")
    except NameError as exc:
        counts.name_errors += 1
        counts.problems.append(f"NameError: {exc}")


def _formatted_line(line: str, formatted: str) -> str:
    """A person's line after ruff format: its quotes may change ('x' becomes "x")."""
    if line in formatted.split("\n"):
        return line
    return line.replace("'", '"')


@pytest.mark.long
@settings(
    max_examples=int(os.environ.get("ADHD_EVALS_FUZZ", "40")) // 2 or 1,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_every_line_a_person_wrote_is_in_the_new_module_once(tmp_path_factory: Any, seed: int) -> None:
    tmp = tmp_path_factory.mktemp("edits")
    counts = Counts()
    one_round(tmp, random.Random(seed), counts)
    assert (counts.lost, counts.duplicated, counts.name_errors, counts.refused) == (0, 0, 0, 0), (
        counts.problems
    )


@pytest.mark.long
def test_hostile_reimports_at_scale(tmp_path: Path) -> None:
    """The attack's style: many re-imports with edits, some reformatted by ruff in between.
    `ADHD_EVALS_FUZZ=2000` for the full run; the counts are printed (pytest -s)."""
    rounds = int(os.environ.get("ADHD_EVALS_FUZZ", "20"))
    counts = Counts()
    rng = random.Random(21)
    formatter = _formatter()
    for _ in range(rounds):
        one_round(tmp_path, rng, counts, formatter=formatter)
    print(
        f"\n{counts.reimports} re-imports, {counts.person_lines} lines a person wrote: {counts.lost} lost, "
        f"{counts.duplicated} duplicated, {counts.pruned_edits} removed with a pruned case's edited check, "
        f"{counts.refused} refused, {counts.name_errors} NameErrors, {counts.formatted} reformatted by ruff "
        f"before the re-import, {counts.dialects} bringing a dialect"
    )
    assert (counts.lost, counts.duplicated, counts.name_errors, counts.refused) == (0, 0, 0, 0), (
        counts.problems[:5]
    )
