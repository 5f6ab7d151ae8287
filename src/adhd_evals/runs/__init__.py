"""Baseline / candidate / comparator runs through model CLIs, compatible with
i-have-adhd's `scripts/run_evals.py` files (runners.json, cases.jsonl,
responses and scores in the same shapes)."""
