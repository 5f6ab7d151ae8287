"""The cyclic garbage collector paused where a burst of objects is made and none is garbage.

Importing a command's modules (entry), reading sources into the model (the importer) and
surveying them (survey) each make many small objects, acyclic or alive to the end: every
allocation burst would set off a collection that scans them all again and finds nothing
(measured: 40% of a 50,000-case import; a dozen collections on the hook's start-up).
Reference counting still frees everything; the collector resumes as it was.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside, and after as it was before (a caller may have paused it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
