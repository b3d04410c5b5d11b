#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-bench.sh SRC_TREE OUT_DIR
# Build the HMM benchmark (tests/programs/hmm-bench.c) statically against
# the uapi headers of the kernel tree SRC_TREE (read-only: "make O=OUT_DIR/hdr
# headers", or UAPI_INCLUDE=DIR to reuse installed ones, e.g. the ones
# scripts/build/build-guest-tests.sh made in its OUT_DIR/hdr/usr/include), into
#   OUT_DIR/bench/hmm-bench   the program
#   OUT_DIR/suites/bench      the guest suite hook (tests/guest/suites/
#                             bench.sh), run by tests/guest/init for the
#                             suite "bench"
# OUT_DIR is a tests directory for scripts/build/mkinitramfs.sh (it may be the one
# of build-guest-tests.sh). lib/test_hmm_uapi.h and hmm_dummy's private ABI
# header, drivers/char/hmm_dummy_uapi.h, come from SRC_TREE itself (-I); on a
# base tree, without the latter, the program builds without the series' rows.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -eq 2 ] || usage_error "SRC_TREE and OUT_DIR expected"
src_out "$1" "$2"
[ -f "$src/lib/test_hmm_uapi.h" ] || { echo "build-bench: $src has no lib/test_hmm_uapi.h" >&2; exit 2; }
mkdir -p "$out/bench" "$out/suites" "$out/logs"
uapi=$(uapi_headers "$src" "$out/hdr")
${CC:-gcc} -Wall -Wextra -Wno-unused-parameter -O2 -static \
	-I "$src" -isystem "$uapi" "$TOP/tests/programs/hmm-bench.c" -o "$out/bench/hmm-bench.tmp"
mv "$out/bench/hmm-bench.tmp" "$out/bench/hmm-bench"
install -m 0755 "$TOP/tests/guest/suites/bench.sh" "$out/suites/bench"
install -m 0644 "$TOP/tests/guest/suite-lib.sh" "$out/suite-lib.sh"
if [ -f "$src/drivers/char/hmm_dummy_uapi.h" ]; then
	echo "build-bench: built $out/bench/hmm-bench (with the series' hmm_dummy rows)" >&2
else
	echo "build-bench: built $out/bench/hmm-bench (no drivers/char/hmm_dummy_uapi.h: upstream rows only)" >&2
fi
