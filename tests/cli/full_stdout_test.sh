#!/usr/bin/env bash
# Issue 20, item 19: every command whose stdout is full (/dev/full) says so on stderr and exits 1, as
# `sweep` does. `run --format json`, `compare` and `validate` aborted with an uncaught std::system_error
# (exit 134); `run` (table, jsonl, csv) and `plan` exited 0 with the output lost.
# usage: full_stdout_test.sh ZEROSIM (run from the source tree)
set -u
zerosim=$1
failures=0

# expect_full_stdout ARGS...: `zerosim ARGS > /dev/full` exits 1 with "cannot write stdout" on stderr.
expect_full_stdout() {
  local err rc
  err=$("$zerosim" "$@" 2>&1 >/dev/full)
  rc=$?
  if [ "$rc" -ne 1 ] || ! grep -q "error: cannot write stdout" <<<"$err"; then
    echo "FAIL: zerosim $* > /dev/full: exit $rc (want 1), stderr:"
    tail -n 5 <<<"$err" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok:   zerosim $* > /dev/full: exit 1, $(grep -m1 'cannot write stdout' <<<"$err")"
  fi
}

expect_full_stdout --version
expect_full_stdout help
expect_full_stdout run --help
for format in table json jsonl csv; do
  expect_full_stdout run scenarios/default.toml --format "$format"
done
expect_full_stdout run scenarios/default.toml --json -
for format in table json jsonl csv; do
  expect_full_stdout compare scenarios/default.toml scenarios/default.toml --set-b nic.bandwidth=200Gbps \
    --format "$format"
done
# The gate passes with a writable stdout; a full one fails it.
expect_full_stdout validate scenarios/zeropp_paper/fig6_4x100g.toml scenarios/zeropp_paper/fig7_1x100g.toml \
  --baseline scenarios/zeropp_paper/analytic_baseline.json
expect_full_stdout plan scenarios/procurement/v100_ib_links.sweep.toml
expect_full_stdout sweep scenarios/procurement/v100_ib_links.sweep.toml -o - --quiet

if [ "$failures" -ne 0 ]; then
  echo "$failures command(s) lost their output silently or aborted"
  exit 1
fi
