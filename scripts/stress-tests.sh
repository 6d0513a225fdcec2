#!/usr/bin/env bash
# The timing-dependent tests, run RUNS times in a row (default 20) with LOAD busy loops alongside
# (default 2, one per core of the 2-core CI machine), as docs/testing.md describes. Prints, per test
# file, how many runs passed; the per-run logs and vitest JSON reports stay in OUT (default a temp dir).
# Usage: scripts/stress-tests.sh [test files...]   (default: the list below; build first: npx tsc -b)
# test/e2e/generateChaos.test.ts (12 SIGKILLs, minutes a run under load) is run on its own, named.
set -uo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-20}
LOAD=${LOAD:-2}
OUT=${OUT:-$(mktemp -d -t hermes-stress-XXXXXX)}
mkdir -p "$OUT"
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(
    # Units with timers, deadlines, pools and rate limits.
    test/core/chatClient.test.ts
    test/core/httpFetch.test.ts
    test/core/progressDetail.test.ts
    test/testkit/faults.test.ts
    test/generate/boundedPool.test.ts
    test/core/rateLimiter.test.ts
    test/generate/tools/terminal.test.ts
    test/generate/tools/toolProcesses.test.ts
    test/generate/doctor/doctorCommand.test.ts
    test/compress/stream.test.ts
    # Real processes that are signalled, killed or timed out.
    test/compress/cli.test.ts
    test/e2e/stream-conventions.test.ts
    test/e2e/generateInterrupt.test.ts
    test/e2e/generateForcedExit.test.ts
    test/e2e/generateRunSignals.test.ts
    test/e2e/generateRunDelegationKill.test.ts
    test/e2e/generateFaults.test.ts
    test/e2e/generateRunFaultStorm.test.ts
  )
fi

for file in "${files[@]}"; do
  [ -f "$file" ] || { echo "stress: no such test file: $file" >&2; exit 2; }
done

pids=()
stop_load() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; }
trap stop_load EXIT
for _ in $(seq "$LOAD"); do
  nice -n 10 sh -c 'while :; do :; done' &
  pids+=($!)
done

echo "stress: ${#files[@]} files, $RUNS runs, $LOAD busy loops, logs in $OUT"
for i in $(seq "$RUNS"); do
  start=$(date +%s)
  HERMES_TEST_NO_BUILD=1 nice -n 5 node node_modules/vitest/vitest.mjs run --config test/vitest.config.ts \
    --reporter=json --outputFile.json="$OUT/run-$i.json" "${files[@]}" >"$OUT/run-$i.log" 2>&1
  echo "run $i: exit $? in $(($(date +%s) - start)) s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
done

node -e '
const { readFileSync, existsSync } = require("node:fs");
const [out, runs, ...files] = process.argv.slice(1);
const passed = new Map(files.map((f) => [f, 0]));
const failures = [];
for (let i = 1; i <= Number(runs); i += 1) {
  const report = `${out}/run-${i}.json`;
  if (!existsSync(report)) { failures.push(`run ${i}: no report (see run-${i}.log)`); continue; }
  for (const file of JSON.parse(readFileSync(report, "utf8")).testResults) {
    const name = files.find((f) => file.name.endsWith(f));
    if (file.status === "passed") passed.set(name, passed.get(name) + 1);
    else for (const t of file.assertionResults.filter((a) => a.status !== "passed")) failures.push(`run ${i}: ${name}: ${t.fullName}`);
  }
}
for (const [name, n] of passed) console.log(`${String(n).padStart(3)}/${runs}  ${name}`);
for (const f of failures) console.log(`FAILED ${f}`);
process.exit(failures.length > 0 || [...passed.values()].some((n) => n < Number(runs)) ? 1 : 0);
' "$OUT" "$RUNS" "${files[@]}"
