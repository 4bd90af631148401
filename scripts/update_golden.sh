#!/bin/sh
# Regenerates the golden tests' expected outputs (tests/golden/*.out) from the current build, e.g. after a
# change that moves numbers on purpose. Review the diff (git diff tests/golden) before committing it.
#   scripts/update_golden.sh [build/zerosim] [CASE ...]
set -e
cd "$(dirname "$0")/.."
zerosim=${1:-build/zerosim}
[ $# -gt 0 ] && shift
exec python3 tests/golden/golden.py --zerosim "$zerosim" update "$@"
