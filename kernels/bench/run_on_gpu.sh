#!/usr/bin/env bash
# Everything a machine with a CUDA GPU has to run for the kernels and the compute calibration, in one go,
# in a few minutes: build the kernels and benchmarks with nvcc for the attached GPU (kernels/bench/device:
# no Debian packages needed, only nvcc, CMake, cuBLASLt and .device-deps from
# kernels/bench/pack_device_deps.sh), run the kernel tests (the CUDA quantization kernels must equal the CPU
# reference bit for bit; the cuBLASLt GEMM and the attention must match float64 references; the compute
# measurements must be sane; none may be skipped), then run both benchmarks and write a measured
# calibration file with its "compute" section.
#
#   kernels/bench/pack_device_deps.sh        # where the Debian packages are (once); carry .device-deps
#   kernels/bench/run_on_gpu.sh              # on the GPU machine, from anywhere in the repository
#
# Environment:
#   OUT          where logs and the calibration go (default: out/gpu-run); the lab's device runner sets it
#   GPU_FILE     calibration under kernels/calibration/ to measure for (default: h200)
#   NVCC         nvcc (default: /usr/local/cuda/bin/nvcc)
#   ARCHS        CMAKE_CUDA_ARCHITECTURES (default: native, the attached GPU's)
#   BUILD_DIR    build directory (default: build-device)
#   JOBS         parallel build jobs (default: number of cores)
#   GEMM_GRID    full (default: every power of two from 256 to 16384, 343 shapes, about 15 s of GPU time on
#                an H200) or reduced (64 shapes)
#   GEMM_SHAPES  a model's GEMM shapes too, "MxNxK,..." (default: none)
#   BENCH_ARGS   extra arguments for the benchmark, e.g. "--max-size 268435456 --repetitions 21"
#
# Writes under $OUT: summary.txt, nvidia-smi.txt, build.log, kernel_tests.log, kernel_tests.xml,
# calibrate.log and $GPU_FILE.json, the measured calibration. To adopt it: copy it to
# kernels/calibration/, then re-derive the other GPUs' files (kernels/README.md, "Calibration"); the derived
# files get no compute section (nothing was measured on those GPUs).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-out/gpu-run}
GPU_FILE=${GPU_FILE:-h200}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
ARCHS=${ARCHS:-native}
GEMM_GRID=${GEMM_GRID:-full}
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
# cuBLASLt: the toolkit's, else a Python wheel's (nvidia-cublas, as PyTorch installs it).
cublas_args=()
cuda_root=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
if ! compgen -G "$cuda_root/lib64/libcublasLt.so*" >/dev/null && ! compgen -G "$cuda_root/targets/*/lib/libcublasLt.so*" >/dev/null; then
  wheel=$(python3 -c 'import nvidia; print(*nvidia.__path__)' 2>/dev/null || true)
  lib="" hdr=""
  if [ -n "$wheel" ]; then
    # shellcheck disable=SC2086  # the namespace package may span several folders
    lib=$(find $wheel -name 'libcublasLt.so*' 2>/dev/null | sort | head -n1)
    # shellcheck disable=SC2086
    hdr=$(find $wheel -name cublasLt.h 2>/dev/null | head -n1)
  fi
  if [ -n "$lib" ] && [ -n "$hdr" ]; then
    cublas_args=(-DCUBLASLT_LIBRARY="$lib" -DCUBLASLT_INCLUDE_DIR="$(dirname "$hdr")")
    log "cuBLASLt from the Python wheel: $lib"
  fi
fi
{
  cmake -S kernels/bench/device -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCHS" -DDEPS_DIR="$PWD/.device-deps" "${cublas_args[@]}" &&
    cmake --build "$BUILD_DIR" -j "$JOBS"
} >"$OUT/build.log" 2>&1 || fail "build (see $OUT/build.log)"
log "built after $(elapsed) ($(grep -o 'compute benchmark: [^)]*)' "$OUT/build.log" || echo 'NO compute benchmark: no cuBLASLt'))"

# All kernel tests; Gpu.* compare the CUDA kernels with the CPU reference bit for bit, ComputeGpu.* check
# the GEMM and attention against float64 references and the compute measurements' sanity.
tests_rc=0
"$BUILD_DIR/kernel_tests" --gtest_output="xml:$OUT/kernel_tests.xml" >"$OUT/kernel_tests.log" 2>&1 || tests_rc=$?
grep -E '^\[  (FAILED|SKIPPED) \] [A-Za-z0-9_]+\.[A-Za-z0-9_]+$' "$OUT/kernel_tests.log" | sort -u |
  tee -a "$OUT/summary.txt" >&2 || true
[ "$tests_rc" -eq 0 ] || fail "kernel tests (see $OUT/kernel_tests.log)"
if grep -q "no CUDA device:" "$OUT/kernel_tests.log"; then
  fail "GPU tests were skipped: the device is not visible (see $OUT/kernel_tests.log)"
fi
compute_args=(--gemm-shapes "${GEMM_SHAPES:-}")
[ -n "${GEMM_SHAPES:-}" ] || compute_args=()
[ "$GEMM_GRID" = full ] && compute_args+=(--full)
if grep -q "no compute benchmark:" "$OUT/kernel_tests.log"; then
  log "COMPUTE NOT MEASURED: $(grep -m1 -o 'no compute benchmark:.*' "$OUT/kernel_tests.log")"
  compute_args=(--no-compute)
fi
log "kernel tests passed ($(grep -c '^\[       OK \]' "$OUT/kernel_tests.log") tests) after $(elapsed)"

# shellcheck disable=SC2086  # BENCH_ARGS is a list of arguments
"$BUILD_DIR/calibrate" --from "kernels/calibration/$GPU_FILE.json" --out "$OUT/$GPU_FILE.json" \
  "${compute_args[@]}" ${BENCH_ARGS:-} >"$OUT/calibrate.log" 2>&1 || fail "calibrate (see $OUT/calibrate.log)"
log "calibration written to $OUT/$GPU_FILE.json after $(elapsed)"
sed -n '/^fits of/,/^$/p' "$OUT/calibrate.log" | tee -a "$OUT/summary.txt"
# The compute part, shortened: launch costs, square GEMMs, attention and notes.
grep -E '^(compute:|launch:|GEMM |causal attention|note:)' "$OUT/calibrate.log" | tee -a "$OUT/summary.txt"
awk '/^GEMM /{t=$2} $1==$2 && $2==$3 && $1 ~ /^[0-9]+$/ {print "  " t, $0}' "$OUT/calibrate.log" |
  tee -a "$OUT/summary.txt"
sed -n '/^causal attention/,/^$/p' "$OUT/calibrate.log" | tail -n +2 | tee -a "$OUT/summary.txt"
