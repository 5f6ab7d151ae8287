"""The import, callable from Python: source → ImportResult → catalog and module."""

# No `from __future__ import annotations`: Request's and _Kept's string annotations would each be
# compiled at import, the first of them setting up the compiler (about 1 ms of every import).
import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..catalog import SOURCES_RECORD, catalog_chunks, catalog_text
from ..collector import collector_paused
from ..errors import OutputError, UsageError
from ..files import NotAFile, read_limited, read_text_limited, walk
from ..output import torn, write_all_atomically
from .detect import with_format_hint
from .formats import READERS, ReadOptions
from .formats._common import has_lone_surrogate, text_problem
from .model import DEFAULT_RISK, RISKS, Case, ImportResult, Refusal, RefusalCode

if TYPE_CHECKING:  # the dialect, the merge and the check generator load where they are used:
    # an import to stdout needs none of them (tests/test_cli_startup.py)
    from .dialect import Dialect
    from .merge import MergeReport

CATALOG_NAME = "cases.jsonl"
MODULE_NAME = "checks.py"


class ImportOutcome:
    """What an import did. A plain class, not a dataclass: dataclasses (and the inspect module
    it imports, about 7 ms) are off an import's start-up (docs/startup.md)."""

    __slots__ = ("diffs", "dropped", "merge_report", "module_text", "repaired", "result", "written")

    def __init__(self, result: ImportResult) -> None:
        self.result = result
        self.written: tuple[Path, ...] = ()
        self.merge_report: MergeReport | None = None
        self.module_text: str | None = None  # what was written; None until needed
        self.dropped: list[str] = []  # ids that left the catalog
        self.diffs: list[str] = []  # a dry run's unified diffs
        self.repaired: str | None = None  # why the folder's pair was torn before this import rewrote it

    @property
    def catalog(self) -> str:
        """The catalog's text, built on use (writing it streams the pieces instead)."""
        return catalog_text(self.result.cases)

    def catalog_pieces(self) -> Iterator[str]:
        return catalog_chunks(self.result.cases)

    @property
    def module(self) -> str:
        """The module written, or rendered on first use (printing to stdout never needs it)."""
        if self.module_text is None:
            self.module_text = render_module(self.result)
        return self.module_text


def read_source(
    fmt: str,
    source: Path,
    *,
    risk: str | None = None,
    category: str | None = None,
    display: str | None = None,
    dialect: "Dialect | None" = None,
    default_criteria: bool = True,
    skip_tests: tuple[int, ...] = (),
    skill: str | None = None,
) -> ImportResult:
    """Read a source into the model; raises Refusal for a bad file."""
    reader = READERS.get(fmt)
    if reader is None:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(READERS)}")
    if risk is not None and risk not in RISKS:
        raise UsageError(f"--risk must be one of {', '.join(RISKS)}, not {risk!r}")
    if category is not None and (not category.strip() or has_lone_surrogate(category)):
        raise UsageError("--category must be non-empty text")
    if dialect is not None and dialect.format != fmt:
        raise UsageError(f"the dialect {dialect.display} is for {dialect.format}, not {fmt}")
    shown = display if display is not None else str(source)
    if skip_tests and fmt != "promptfoo":
        raise UsageError(
            "--skip-test leaves out a promptfoo test; for other formats use a dialect's cases.skip"
        )
    if skill is not None and text_problem(skill) is not None:
        raise UsageError("--skill must be non-empty text")
    options = ReadOptions(
        risk=risk or DEFAULT_RISK,
        category=category,
        dialect=dialect,
        default_criteria=default_criteria,
        skip_tests=skip_tests,
        skill=skill,
    )
    with collector_paused():
        try:
            cases = reader(source, display=shown, options=options)
        except Refusal as refusal:
            raise with_format_hint(refusal, fmt, source) from None
    for category in {case.category for case in cases}:  # one taken from a folder name is unchecked
        if has_lone_surrogate(category):
            raise UsageError(f"the folder name of {shown} is not valid text: pass --category")
    return ImportResult(
        source=shown,
        format=fmt,
        cases=tuple(cases),
        risk=options.risk,
        risk_was_default=risk is None,
        dialect=dialect,
        left_out=tuple(options.left_out),
    )


def render_module(result: ImportResult) -> str:
    """The check module as freshly generated."""
    from . import checkgen  # only where a module is written or shown

    with collector_paused():
        return checkgen.render(result)


SOURCES_NAME = SOURCES_RECORD
_FILE_NAMES = {"evals-json": "evals.json", "evalflow": "dataset.json"}


class Request(NamedTuple):  # not a dataclass: see ImportOutcome
    """What an import is asked to do, beyond reading: where to write, and how."""

    out: Path | None = None
    prune: bool = False
    replace: bool = False
    dry_run: bool = False


_PRINTED = Request()  # the default: read, and leave the catalog to the caller to print


def expand(fmt: str, sources: list[Path]) -> list[Path]:
    """The files (or yaml case folders) the sources name: for evals-json and evalflow,
    a folder means every evals.json (dataset.json) beneath it, sorted."""
    name = _FILE_NAMES.get(fmt)
    found: list[Path] = []
    for source in sources:
        if name is None or not source.is_dir():
            found.append(source)
            continue
        beneath = [p for p in walk(source) if p.name == name]
        if not beneath:
            raise Refusal(
                RefusalCode.DIRECTORY_EMPTY,
                str(source),
                "has nothing to import",
                expected=f"at least one {name} beneath it",
                actual="none",
            )
        found += beneath
    return found


def read_sources(
    fmt: str, sources: list[Path], *, display: str | None = None, **options: Any
) -> ImportResult:
    """Every source into one model; ids that collide across sources are refused naming both."""
    files = expand(fmt, sources)
    if len(files) == 1:
        return read_source(fmt, files[0], display=display, **options)
    with collector_paused():  # once for all sources, to the join: resumed sooner, it scans every case
        results = [read_source(fmt, path, **options) for path in files]
        owner: dict[str, Case] = {}
        for result in results:
            for case in result.cases:
                first_case = owner.setdefault(case.id, case)
                if first_case is not case:
                    raise Refusal(
                        _NOT_CODE[fmt],
                        result.source,
                        "cannot join the catalog",
                        case=case.origin,
                        field_path="id",
                        expected="an id no other source has",
                        actual=f'"{case.id}", which {first_case.origin} has too',
                    )
        return results[0].joined(results[1:])


_NOT_CODE = {
    "evals-json": RefusalCode.NOT_EVALS_JSON,
    "yaml": RefusalCode.NOT_YAML_CASE,
    "evalflow": RefusalCode.NOT_EVALFLOW,
    "promptfoo": RefusalCode.NOT_PROMPTFOO,
    "plugin-eval": RefusalCode.NOT_PLUGIN_EVAL,
    "trigger-list": RefusalCode.NOT_TRIGGER_LIST,
}


def import_source(
    fmt: str, source: Path, *, out: Path | None = None, prune: bool = False, **options: Any
) -> ImportOutcome:
    """One source: see import_sources."""
    return import_sources(fmt, [source], Request(out=out, prune=prune), **options)


def import_sources(
    fmt: str, sources: list[Path], request: Request = _PRINTED, *, display: str | None = None, **options: Any
) -> ImportOutcome:
    """Read, render, and (with `out`) write the catalog, the module and the record of
    sources atomically; nothing on refusal, nothing at all on a dry run.

    When `out` already holds a check module, the new one is merged into it
    (see merge.py): nothing a person wrote there is lost. A folder built from
    other sources is refused unless `replace`; every case that leaves the
    catalog is listed.
    """
    result = read_sources(fmt, sources, display=display, **options)
    outcome = ImportOutcome(result)
    out = request.out
    if out is None:
        return outcome
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {out} is a file; it must be a directory")
    record = _with_left_out(_sources_record(fmt, sources, out), result)
    _refuse_other_sources(out, record, request.replace)
    outcome.repaired = torn(out) if out.is_dir() else None
    previous = _catalog_rows(out / CATALOG_NAME)  # read once: the ids that may leave, and the prompts
    now = {case.id for case in result.cases}
    left_out = {x.id for x in result.left_out}  # declared, listed with their reasons: not lost
    outcome.dropped = [row.id for row in previous if row.id not in now and row.id not in left_out]
    outcome.module_text, outcome.merge_report = _module_text(
        out / MODULE_NAME, result, request.prune, _catalog_prompts(previous)
    )
    if request.dry_run:
        outcome.diffs = [_diff(out / CATALOG_NAME, outcome.catalog), _diff(out / MODULE_NAME, outcome.module)]
        return outcome
    # A fresh module and the catalog are streamed into their temporary files, piece by piece.
    from . import checkgen  # only with --out: see the imports at the top

    module = outcome.module_text if outcome.module_text is not None else checkgen.render_pieces(result)
    targets = {
        out / CATALOG_NAME: outcome.catalog_pieces(),
        out / MODULE_NAME: module,
        out / SOURCES_NAME: record,
    }
    with collector_paused():
        write_all_atomically(targets, paired=True)
    outcome.written = (out / CATALOG_NAME, out / MODULE_NAME)
    return outcome


def _sources_record(fmt: str, sources: list[Path], out: Path) -> str:
    """Each source as given and as found from the folder (relative: the record travels with
    a checkout, wherever it is cloned)."""
    base = out.resolve()
    listed = [{"path": str(s), "resolved": os.path.relpath(s.resolve(), base)} for s in sources]
    return json.dumps({"format": fmt, "sources": listed}, indent=2, ensure_ascii=False) + "\n"


def _with_left_out(record: str, result: ImportResult) -> str:
    """The record of sources, remembering the cases a dialect's cases.skip left out (so
    lint and later imports know them as declared, not lost)."""
    if not result.left_out:
        return record
    data = json.loads(record)
    data["left_out"] = [
        {"source": x.source, "case": x.case, "id": x.id, "reason": x.reason} for x in result.left_out
    ]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _refuse_other_sources(out: Path, record: str, replace: bool) -> None:
    """A re-import naming other sources than the folder was built from would drop cases."""
    try:
        recorded = json.loads(read_text_limited(out / SOURCES_NAME))
        before = {s["resolved"]: s["path"] for s in recorded["sources"]}
    except FileNotFoundError:
        return  # a new folder, or one written before folders recorded their sources
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OutputError(f"{out / SOURCES_NAME} cannot be read ({exc}); restore it or delete it") from exc
    now = {s["resolved"]: s["path"] for s in json.loads(record)["sources"]}
    if set(before) == set(now) or replace:
        return
    missing = [path for resolved, path in before.items() if resolved not in now]
    added = [path for resolved, path in now.items() if resolved not in before]
    raise OutputError(
        f"{out} was built from {', '.join(before.values())}; this import names "
        + (f"none of {', '.join(missing)}" if missing else "them")
        + (f" and adds {', '.join(added)}" if added else "")
        + ", so cases would leave the catalog. Name every source, or pass --replace to rebuild the "
        "folder from these sources alone (it lists each case it drops)"
    )


class _Kept(NamedTuple):
    """What an existing catalog's line with a text id tells an import: the id, and its prompt
    when that is text."""

    id: str
    prompt: str | None


def _catalog_rows(path: Path) -> list[_Kept]:
    """The rows of an existing catalog, read leniently (it is about to be replaced)."""
    rows = []
    try:
        lines = read_limited(path).splitlines()
    except NotAFile as exc:  # a FIFO or a device in the catalog's place: not ours to replace
        raise OutputError(f"{path} exists and cannot be read ({exc}); move it aside first") from exc
    except OSError:
        return []
    for line in lines:
        with contextlib.suppress(ValueError, RecursionError):
            row = json.loads(line)
            ident, prompt = (row.get("id"), row.get("prompt")) if isinstance(row, dict) else (None, None)
            if isinstance(ident, str):
                rows.append(_Kept(ident, prompt if isinstance(prompt, str) else None))
    return rows


def _catalog_prompts(rows: list[_Kept]) -> dict[str, str]:
    """The text prompts of an existing catalog's rows, by id (how a renamed case is found)."""
    return {row.id: row.prompt for row in rows if row.prompt is not None}


def _diff(path: Path, text: str) -> str:
    from .unified_diff import unified  # difflib: a dry run's alone (tests/test_startup_import3_modules.py)

    try:
        before = read_text_limited(path)
    except (OSError, UnicodeDecodeError):
        before = ""
    return unified(
        before.splitlines(keepends=True),
        text.splitlines(keepends=True),
        f"{path} (now)",
        f"{path} (after the import)",
    )


def _module_text(
    path: Path, result: ImportResult, prune: bool, prompts: dict[str, str]
) -> tuple[str | None, "MergeReport | None"]:
    """The existing module merged with the new source; None when there is none yet (a fresh
    module is rendered as it is written)."""
    try:
        existing = read_text_limited(path)
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        raise OutputError(f"{path} exists and cannot be read ({exc}); move it aside first") from exc
    from .merge import merge  # only where a module is already there (see the imports at the top)

    with collector_paused():
        return merge(existing, result, prune=prune, old_prompts=prompts)
