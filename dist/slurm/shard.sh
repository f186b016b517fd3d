#!/usr/bin/env bash
# One shard of a gpucosim regression, as a Slurm array task (submitted by
# submit.sh): sbatch --array=1-N shard.sh DIR N [REGRESS-ARGS...]
#
# Tasks on one node build the RTL once: the first takes a node-local lock
# and builds (or finds in the cache) every unit and profile the plan runs;
# the others wait for it and then start from the cache. (gpucosim itself
# also builds each cache entry once, under a lock per entry; this lock has
# one task build them all.) gpucosim's exit code is the task's, so `sacct`
# shows which shards failed.
set -uo pipefail
out=${1:?output directory}
n=${2:?number of shards}
shift 2
k=${SLURM_ARRAY_TASK_ID:?shard.sh runs as a Slurm array task}
gpucosim=${GPUCOSIM:-gpucosim}

# The units, profiles and RTL tree of the plan, for the build below.
units=() profiles=() rtl=() jobs=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  a=${args[i]} v=${args[i + 1]:-}
  case "$a" in
    --unit) units+=("$v") ;;
    --unit=*) units+=("${a#*=}") ;;
    --profile) profiles+=("$v") ;;
    --profile=*) profiles+=("${a#*=}") ;;
    --rtl) rtl=(--rtl "$v") ;;
    --rtl=*) rtl=(--rtl "${a#*=}") ;;
    --jobs|--jobs=*) jobs=(none) ;;
  esac
done
[ ${#units[@]} -gt 0 ] || units=(ta lds waitcnt)
[ ${#profiles[@]} -gt 0 ] || profiles=(gfx9 gfx11)
# As many parallel jobs as the task has CPUs, unless told otherwise.
if [ ${#jobs[@]} -eq 0 ]; then jobs=(--jobs "${SLURM_CPUS_PER_TASK:-1}"); else jobs=(); fi

lock="${TMPDIR:-/tmp}/gpucosim-build-$(id -u).lock"
(
  flock 9
  for u in "${units[@]}"; do
    for p in "${profiles[@]}"; do
      "$gpucosim" -q build --unit "$u" --profile "$p" "${rtl[@]}" >/dev/null || exit
    done
  done
) 9>"$lock" || echo "shard $k/$n: building the RTL up front failed; regress says why" >&2

# exec: SIGTERM from scancel or the time limit reaches gpucosim itself,
# which writes what finished and marks the results interrupted.
exec "$gpucosim" regress --shard "$k/$n" "${jobs[@]}" \
  --results "$out/results/shard-$k.json" --junit "$out/junit/shard-$k.xml" \
  --coverage "$out/coverage/shard-$k.json" --bundles "$out/failures" "$@"
