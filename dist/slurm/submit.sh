#!/usr/bin/env bash
# Submit a gpucosim regression to Slurm: one array task per shard, and a
# merge job that runs once every task has ended (however it ended).
#
#   dist/slurm/submit.sh [--shards N] [--out DIR] [--cpus-per-task C]
#                        [--require-coverage] [-- REGRESS-ARGS...]
#
# Every task runs `gpucosim regress --shard K/N REGRESS-ARGS` and writes into
# DIR (which every node must see, e.g. on NFS):
#   DIR/results/shard-K.json  DIR/junit/shard-K.xml  DIR/coverage/shard-K.json
#   DIR/failures/UNIT.PROFILE.SEED/   (failure bundles, one per failing job)
#   DIR/logs/shard-K.out
# The merge job writes DIR/junit.xml, DIR/coverage.json, DIR/results.json
# and DIR/logs/merge.out, lists the failure bundles, and fails (exit 2) when
# a shard is missing or was interrupted, 1 on a divergence (or, with
# --require-coverage, a coverage bin never hit), as `gpucosim merge` does.
#
# The gpucosim binary is $GPUCOSIM, else `gpucosim` on PATH, resolved here
# to an absolute path that the nodes must see too. Other sbatch options
# (partition, account, time limit, QOS, ...) go in sbatch's own input
# environment variables: SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT,
# SBATCH_QOS, ... (see "INPUT ENVIRONMENT VARIABLES" in `man sbatch`). Tasks inherit the environment of this
# script (sbatch's default --export=ALL): GPUCOSIM_CACHE_DIR, GPUCOSIM_BUILD,
# VERILATOR, ...
set -euo pipefail

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

shards=16
out=gpucosim-regress
cpus=8
merge_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) shards=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --cpus-per-task) cpus=${2:?}; shift 2 ;;
    --require-coverage) merge_args+=(--require-coverage); shift ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "submit.sh: unknown option $1" >&2; usage ;;
  esac
done
case "$shards" in ''|*[!0-9]*|0) echo "submit.sh: --shards wants a number >= 1" >&2; exit 2 ;; esac

gpucosim=$(command -v "${GPUCOSIM:-gpucosim}") || {
  echo "submit.sh: no gpucosim binary (set GPUCOSIM or put gpucosim on PATH)" >&2; exit 2; }
export GPUCOSIM="$gpucosim"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
mkdir -p "$out/results" "$out/junit" "$out/coverage" "$out/failures" "$out/logs"

# The plan, checked once here: bad arguments fail now, not in every task.
"$gpucosim" -q regress --shard "1/$shards" --list "$@" >/dev/null

array=$(sbatch --parsable --job-name=gpucosim-regress --array="1-$shards" \
  --cpus-per-task="$cpus" --output="$out/logs/shard-%a.out" \
  "$here/shard.sh" "$out" "$shards" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --job-name=gpucosim-merge --dependency="afterany:$array" \
  --cpus-per-task=1 --output="$out/logs/merge.out" \
  "$here/merge.sh" "$out" "$shards" "${merge_args[@]}")
merge=${merge%%;*}
echo "submitted shards: job $array (array 1-$shards) -> $out/results/"
echo "submitted merge: job $merge (after any end of job $array) -> $out/junit.xml, $out/logs/merge.out"
