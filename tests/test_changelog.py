"""One version, one changelog: --version, adhd_evals.__version__ and CHANGELOG.md agree."""

from __future__ import annotations

import re

import pytest

from adhd_evals import __version__
from adhd_evals.entry import main
from helpers import ROOT

HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$", re.MULTILINE)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:3])


def test_changelog_sections_are_unreleased_then_dated_releases_newest_first() -> None:
    """Keep a Changelog: [Unreleased] first, then `[X.Y.Z] - YYYY-MM-DD`, versions descending."""
    sections = HEADING.findall((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert sections[0] == ("Unreleased", "")
    released = [version for version, date in sections[1:] if date]
    assert len(released) == len(sections) - 1, "every released section carries its date"
    assert [_release(v) for v in released] == sorted((_release(v) for v in released), reverse=True)


def test_the_version_is_the_newest_release_or_a_dev_version_after_it() -> None:
    """0.3.0.dev0 after a newest release 0.2.0 holds; 0.2.0.dev0 or 0.1.0 would not."""
    sections = HEADING.findall((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    newest = _release(sections[1][0])
    if ".dev" in __version__:
        assert _release(__version__) > newest
    else:
        assert _release(__version__) == newest


def test_version_flag_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"adhd-evals {__version__}\n"
