#!/usr/bin/env bash
# ZeroSim's one entry point for set-up, build, run and test. The single source of truth for what the
# build needs: .ci/run and the README call this script and nothing else.
#
#   ./dev.sh run [ARGS...]   install the Debian packages that are missing, build the zerosim command (not the tests;
#                            without a GPU not its CUDA kernels either), then `zerosim run ARGS...` (no ARGS: the
#                            embedded default scenario)
#   ./dev.sh test            install what is missing, build, run the whole test suite (ctest)
#   ./dev.sh build           install what is missing and build
#   ./dev.sh deps            only install what is missing
#   ./dev.sh property [N]    build and run the property run's long mode over N random scenarios (default 5000,
#                            each also replayed; tests/property/property_check.h): per property its violations
#   ./dev.sh asan            build with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan, run ctest
#   ./dev.sh fuzz [SECONDS]  build the libFuzzer target in build-fuzz (clang) and fuzz the loaders and the
#                            evaluation for SECONDS (default 300) from a seed corpus of the shipped inputs
#
# Environment: BUILD_DIR (default build), BUILD_TYPE (default Release), JOBS (default: number of cores).
# Idempotent: on a machine that already has the packages it installs nothing and rebuilds only what changed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-Release}
JOBS=${JOBS:-$(nproc)}

# Debian 12 packages. SimGrid 3.32 has no CMake package in Debian: it is found with pkg-config.
APT_PACKAGES=(
  cmake g++ make pkg-config git
  libsimgrid-dev libeigen3-dev libboost-program-options-dev libfmt-dev libgtest-dev
  libtomlplusplus-dev nlohmann-json3-dev pybind11-dev
)
# Python tools for the notebooks (run headless in the tests; nbconvert for `jupyter nbconvert --execute`) and for
# the Python package's DataFrames (pandas; python/README.md), from PyPI for the python3 on PATH. The package's
# module is built against that python3's headers (pyenv's include them; Debian's python3 needs python3-dev).
PIP_PACKAGES=(nbclient nbformat nbconvert ipykernel matplotlib numpy pandas)

log() { printf '[dev.sh] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root to run: $*"; exit 1
  fi
}

install_apt() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

# The Python packages are the tests' and the notebooks' only: `run` does not wait for them.
install_pip() {
  local py_missing=()
  for p in "${PIP_PACKAGES[@]}"; do
    python3 -m pip show -q "$p" >/dev/null 2>&1 || py_missing+=("$p")
  done
  if [ ${#py_missing[@]} -gt 0 ]; then
    log "installing Python packages: ${py_missing[*]}"
    python3 -m pip install -q --disable-pip-version-check "${py_missing[@]}"
  fi
}

install_deps() { install_apt; install_pip; }

have_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }

# build [TARGET]: configure once, then build TARGET (default: everything, the tests included).
#   The CUDA kernels are built wherever the toolkit is (nvcc is not on PATH on these machines: its usual
#   place), for the attached GPU's architecture when there is one, else for every architecture of
#   CMakeLists.txt (CI proves they compile). Only `run` on a machine without a GPU leaves them out (nothing
#   could run them there, and they are most of a fresh build's time); the next full build adds them, which
#   recompiles only kernels/ (ZEROSIM_HAVE_CUDA is private to it).
build() {
  local target_args=()
  if [ $# -gt 0 ]; then target_args=(--target "$1"); fi
  local nvcc=/usr/local/cuda/bin/nvcc cuda=OFF
  if [ -x "$nvcc" ] && { [ $# -eq 0 ] || have_gpu; }; then cuda=ON; fi
  local cuda_args=(-DZEROSIM_CUDA="$cuda")
  if [ "$cuda" = ON ]; then
    cuda_args+=(-DCMAKE_CUDA_COMPILER="$nvcc")
    if have_gpu; then cuda_args+=(-DCMAKE_CUDA_ARCHITECTURES=native); fi
  fi
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    # The notebooks' tests use the python3 on PATH, the one pip installed their packages for.
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DPython3_EXECUTABLE="$(command -v python3)" \
      "${cuda_args[@]}"
  elif [ "$cuda" = ON ] && grep -q '^ZEROSIM_CUDA:BOOL=OFF' "$BUILD_DIR/CMakeCache.txt"; then
    log "adding the CUDA kernels to $BUILD_DIR (it was configured by \`run\` without them)"
    cmake "$BUILD_DIR" "${cuda_args[@]}"
  fi
  cmake --build "$BUILD_DIR" -j "$JOBS" "${target_args[@]}"
}

# ASan + UBSan (gcc), every test. Slow (about 3x): a developer and CI-able job, not part of `test`.
asan() {
  local dir=build-asan
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    # No Python module: an ASan-instrumented module cannot load into an uninstrumented python3.
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZEROSIM_CUDA=OFF -DZEROSIM_PYTHON=OFF \
      -DPython3_EXECUTABLE="$(command -v python3)" \
      -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  fi
  cmake --build "$dir" -j "$JOBS"
  # SimGrid's context switches confuse ASan's stack bookkeeping: detect_stack_use_after_return stays off.
  cd "$dir" && ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "$JOBS"
}

# libFuzzer over the loaders and the evaluation (fuzz/README.md). Needs clang (Debian's clang package
# ships libFuzzer).
fuzz() {
  local seconds=${1:-300} dir=build-fuzz
  command -v clang++ >/dev/null || { log "fuzz needs clang++ (apt-get install clang)"; exit 1; }
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZEROSIM_FUZZ=ON \
      -DZEROSIM_BUILD_TESTS=OFF -DZEROSIM_CUDA=OFF -DZEROSIM_PYTHON=OFF \
      -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
  fi
  cmake --build "$dir" -j "$JOBS" --target loaders_fuzz
  mkdir -p "$dir/fuzz_findings" "$dir/fuzz_work"
  # fuzz_work collects new inputs; the generated seeds stay as they are. -max_len: inputs up to 256 KiB, so
  # that the 68 KB keys of tens of thousands of parts that once overflowed toml++'s stack can be produced.
  "$dir/fuzz/loaders_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=262144 \
    -artifact_prefix="$dir/fuzz_findings/" "$dir/fuzz_work" "$dir/fuzz_corpus"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  deps) install_deps ;;
  build) install_deps; build ;;
  run) install_apt; build zerosim; exec "$BUILD_DIR/zerosim" run "$@" ;;   # the command alone, not the tests
  test) install_deps; build; cd "$BUILD_DIR" && exec ctest --output-on-failure -j "$JOBS" ;;
  property) install_apt; build property_run; exec "$BUILD_DIR/tests/property_run" --cases "${1:-5000}" ;;
  asan) install_deps; asan ;;
  fuzz) install_deps; fuzz "$@" ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
