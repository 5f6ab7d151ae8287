"""Deciding: scores and the release decision, the criteria gate, trigger rates, judge swaps, suite
sizing and the audit of each check."""
