"""Where adhd-evals keeps what it caches: $XDG_CACHE_HOME/adhd-evals (~/.cache when XDG_CACHE_HOME
is unset): the response cache (cache.py) and the records of catalogs that passed the rules
(catalog.load_valid_once). Apart from the cache itself, so a command that reads the records
imports none of the cache's entries, keys and runner configuration.
"""

import os
from pathlib import Path


def default_dir() -> Path:
    """$XDG_CACHE_HOME/adhd-evals/responses (~/.cache when XDG_CACHE_HOME is unset)."""
    return _home() / "responses"


def validated_dir() -> Path:
    """$XDG_CACHE_HOME/adhd-evals/validated: which catalog contents passed the rules (a record
    per content and rules' version, catalog.load_valid_once), so a run or a shard of an
    unchanged catalog parses it without running the rules again."""
    return _home() / "validated"


def _home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "adhd-evals"
