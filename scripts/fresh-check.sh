#!/usr/bin/env bash
# make fresh-check: .ci/run's path on a fresh clone with an empty npm cache, so nothing installed by hand
# (or cached by an earlier install) can hide a missing step: clone the committed tree into a temp
# directory, `make setup` (npm ci, build, Debian packages), then the type check of the tests and the tests
# that need what setup brings (the six CLIs piped together, DuckDB, Chromium, GNU parallel, bubblewrap).
# FULL=1 runs .ci/run itself (the whole suite) instead. Each step is bounded by FRESH_CHECK_TIMEOUT
# seconds (default 900). Not part of make test: the install alone downloads a few hundred MB.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
limit=${FRESH_CHECK_TIMEOUT:-900}
work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-fresh-check-XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/repo"
export npm_config_cache="$work/npm-cache"
cd "$work/repo"
started=$(date +%s)
if [ "${FULL:-0}" = 1 ]; then
  timeout "$limit" .ci/run
else
  timeout "$limit" make setup
  echo "fresh-check: make setup took $(( $(date +%s) - started )) s"
  timeout "$limit" npx tsc -p test/tsconfig.json
  HERMES_TEST_NO_BUILD=1 timeout "$limit" npx vitest run --config test/vitest.config.ts \
    test/e2e/pipeline.test.ts test/e2e/generateShards.test.ts test/stats/html.test.ts
fi
echo "fresh-check: passed in $(( $(date +%s) - started )) s on a fresh clone of $(git -C "$repo" rev-parse --short HEAD)"
