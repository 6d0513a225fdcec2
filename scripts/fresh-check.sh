#!/usr/bin/env bash
# make fresh-check: a fresh clone needs nothing installed by hand.
# By default the suite's own check, test/e2e/freshClone.test.ts (make test runs it too): the committed tree
# cloned into a temporary directory, its make setup with an empty npm cache, then make demo, the README test
# and the HTML report test in the clone. FULL=1 runs .ci/run itself (the whole suite) on such a clone
# instead, bounded by FRESH_CHECK_TIMEOUT seconds (default 1800).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "${FULL:-0}" != 1 ]; then
  cd "$repo"
  exec node test/run.mjs test/e2e/freshClone.test.ts
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-fresh-check-XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/repo"
export npm_config_cache="$work/npm-cache"
cd "$work/repo"
started=$(date +%s)
timeout "${FRESH_CHECK_TIMEOUT:-1800}" .ci/run
echo "fresh-check: .ci/run passed in $(( $(date +%s) - started )) s on a fresh clone of $(git -C "$repo" rev-parse --short HEAD)"
