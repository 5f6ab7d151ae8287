"""Writing files so that a reader never sees half of one, nor half of a pair.

Each file is written to a temporary sibling, flushed, then renamed into place
(atomic on POSIX). Temporary files carry a recognisable name holding the
writer's pid, so the next write into the folder removes what a killed writer
left behind. A pair that must change together (the catalog and its check
module) gets a manifest for the length of the renames: written before the
first, holding the old and the new hashes, removed after the last. While it
exists, the pair must match one set or the other; so a kill between the two
renames is detected and named, never silent (people editing checks.py later
change nothing: the manifest is gone by then).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from .errors import OutputError
from .files import read_limited

TEMP_MARK = ".adhd-evals-tmp-"
MANIFEST = ".adhd-evals-written.json"
# Tests kill the writer at a named step to prove every step leaves a sane state.
_KILL_AT = "ADHD_EVALS_TEST_KILL_AT"


Content = str | Iterable[str]  # a whole text, or its pieces in order (never held whole)


def write_all_atomically(files: Mapping[Path, Content], *, paired: bool = False) -> None:
    """Write every file, then rename each into place; with `paired`, record the pair.

    A failure while writing leaves every target as it was. The renames come
    last and are each atomic. A file given as pieces is streamed into its
    temporary file, so a large catalog or module is never held whole twice.
    """
    for target in files:
        if target.is_dir():  # else the rename fails naming our temporary file, not the target
            raise OutputError(f"cannot write {target}: it is a directory (name a file)")
    for folder in {target.parent for target in files}:
        remove_stale_temps(folder)
    temps: list[tuple[Path, Path]] = []
    new: dict[str, str] = {}
    try:
        for target, content in files.items():
            temp, new[target.name] = _write_temp(target, content, hashed=paired)
            temps.append((temp, target))
        _step("written")
        if paired:
            _write_manifest(list(files), new)
            _step("manifest")
        for number, (temp, target) in enumerate(temps, start=1):
            os.replace(temp, target)
            _step(f"renamed-{number}")
        if paired:
            (next(iter(files)).parent / MANIFEST).unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write {exc.filename or 'the output'}: {exc.strerror or exc}") from exc
    finally:
        for temp, _ in temps:
            temp.unlink(missing_ok=True)


def refuse_clobbering(outputs: dict[str, Path | None], inputs: dict[str, Path | None]) -> None:
    """Refuse, before any work, two outputs naming one file or an output naming an input.

    Either would lose a file: the second write replaces the first, and an
    input would be replaced by what was computed from it.
    """
    written: dict[Path, str] = {}
    for flag, path in outputs.items():
        if path is None:
            continue
        real = _real(path)
        if real in written:
            raise OutputError(f"{written[real]} and {flag} both name {path}: each needs a file of its own")
        written[real] = flag
    for flag, path in inputs.items():
        if path is not None and _real(path) in written:
            raise OutputError(
                f"{written[_real(path)]} {path} is the {flag} this command reads; "
                "writing it would replace it: name another file"
            )


def _real(path: Path) -> Path:
    """The file a path names, links followed. os.path.realpath, not Path.resolve: a symlink loop
    leaves the path as it is (its reader then refuses it by name) instead of raising RuntimeError."""
    return Path(os.path.realpath(path))


def _step(name: str) -> None:
    if os.environ.get(_KILL_AT) == name:
        import signal  # only the kill tests reach here; off the hook's path (0.6 ms, docs/startup.md)

        os.kill(os.getpid(), signal.SIGKILL)


def _write_temp(target: Path, content: Content, *, hashed: bool) -> tuple[Path, str]:
    """The temporary sibling holding `content`, and the hash of its bytes (for the manifest; ""
    unless `hashed`: only a pair's manifest reads it, and hashlib is 3 ms of a command's start-up)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = None
    if hashed:  # before the file is made: an interrupt while hashlib imports leaves no file behind
        import hashlib  # here, not at the top: lint imports this module for `torn` on every commit

        digest = hashlib.sha256()
    handle, name = _create_temp(target)
    try:
        with os.fdopen(handle, "wb") as stream:
            for piece in (content,) if isinstance(content, str) else content:
                data = piece.encode("utf-8")
                if digest is not None:
                    digest.update(data)
                stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    if target.exists():
        os.chmod(name, target.stat().st_mode & 0o777)
    else:
        os.chmod(name, 0o644)
    return Path(name), "" if digest is None else digest.hexdigest()


# Names tried for one temporary file before giving up (each taken only by a file already there)
_TEMP_ATTEMPTS = 100


def _create_temp(target: Path) -> tuple[int, str]:
    """A new file beside `target`, created for writing by this process alone (0600, as mkstemp
    makes it), named with the writer's pid and a random suffix; its descriptor and path.
    Not tempfile.mkstemp: importing tempfile (shutil, bz2, lzma, random) is ~3 ms of start-up.
    As mkstemp's: the folder made absolute (a refusal names it so) and 8 random characters, so a
    target name that fit beside its temporary file before still fits (names stop at 255 bytes)."""
    folder = os.path.abspath(target.parent)
    prefix = os.path.join(folder, f".{target.name}{TEMP_MARK}{os.getpid()}-")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(_TEMP_ATTEMPTS):
        name = prefix + os.urandom(4).hex()
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue  # another file holds this name: draw again, as mkstemp does
    raise FileExistsError(errno.EEXIST, "no free name for its temporary file", str(target))


def remove_stale_temps(folder: Path) -> list[Path]:
    """Remove temporary files a killed writer left in `folder` (never a live writer's)."""
    removed = []
    with contextlib.suppress(OSError):
        for path in folder.glob(f".*{TEMP_MARK}*"):
            pid = path.name.split(TEMP_MARK, 1)[1].split("-", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _digest(data: bytes | None) -> str | None:
    import hashlib

    return None if data is None else hashlib.sha256(data).hexdigest()


def _current(path: Path) -> bytes | None:
    try:  # a manifest may name anything (/dev/zero): read only a bounded regular file
        return read_limited(path)
    except OSError:
        return None


def _write_manifest(targets: list[Path], new: dict[str, str]) -> None:
    folder = targets[0].parent
    old = {t.name: _digest(_current(t)) for t in targets}
    text = json.dumps({"old": old, "new": new, "pid": os.getpid()}, indent=2, sort_keys=True) + "\n"
    temp, _ = _write_temp(folder / MANIFEST, text, hashed=False)
    os.replace(temp, folder / MANIFEST)


def torn(folder: Path) -> str | None:
    """Why the pair in `folder` is not from one write (None when it is: no write was
    interrupted, or the interrupted one left both files old or both new)."""
    recorded = _current(folder / MANIFEST)
    if recorded is None:
        return None
    try:
        sets = json.loads(recorded)
        names = sorted(sets["new"])
        written = (sets["new"], sets["old"])  # the pair's digests after the write and before it
    except (ValueError, KeyError, TypeError):
        return f"{folder / MANIFEST} is not a manifest adhd-evals wrote; delete it and import again"
    actual = {name: _digest(_current(folder / name)) for name in names}
    if actual in written or _changed_since(folder, names, actual, written):
        _clear_stale(folder, sets.get("pid"))
        return None
    return (
        f"{' and '.join(str(folder / n) for n in names)} are not from one import "
        "(an import into this folder was interrupted): rerun it"
    )


def _changed_since(
    folder: Path, names: list[str], actual: dict[str, str | None], digests: tuple[object, object]
) -> bool:
    """Files changed after the manifest was written (a person's edit: the writer's renames
    only move files written before it) while the rest match one write: a stale manifest
    left by a kill after the last rename (or before the first), not a torn pair."""
    try:
        written = (folder / MANIFEST).stat().st_mtime_ns
        later = {name for name in names if (folder / name).stat().st_mtime_ns > written}
    except OSError:
        return False
    rest = {name: actual[name] for name in names if name not in later}
    return bool(later) and any(
        isinstance(pair, dict) and rest == {name: pair.get(name) for name in rest} for pair in digests
    )


def _clear_stale(folder: Path, pid: object) -> None:
    """Remove a manifest whose writer is gone (`pid`, as the manifest records it): it describes
    a write that is over."""
    if isinstance(pid, int) and pid != os.getpid() and _alive(pid):
        return  # its writer is still renaming
    with contextlib.suppress(OSError):
        (folder / MANIFEST).unlink()
