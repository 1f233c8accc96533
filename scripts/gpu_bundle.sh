#!/usr/bin/env bash
# Builds .gpu/ for one call of the GPU machine, small enough to carry (64 MiB at most):
# ../shared/gpu/bundle.sh builds the release binaries and every test executable (about 70 MiB);
# this keeps only the GPU test executables asked for, strips them and the binaries, and adds
# the nvCOMP/CUB anchors when asked. The tests' data travels with the working tree (`testdata/`,
# found through $WARPZIP_REPO_ROOT/testdata), so nothing else is copied.
#
# Usage, from the repository root:
#   scripts/gpu_bundle.sh [--anchors] [TEST...]
#     TEST       test executables to keep, by name (gpu_rle, gpu_orc_rle, ...); default every gpu_*
#     --anchors  copy ../shared/anchors and download nvCOMP's wheel into .gpu/anchors (about
#                29 MiB; proprietary: it stays in the git-ignored .gpu/, never commit it), and
#                apply scripts/nvcomp_anchor.patch to the harness (u16 columns, ONLY_CASCADED=1):
#                  ONLY_CASCADED=1 bash .gpu/anchors/run.sh codecs COLUMN.bin 64 u16
# Then, with the device tool (carry [".gpu"]):
#   bash .gpu/run.sh                                  # every kept test, GPU required
#   .gpu/bin/warpzip bench --codec orc-rle --column lo_orderdate
# The first run of a new binary compiles its kernels with NVRTC (tens of seconds for the ORC
# decoders): give the first command that needs a kernel family time for it.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
anchors=0
keep=()
for arg in "$@"; do
  case "$arg" in
    --anchors) anchors=1 ;;
    -*) echo "gpu_bundle: unknown option $arg" >&2; exit 2 ;;
    *) keep+=("$arg") ;;
  esac
done
../shared/gpu/bundle.sh > /tmp/gpu_bundle.log 2>&1 || { tail -20 /tmp/gpu_bundle.log >&2; exit 1; }
for t in .gpu/tests/*; do
  name=$(basename "$t")
  base=${name%-*}
  wanted=0
  if [[ ${#keep[@]} -eq 0 ]]; then
    [[ $base == gpu_* ]] && wanted=1
  else
    for k in "${keep[@]}"; do [[ $base == "$k" ]] && wanted=1; done
  fi
  if [[ $wanted -eq 1 ]]; then strip "$t"; else rm "$t"; fi
done
rm -f .gpu/bin/warpzip-*
strip .gpu/bin/*
if [[ $anchors -eq 1 ]]; then
  mkdir -p .gpu/anchors
  cp ../shared/anchors/* .gpu/anchors/
  chmod u+w .gpu/anchors/*
  # Our change to the harness: a u16 element type (i16 columns) and ONLY_CASCADED=1, which skips
  # the general-purpose codecs in mode `codecs` (Cascaded and Bitcomp only).
  patch -s -d .gpu/anchors -p0 < scripts/nvcomp_anchor.patch
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 -d .gpu/anchors \
    nvidia-libnvcomp-cu13==6.0.0.12
fi
ls .gpu/tests
size=$(du -sm .gpu | cut -f1)
# The working tree travels too (testdata/ is most of it): the call carries both.
tree=$(( $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) / 1048576 + 1 ))
echo "gpu_bundle: .gpu is ${size} MiB, the tracked tree ${tree} MiB"
if [[ $((size + tree)) -gt 64 ]]; then
  echo "gpu_bundle: more than the 64 MiB a call can carry; keep fewer tests" >&2
  exit 1
fi
