"""Calling models: the driver run and judge share, one call as a process, the responses store and
its ledger, the cache, shards and their merge, runner config, prompts, reading a CLI's output and
trace, and the forecast of a plan's bill."""
