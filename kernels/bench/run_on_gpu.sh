#!/usr/bin/env bash
# Everything a machine with a CUDA GPU (an H200 by default) has to run for the kernels, in one go, in a
# few minutes: build the kernels with nvcc for sm_90 (kernels/bench/device: no Debian packages needed,
# only nvcc, CMake and .device-deps from kernels/bench/pack_device_deps.sh), run the kernel tests (the CUDA
# kernels must equal the CPU reference bit for bit, and must not be skipped), run the microbenchmark and
# write a measured calibration file.
#
#   kernels/bench/pack_device_deps.sh        # where the Debian packages are (once); carry .device-deps
#   kernels/bench/run_on_gpu.sh              # on the GPU machine, from anywhere in the repository
#
# Environment:
#   OUT        where logs and the calibration go (default: out/gpu-run); the lab's device runner sets it
#   GPU_FILE   calibration under kernels/calibration/ to measure for (default: h200)
#   NVCC       nvcc (default: /usr/local/cuda/bin/nvcc)
#   ARCHS      CMAKE_CUDA_ARCHITECTURES (default: "90-real;90-virtual", sm_90 code plus compute_90 PTX)
#   BUILD_DIR  build directory (default: build-device)
#   JOBS       parallel build jobs (default: number of cores)
#   BENCH_ARGS extra arguments for the benchmark, e.g. "--max-size 268435456 --repetitions 21"
#
# Writes under $OUT: summary.txt, nvidia-smi.txt, build.log, kernel_tests.log, kernel_tests.xml,
# calibrate.log and $GPU_FILE.json, the measured calibration. To adopt it: copy it to
# kernels/calibration/, then re-derive the other GPUs' files (kernels/README.md, "Calibration").
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-out/gpu-run}
GPU_FILE=${GPU_FILE:-h200}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
ARCHS=${ARCHS:-90-real;90-virtual}
BUILD_DIR=${BUILD_DIR:-build-device}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
: >"$OUT/summary.txt"

log() { printf '[run_on_gpu] %s\n' "$*" | tee -a "$OUT/summary.txt" >&2; }
fail() {
  log "FAILED: $*"
  exit 1
}
start=$(date +%s)
elapsed() { echo "$(($(date +%s) - start)) s"; }

{ nvidia-smi || echo "nvidia-smi not available"; } >"$OUT/nvidia-smi.txt" 2>&1
log "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo unknown)"

[ -x "$NVCC" ] || fail "no nvcc at $NVCC (set NVCC)"
[ -d .device-deps ] || fail "no .device-deps: run kernels/bench/pack_device_deps.sh where the Debian packages are"
{
  cmake -S kernels/bench/device -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCHS" -DDEPS_DIR="$PWD/.device-deps" &&
    cmake --build "$BUILD_DIR" -j "$JOBS"
} >"$OUT/build.log" 2>&1 || fail "build (see $OUT/build.log)"
log "built after $(elapsed)"

# All kernel tests; Gpu.* compare the CUDA kernels with the CPU reference bit for bit.
"$BUILD_DIR/kernel_tests" --gtest_output="xml:$OUT/kernel_tests.xml" >"$OUT/kernel_tests.log" 2>&1 ||
  fail "kernel tests (see $OUT/kernel_tests.log)"
if grep -q "no CUDA device:" "$OUT/kernel_tests.log"; then
  fail "GPU tests were skipped: the device is not visible (see $OUT/kernel_tests.log)"
fi
log "kernel tests passed ($(grep -c '^\[       OK \]' "$OUT/kernel_tests.log") tests) after $(elapsed)"

# shellcheck disable=SC2086  # BENCH_ARGS is a list of arguments
"$BUILD_DIR/calibrate" --from "kernels/calibration/$GPU_FILE.json" --out "$OUT/$GPU_FILE.json" ${BENCH_ARGS:-} \
  >"$OUT/calibrate.log" 2>&1 || fail "calibrate (see $OUT/calibrate.log)"
log "calibration written to $OUT/$GPU_FILE.json after $(elapsed)"
sed -n '/^fits of/,$p' "$OUT/calibrate.log" | tee -a "$OUT/summary.txt"
