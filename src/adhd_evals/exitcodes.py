"""Every exit code, decided here and nowhere else (scripts tell outcomes apart by them)."""

from __future__ import annotations

import enum

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


def of_verdict(gate: str, verdict: str) -> int:
    """The exit code of the gate's deciding verdict (score, report): the paired analysis's better
    (OK), worse (GATE) or anything short of a decision (INCONCLUSIVE); the reference rules' passed
    (OK) or not (GATE)."""
    if gate == "paired":
        return {"better": OK, "worse": GATE}.get(verdict, INCONCLUSIVE)
    return OK if verdict == "passed" else GATE


class RefusalCode(str, enum.Enum):
    """Why a source was refused whole: the value is the stable code, `exit_code` the process's
    exit code, one per refusal so scripts can tell them apart. Both are written on the member,
    so no refusal can exist without its exit code (a dict beside the enum could miss a key,
    and that key's refusal would escape the error boundary as a traceback)."""

    exit_code: int

    def __new__(cls, code: str, exit_code: int) -> RefusalCode:
        member = str.__new__(cls, code)
        member._value_ = code
        member.exit_code = exit_code
        return member

    FILE_UNREADABLE = ("CaseFileUnreadable", 10)
    DIRECTORY_UNREADABLE = ("CaseDirectoryUnreadable", 11)
    NOT_JSON = ("CaseFileNotJson", 12)
    NOT_YAML = ("CaseFileNotYaml", 13)
    NOT_EVALS_JSON = ("CaseFileNotEvalsJson", 14)
    NOT_YAML_CASE = ("CaseFileNotYamlCase", 15)
    NOT_EVALFLOW = ("CaseFileNotEvalflowDataset", 16)
    FILE_EMPTY = ("CaseFileEmpty", 17)
    DIRECTORY_EMPTY = ("CaseDirectoryEmpty", 18)
    DIALECT_INVALID = ("DialectInvalid", 19)
    # promptfoo configs (issue 23): the config's shape, a template that cannot be rendered as
    # Nunjucks renders it, a file:// reference that cannot be read, code promptfoo would run
    NOT_PROMPTFOO = ("CaseFileNotPromptfooConfig", 20)
    PROMPTFOO_TEMPLATE = ("PromptfooTemplateNotRenderable", 21)
    PROMPTFOO_REFERENCE = ("PromptfooReferenceUnreadable", 22)
    PROMPTFOO_CODE = ("PromptfooCodeNotRun", 23)
    # `claude plugin eval` suites and results (issue 32): a case plugin eval would not load; a
    # results file that is not an aggregate-result.json plugin eval writes
    NOT_PLUGIN_EVAL = ("CaseFileNotPluginEvalSuite", 24)
    NOT_PLUGIN_EVAL_RESULTS = ("NotPluginEvalResults", 25)
    # trigger lists (issue 33): neither skill-creator's [{query, should_trigger}] nor two lists
    NOT_TRIGGER_LIST = ("CaseFileNotTriggerList", 27)


# Each refusal's exit code by its stable code, as scripts and tests look it up: derived, never kept.
REFUSAL = {code.value: code.exit_code for code in RefusalCode}
# scale (shards, merge, response cache): 30-34, one per refusal so CI scripts can tell them apart
SHARD_MISSING = 30  # merge: a shard, or a planned row of one, is not there
ROW_DUPLICATED = 31  # merge: a row (or a whole shard) is there twice
SHARD_FOREIGN = 32  # merge: a shard of another catalog, runner config, trials or split
SHARD_CONFLICT = 33  # run --shard: the output already records another shard or plan
CACHE_UNUSABLE = 34  # the response cache folder cannot be used
# a judge is admitted, never assumed (issue 31): 40-42
JUDGE_LEAKY = 40  # score, verdicts, agree --certify: the judge passed a control it must fail
JUDGE_VOID = 41  # judge: every row it judged is void (it never judged)
JUDGE_LAUNDERED = 42  # labels, a judged file, a verdicts file or a certificate that is not what it claims
JUDGE_SWAP = 43  # agree --judges: the sign, the paired verdict or the gate changes with the judge
