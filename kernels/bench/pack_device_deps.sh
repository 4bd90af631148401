#!/usr/bin/env bash
# Copies the header-only dependencies and GoogleTest's sources that kernels/bench/device/CMakeLists.txt
# needs into .device-deps/ (about 15 MiB, ignored by git), on a machine that has the Debian packages
# (./dev.sh deps), so that a bare CUDA machine can build the kernels: carry .device-deps there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
DEST=${1:-.device-deps}
rm -rf "$DEST"
mkdir -p "$DEST/include"
cp -r /usr/include/eigen3 "$DEST/eigen3"
cp -r /usr/include/fmt /usr/include/nlohmann "$DEST/include/"
cp -r /usr/src/googletest "$DEST/googletest"
du -sh "$DEST"
