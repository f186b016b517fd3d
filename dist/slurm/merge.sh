#!/usr/bin/env bash
# Merge the shards of a gpucosim regression (submitted by submit.sh with
# --dependency=afterany on the array): sbatch merge.sh DIR N [MERGE-ARGS...]
#
# Writes DIR/junit.xml, DIR/coverage.json and DIR/results.json, lists the
# failure bundles the tasks wrote into DIR/failures/, and exits as
# `gpucosim merge` does: 2 when a shard is missing or was interrupted (each
# named), 1 on a failure, 0 otherwise.
set -uo pipefail
out=${1:?output directory}
n=${2:?number of shards}
shift 2
gpucosim=${GPUCOSIM:-gpucosim}

shopt -s nullglob
results=("$out"/results/shard-*.json)
if [ ${#results[@]} -eq 0 ]; then
  echo "error: incomplete merge: none of the $n shards wrote its results into $out/results/" >&2
  exit 2
fi
# A shard whose results are there but do not belong (another N) is refused
# by merge itself; one whose file is absent is named by merge too, from the
# shard numbers the others carry.
"$gpucosim" merge "${results[@]}" --junit "$out/junit.xml" \
  --coverage "$out/coverage.json" --results "$out/results.json" "$@"
rc=$?
bundles=("$out"/failures/*/)
echo "failure bundles: ${#bundles[@]} in $out/failures/"
for b in "${bundles[@]}"; do echo "  $(basename "$b")"; done
echo "merge exit code: $rc"
exit $rc
