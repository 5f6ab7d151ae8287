"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import OutputError


def write_all_atomically(files: dict[Path, str]) -> None:
    """Write every file to a temporary sibling first, then rename each into place.

    A failure while writing leaves every target as it was. The renames come
    last and are each atomic; they can only fail if the directory changes
    under us between the two, which is reported.
    """
    temps: list[tuple[Path, Path]] = []
    try:
        for target, text in files.items():
            temps.append((_write_temp(target, text), target))
        for temp, target in temps:
            os.replace(temp, target)
    except OSError as exc:
        raise OutputError(f"cannot write {exc.filename or 'the output'}: {exc.strerror or exc}") from exc
    finally:
        for temp, _ in temps:
            temp.unlink(missing_ok=True)


def _write_temp(target: Path, text: str) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    if target.exists():
        os.chmod(name, target.stat().st_mode & 0o777)
    else:
        os.chmod(name, 0o644)
    return Path(name)
