"""The catalog's rules: what a valid five-field catalog is, one rule module each.

In the core, not in lint: `validate`, lint and every runs command read a catalog by these
rules (catalog.py is their door), and runs never imports lint. lint runs them beside its
own rules (a check module's, the files beside a catalog: lint/rules/) and lists them all.
Each rule module satisfies contract.py; stream.py reads a catalog line by line through
them, engine.py stamps what they find.
"""

from __future__ import annotations

from . import (
    bundled_criterion,
    duplicate_id,
    duplicate_key,
    empty_catalog,
    empty_criteria,
    empty_id,
    encoding,
    invalid_json,
    missing_field,
    not_object,
    risk_value,
    wrong_type,
)
from .contract import CatalogRule, RowRule

# The row rules in the order they run (a row's problems are reported in this order).
ROW_RULES: list[RowRule] = [
    encoding,
    invalid_json,
    duplicate_key,
    not_object,
    missing_field,
    wrong_type,
    empty_id,
    duplicate_id,
    risk_value,
    empty_criteria,
    bundled_criterion,
]
CATALOG_RULES: list[CatalogRule] = [empty_catalog]
