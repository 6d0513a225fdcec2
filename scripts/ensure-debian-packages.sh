#!/usr/bin/env bash
# make setup's system packages: ensure-debian-packages.sh PROGRAM:PACKAGE ...
# Each Debian PACKAGE whose PROGRAM (a command on PATH, or an absolute path) is missing is installed
# when this user can install packages (root with apt-get); otherwise the message names the command
# to run, and setup fails before a test fails for want of it.
set -euo pipefail
missing=()
for pair in "$@"; do
  program=${pair%%:*}
  package=${pair#*:}
  command -v "$program" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  # Without recommends: chromium alone is then 2 packages, 113 MB (about 45 s with apt-get update on a
  # fresh CI machine); its recommends would add a desktop's worth of daemons the tests never start.
  echo "setup: installing ${missing[*]} (apt-get)" >&2
  started=$(date +%s)
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: apt-get could not install ${missing[*]} (its messages above); the test suite needs them: install them, then run make again" >&2
    exit 1
  fi
  rm -f "$log"
  echo "setup: installed ${missing[*]} in $(( $(date +%s) - started )) s" >&2
else
  echo "setup: the test suite needs ${missing[*]}; install it with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
