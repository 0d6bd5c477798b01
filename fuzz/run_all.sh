#!/usr/bin/env bash
# Run every fuzz target in turn for SECONDS each (default 600) and print one
# summary line per target: execs, coverage (cov/ft from libFuzzer) and
# whether it crashed. Seeds come from fuzz/corpus (see docs/hostile.md);
# logs go to fuzz/logs/<target>.log, crashes to fuzz/artifacts/<target>/.
#   fuzz/run_all.sh [SECONDS] [TARGET...]
# SANITIZER=none (default, stable toolchain) or SANITIZER=address (needs
# nightly: run as `RUSTC_BOOTSTRAP=1 SANITIZER=address fuzz/run_all.sh`).
set -uo pipefail
cd "$(dirname "$0")/.."
secs="${1:-600}"
shift || true
san="${SANITIZER:-none}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
mkdir -p fuzz/logs
# Build once, then run the binaries directly (so that edits elsewhere in
# the tree during a long run do not trigger rebuilds between targets).
flags=(-s "$san")
[ "$san" = none ] || flags=()
cargo fuzz build "${flags[@]}" >fuzz/logs/build.log 2>&1 || { tail -20 fuzz/logs/build.log; exit 1; }
bin="fuzz/target/x86_64-unknown-linux-gnu/release"
printf '%-18s %10s %8s %8s %s\n' target execs cov ft result
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  log="fuzz/logs/$t.log"
  mkdir -p "fuzz/artifacts/$t"
  "$bin/$t" -artifact_prefix="fuzz/artifacts/$t/" -max_total_time="$secs" -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -timeout=10 -max_len=1048576 -print_final_stats=1 \
    "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  line=$(grep -E '^#[0-9]+' "$log" | grep -o 'cov: [0-9]* ft: [0-9]*' | tail -1)
  cov=$(echo "$line" | awk '{print $2}')
  ft=$(echo "$line" | awk '{print $4}')
  if [ $rc -eq 0 ]; then res=ok; else res="CRASH (rc $rc): $(grep -m1 -E 'panicked at|ERROR: libFuzzer|SUMMARY' "$log")"; fi
  printf '%-18s %10s %8s %8s %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$res"
done
