#!/bin/bash
# A Slurm job array: 4 tasks, each running one shard of the paired run.
#   jid=$(sbatch --parsable docs/examples/slurm-array.sh)
#   sbatch --dependency=afterok:"$jid" --wrap \
#     'adhd-evals merge runs/shard-*.jsonl --output runs/responses.jsonl'
# Slurm numbers tasks as --array says (here 0-3); `--shard auto` maps a task to its place in
# the array, (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP + 1, of
# SLURM_ARRAY_TASK_COUNT shards; so --array=1-4 or 0-12:4 work alike.
#SBATCH --job-name=adhd-evals
#SBATCH --array=0-3
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --time=06:00:00
#SBATCH --output=runs/slurm-%A_%a.log

set -euo pipefail
mkdir -p runs
for condition in baseline candidate; do
  adhd-evals run --runner claude --runner-config runners.json \
    --condition "$condition" --condition-skill SKILL.md \
    --cases evals/cases.jsonl --trials 3 --jobs 4 \
    --shard auto --shard-budget-total 40 \
    --cache "${XDG_CACHE_HOME:-$HOME/.cache}/adhd-evals/responses" \
    --output "runs/shard-${SLURM_ARRAY_TASK_ID}.jsonl"
done
