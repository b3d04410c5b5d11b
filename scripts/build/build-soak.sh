#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-soak.sh SRC_TREE OUT_DIR
# Build the HMM soak test, the fuzzer, the fault-injection suite, the
# demo and the zap regression test (tests/programs/hmm-{soak,fuzz,finj,
# demo,zap}.c) statically
# against the uapi headers of the kernel tree SRC_TREE (read-only: "make
# O=OUT_DIR/hdr headers", or UAPI_INCLUDE=DIR to reuse installed ones) and
# hmm_dummy's private ABI header, SRC_TREE/drivers/char/hmm_dummy_uapi.h
# (not a uapi header: the programs include it from the tree, with -I), into
#   OUT_DIR/soak/hmm-soak     the program
#   OUT_DIR/suites/soak       the guest suite hook (tests/guest/suites/
#                             soak.sh), run by tests/guest/init for the
#                             suite "soak"
#   OUT_DIR/{fuzz,finj}/hmm-*, OUT_DIR/suites/{fuzz,finj}  the same for the
#                             suites "fuzz" and "finj" (tests/plans/series)
#   OUT_DIR/demo/hmm-demo, OUT_DIR/suites/demo  the same for the suite "demo"
#                             (tests/plans/demo, scripts/demo.sh)
#   OUT_DIR/zap/hmm-zap, OUT_DIR/suites/zap  the same for the suite "zap"
#                             (tests/plans/series; it also needs the tree's
#                             lib/test_hmm_uapi.h)
#   OUT_DIR/soak/bin/stress-ng  with SOAK_STRESS_NG=1 and a host stress-ng:
#                             a wrapper that runs Debian's (dynamically
#                             linked) stress-ng through its own loader and
#                             the libraries ldd lists, copied to
#                             OUT_DIR/soak/stress-ng/
# OUT_DIR is a tests directory for scripts/build/mkinitramfs.sh. SRC_TREE must
# have drivers/char/hmm_dummy_uapi.h (the series' tree).
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -eq 2 ] || usage_error "SRC_TREE and OUT_DIR expected"
src_out "$1" "$2"
[ -f "$src/drivers/char/hmm_dummy_uapi.h" ] ||
	{ echo "build-soak: $src has no drivers/char/hmm_dummy_uapi.h (not the series' tree)" >&2; exit 2; }
mkdir -p "$out/soak" "$out/suites" "$out/logs"
uapi=$(uapi_headers "$src" "$out/hdr")
# The soak test and, in the same way, the hostile-input fuzzer, the
# fault-injection suite, the demo and the zap test: tests/programs/hmm-NAME.c ->
# OUT_DIR/NAME/hmm-NAME, and tests/guest/suites/NAME.sh -> OUT_DIR/suites/NAME.
for name in soak fuzz finj demo zap; do
	mkdir -p "$out/$name"
	${CC:-gcc} -Wall -Wextra -O2 -static -I "$src" -isystem "$uapi" "$TOP/tests/programs/hmm-$name.c" \
		-o "$out/$name/hmm-$name.tmp" -lpthread
	mv "$out/$name/hmm-$name.tmp" "$out/$name/hmm-$name"
	install -m 0755 "$TOP/tests/guest/suites/$name.sh" "$out/suites/$name"
	install -m 0644 "$TOP/tests/guest/suite-lib.sh" "$out/suite-lib.sh"
	echo "build-soak: built $out/$name/hmm-$name" >&2
done

# stress-ng (optional): Debian's is dynamically linked. Copy it with every
# library ldd resolves and its ELF interpreter, and run it through that
# interpreter with --library-path, so it needs nothing of the busybox guest.
rm -rf "$out/soak/stress-ng" "$out/soak/bin"
[ "${SOAK_STRESS_NG:-0}" = 1 ] || exit 0
sng=$(command -v stress-ng || true)
if [ -z "$sng" ]; then
	echo "build-soak: no stress-ng on this host: the guest runs without it" >&2
	exit 0
fi
d=$out/soak/stress-ng
mkdir -p "$d/lib" "$out/soak/bin"
cp -L "$sng" "$d/stress-ng"
interp=
while read -r line; do
	# "libx.so.1 => /lib/.../libx.so.1 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
	case "$line" in
	*' => '/*) f=${line#* => }; f=${f%% (*} ;;
	/*) f=${line%% (*}; interp=$f ;;
	*) continue ;;
	esac
	cp -L "$f" "$d/lib/"
done < <(ldd "$sng")
[ -n "$interp" ] || { echo "build-soak: no ELF interpreter for $sng: the guest runs without stress-ng" >&2; rm -rf "$d" "$out/soak/bin"; exit 0; }
cat > "$out/soak/bin/stress-ng" <<WRAP
#!/bin/sh
# Debian's stress-ng (from $sng), through its own loader and libraries.
exec /tests/soak/stress-ng/lib/$(basename "$interp") --library-path /tests/soak/stress-ng/lib /tests/soak/stress-ng/stress-ng "\$@"
WRAP
chmod 0755 "$out/soak/bin/stress-ng"
echo "build-soak: bundled $sng ($(du -sh "$d" | cut -f1) with its libraries)" >&2
