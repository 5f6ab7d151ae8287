"""evalflow's `dataset.json`: one by its name, or a named `.json` holding `version` and
`test_cases`."""

from __future__ import annotations

from ...exitcodes import RefusalCode
from .declare import Format, Head


def _dataset(head: Head) -> bool:
    data = head.json()
    return isinstance(data, dict) and "test_cases" in data and "version" in data


FORMAT = Format(
    name="evalflow",
    description="an evalflow dataset",
    reader="adhd_evals.importing.formats.evalflow",
    refusal=RefusalCode.NOT_EVALFLOW,
    by_name=("dataset.json",),
    by_shape_if_named=("*.json",),
    looks_like=_dataset,
    hook=("evals/dataset.json",),
)
