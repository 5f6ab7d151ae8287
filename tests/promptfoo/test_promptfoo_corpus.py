"""The real promptfoo configs in ../shared/corpus/promptfoo: each imports or is refused precisely,
and promptfoo's own echo run renders every prompt of every imported config as we do.

The census (printed with -s) is the issue's report: configs imported, cases,
mechanical checks, prose criteria, placeholders by assertion type, and how
many configs promptfoo agrees with on every rendered prompt. For promptfoo's
run, a copy of the config drops what would stop promptfoo before it renders
(a `redteam:` section asks for an e-mail address) and sends model graders
named in it (`ollama:...`) to the echo provider (they fail at once instead of
after minutes of retries): neither changes a rendered prompt.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import promptfoo_cli
import pytest

from adhd_evals.importing.importer import read_source
from adhd_evals.importing.model import CheckKind, ImportResult, Refusal
from helpers import CORPUS

pytestmark = pytest.mark.corpus
BASE = CORPUS / "promptfoo"
if not (BASE / "MANIFEST.tsv").is_file():
    pytest.skip("../shared/corpus/promptfoo is not here (a user's clone has none)", allow_module_level=True)
CONFIGS = [
    row.split("\t")[0]
    for row in (BASE / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]
    if row.split("\t")[4] == "config"
]


def _import(config: str) -> ImportResult | Refusal:
    try:
        return read_source("promptfoo", BASE / config)
    except Refusal as refusal:
        return refusal


@pytest.mark.parametrize("config", CONFIGS)
def test_corpus_config_imports_or_is_refused_precisely(config: str) -> None:
    found = _import(config)
    if isinstance(found, Refusal):
        assert found.field_path and found.actual, found.message  # which field, and what was there
        assert found.case or found.field_path in ("prompts", "tests", "(top level)") or found.line, (
            found.message
        )
        return
    assert found.cases and all(case.prompt.strip() for case in found.cases)


def census(results: dict[str, ImportResult | Refusal]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for found in results.values():
        if isinstance(found, Refusal):
            counts[f"refused {found.code.value}"] += 1
            continue
        counts["configs imported"] += 1
        counts["cases"] += len(found.cases)
        for check in (c for case in found.cases for c in case.checks):
            if check.kind is not CheckKind.UNWRITTEN:
                counts["mechanical checks"] += 1
            elif check.via:
                counts[f"placeholders: {check.via.removeprefix('promptfoo ')}"] += 1
            else:
                counts["prose criteria"] += 1
    return counts


@pytest.mark.long
def test_corpus_census() -> None:
    counts = census({config: _import(config) for config in CONFIGS})
    print(json.dumps(dict(sorted(counts.items())), indent=2))
    assert counts["configs imported"] + sum(v for k, v in counts.items() if k.startswith("refused")) == len(
        CONFIGS
    )
    assert counts["mechanical checks"] > 0 and counts["prose criteria"] > 0


def _runnable_copy(config: str, work: Path) -> Path:
    top = config.split("/")[0]
    source = BASE / top
    if source.is_dir():
        shutil.copytree(source, work / top)
    else:
        shutil.copy(source, work / top)
    copy = work / config
    text = copy.read_text(encoding="utf-8")
    if "\nredteam:" in text:
        text = text.split("\nredteam:")[0] + "\n"  # the section is last in the corpus
    copy.write_text(re.sub(r"ollama:[\w:.-]+", "echo", text), encoding="utf-8")
    return copy


def test_promptfoo_renders_every_corpus_prompt_as_we_do(tmp_path: Path) -> None:
    """About 18 promptfoo runs (three minutes on two cores): on with ADHD_EVALS_PROMPTFOO_CORPUS=1."""
    if os.environ.get("ADHD_EVALS_PROMPTFOO_CORPUS") != "1":
        pytest.skip("set ADHD_EVALS_PROMPTFOO_CORPUS=1 to run promptfoo on every corpus config")
    main, why = promptfoo_cli.find()
    if main is None:
        pytest.skip(why)
    imported = {c: r for c in CONFIGS if isinstance(r := _import(c), ImportResult)}

    def run(config: str) -> tuple[str, list[dict[str, Any]] | str]:
        work = tmp_path / str(abs(hash(config)))
        work.mkdir()
        try:
            return config, promptfoo_cli.run_echo(main, _runnable_copy(config, work), work)
        except Exception as exc:  # promptfoo itself fails on the config: reported, not compared
            return config, f"{type(exc).__name__}: {str(exc)[:300]}"

    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = dict(pool.map(run, imported))
    agreed, report = 0, []
    for config, results in runs.items():
        if isinstance(results, str):
            report.append(f"promptfoo did not run {config}: {results}")
            continue
        cases = imported[config].cases
        differ = [c.id for c, r in zip(cases, results, strict=False) if c.prompt != r["prompt"]["raw"]]
        if len(cases) == len(results) and not differ:
            agreed += 1
        else:
            report.append(
                f"{config}: {len(cases)} cases, {len(results)} results, prompts differ: {differ[:5]}"
            )
    print(f"promptfoo agrees on every rendered prompt of {agreed} of {len(imported)} imported configs")
    print("\n".join(report))
    assert not [line for line in report if "prompts differ" in line], report
