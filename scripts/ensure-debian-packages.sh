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
  echo "setup: installing ${missing[*]} (apt-get)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "setup: the test suite needs ${missing[*]}; install it with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
