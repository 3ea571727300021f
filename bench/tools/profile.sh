#!/usr/bin/env bash
# Profiles one throughput trial with `node --cpu-prof` and prints where the timed window's CPU went.
#   bench/tools/profile.sh <raw|ours|anchor> <claude|codex> <N> <S> [top]
# Needs a prior `npm run bench` (or BENCH_QUICK=1 run) for bench/.build and dist/.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
impl="$1" backend="$2" n="$3" s="$4" top="${5:-30}"
dir="$(mktemp -d)"
out="$(BENCH_DIST="${BENCH_DIST:-$here/../dist/index.js}" FAKE_N="$n" FAKE_S="$s" \
  node --cpu-prof --cpu-prof-interval 100 --cpu-prof-dir="$dir" "$here/workers/throughput.mjs" \
  "{\"impl\":\"$impl\",\"backend\":\"$backend\",\"cli\":\"$here/.build/$backend\"}")"
echo "$out"
window="$(node -e 'const r=JSON.parse(process.argv[1].replace(/^@@bench-result /,""));console.log(r.profileWindowUs.join(","))' "$out")"
node "$here/tools/profile-summary.mjs" "$dir"/*.cpuprofile "$top" "$window"
echo "profile: $(ls "$dir"/*.cpuprofile)"
