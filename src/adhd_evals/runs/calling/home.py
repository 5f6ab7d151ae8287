"""Where adhd-evals keeps what it caches: $XDG_CACHE_HOME/adhd-evals (~/.cache when XDG_CACHE_HOME
is unset): the response cache (cache.py) and the records of catalogs that passed the rules
(catalog.load_valid_once). Apart from the cache itself, so a command that reads the records
imports none of the cache's entries, keys and runner configuration.

Where no home folder can be found (HOME unset and a user with no passwd entry, as a container's
arbitrary user), nothing is kept: the records are a saving a run can do without, and the
response cache is refused by name (it was asked for), never an internal error.
"""

import os
from pathlib import Path

from ...errors import UsageError


def cache_home() -> Path | None:
    """$XDG_CACHE_HOME/adhd-evals (~/.cache/adhd-evals when it is unset), or None where there is
    no home folder to find."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # Path.home(): "Could not determine home directory"
            return None
    return Path(base) / "adhd-evals"


def default_dir() -> Path:
    """$XDG_CACHE_HOME/adhd-evals/responses (~/.cache when XDG_CACHE_HOME is unset)."""
    home = cache_home()
    if home is None:
        raise UsageError(
            "the response cache has no folder: HOME is not set and this user has no home folder; "
            "set XDG_CACHE_HOME or give --cache a folder"
        )
    return home / "responses"


def validated_dir() -> Path | None:
    """$XDG_CACHE_HOME/adhd-evals/validated: which catalog contents passed the rules (a record
    per content and rules' version, catalog.load_valid_once), so a run or a shard of an
    unchanged catalog parses it without running the rules again. None without a home: the
    rules then run every time."""
    home = cache_home()
    return None if home is None else home / "validated"
