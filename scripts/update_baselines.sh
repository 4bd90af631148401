#!/bin/sh
# Rewrites every validation baseline exactly as tests/CMakeLists.txt gates them, then the bands
# (kernels/calibration/bands.json). Run it in the commit that moves baselines, never in the model change's
# commit (README "Changing the model"), and put the per-group before/after table (`zerosim validate`
# before and after) in that commit's message. bands.json is embedded in the binary: rebuild after this
# script, then run scripts/update_golden.sh.
#   scripts/update_baselines.sh [build/zerosim]
set -e
cd "$(dirname "$0")/.."
zerosim=${1:-build/zerosim}
paper="scenarios/zeropp_paper/fig6_4x100g.toml scenarios/zeropp_paper/fig7_1x100g.toml"
rlhf="scenarios/rlhf/gen_66b_32v100.toml scenarios/rlhf/gen_30b_32v100.toml scenarios/rlhf/train_30b_16v100.toml"
calib="scenarios/calibration/a100_40gb_bf16.toml scenarios/calibration/a100_80gb_bf16.toml
       scenarios/calibration/h100_bf16.toml scenarios/calibration/h100_fp8.toml
       scenarios/calibration/today_h100_fp8.toml scenarios/calibration/today_b200_fp8cs.toml
       scenarios/calibration/today_b200_mxfp8.toml scenarios/calibration/today_b200_fp8.toml
       scenarios/calibration/today_gb200_fp8cs.toml scenarios/calibration/today_gb200_mxfp8.toml
       scenarios/calibration/today_h100_500w_bf16.toml scenarios/calibration/today_h100_500w_float8.toml
       $(find scenarios/calibration -maxdepth 1 -name 'v100_*_amp.toml' | LC_ALL=C sort)"
published=$(find scenarios/published -name '*.toml' -not -path '*/models/*' | LC_ALL=C sort)
# validate exits 1 when points lie outside their tolerance and still writes the file: each run must
# leave a file newer than the marker, whatever its exit status.
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
run() {
  out=$1; shift
  "$zerosim" validate "$@" >/dev/null 2>&1 || true
  if [ ! "$out" -nt "$marker" ]; then
    echo "update_baselines: $zerosim validate $* did not write $out" >&2; exit 1
  fi
}
sleep 1
# Word splitting of the lists is intended: each is a list of paths without spaces.
# shellcheck disable=SC2086
run scenarios/zeropp_paper/analytic_baseline.json $paper --write-baseline scenarios/zeropp_paper/analytic_baseline.json
run scenarios/zeropp_paper/sim_baseline.json $paper --engine sim --write-baseline scenarios/zeropp_paper/sim_baseline.json
run scenarios/published/analytic_baseline.json $published --write-baseline scenarios/published/analytic_baseline.json
run scenarios/rlhf/analytic_baseline.json $rlhf --write-baseline scenarios/rlhf/analytic_baseline.json
run scenarios/rlhf/sim_baseline.json $rlhf --engine sim --write-baseline scenarios/rlhf/sim_baseline.json
run scenarios/calibration/analytic_baseline.json $calib --write-baseline scenarios/calibration/analytic_baseline.json
run kernels/calibration/bands.json --write-bands kernels/calibration/bands.json
echo "baselines and bands rewritten; now rebuild (bands.json is embedded) and run scripts/update_golden.sh"
