"""Every exit code, decided here and nowhere else (scripts tell outcomes apart by them)."""

from __future__ import annotations

OK = 0
FAILED = 1  # validate/lint/check found problems; score's release gate failed
GATE = FAILED
USAGE = 2
OUTPUT = 3
INPUT = 4  # a responses file or catalog that breaks its rules
SUITE = 5  # a check module that does not import
RUNNER = 6  # a model CLI failed after its retries
BUDGET = 7  # the run stopped because the budget was spent; rerun with more to finish
# score --gate paired (issue 19): the paired analysis cannot tell better from worse yet
INCONCLUSIVE = 8
INTERNAL = 70  # a bug in adhd-evals (sysexits' EX_SOFTWARE): never 1, which means "a check failed"
INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
TERMINATED = 143  # SIGTERM (128 + 15)
BROKEN_PIPE = 141  # the reader of stdout went away (`lint | head`): 128 + SIGPIPE, as a tool killed by it
REFUSAL = {  # one code per refusal, so scripts can tell them apart
    "CaseFileUnreadable": 10,
    "CaseDirectoryUnreadable": 11,
    "CaseFileNotJson": 12,
    "CaseFileNotYaml": 13,
    "CaseFileNotEvalsJson": 14,
    "CaseFileNotYamlCase": 15,
    "CaseFileNotEvalflowDataset": 16,
    "CaseFileEmpty": 17,
    "CaseDirectoryEmpty": 18,
    "DialectInvalid": 19,
    # promptfoo configs (issue 23): the config's shape, a template that cannot be rendered as
    # Nunjucks renders it, a file:// reference that cannot be read, code promptfoo would run
    "CaseFileNotPromptfooConfig": 20,
    "PromptfooTemplateNotRenderable": 21,
    "PromptfooReferenceUnreadable": 22,
    "PromptfooCodeNotRun": 23,
}
# scale (shards, merge, response cache): 30-34, one per refusal so CI scripts can tell them apart
SHARD_MISSING = 30  # merge: a shard, or a planned row of one, is not there
ROW_DUPLICATED = 31  # merge: a row (or a whole shard) is there twice
SHARD_FOREIGN = 32  # merge: a shard of another catalog, runner config, trials or split
SHARD_CONFLICT = 33  # run --shard: the output already records another shard or plan
CACHE_UNUSABLE = 34  # the response cache folder cannot be used
