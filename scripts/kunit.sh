#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kunit.sh TREE KTAP_OUT
# The series' KUnit tests the way KUnit runs them: in TREE,
# tools/testing/kunit/kunit.py run --arch=x86_64 (a kernel of its own,
# booted in QEMU) with the tests of mm/.kunitconfig, built into
# $BUILD_ROOT/kunit with ccache. The KTAP goes to KTAP_OUT, for the host's
# KTAP parser (scripts/boot/ktap.awk); exits 1 if kunit.py fails or any test
# fails.
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) usage; exit 0 ;; -*) usage_error "unknown option $1" ;; esac
[ $# -eq 2 ] || usage_error "TREE and KTAP_OUT expected"
tree=$(cd "$1" && pwd) out=$2
[ -f "$tree/mm/.kunitconfig" ] || die "no mm/.kunitconfig in $tree"
need_pkgs python3 qemu-system-x86 ccache
export CCACHE_DIR=${CCACHE_DIR:-$WORKDIR/ccache}
export CCACHE_BASEDIR=$WORKDIR CCACHE_NOHASHDIR=1
mkdir -p "$BUILD_ROOT/kunit"
# kunit.py of 7.x starts QEMU with "-accel kvm -accel hvf -accel tcg", the
# first that works; KVM guests hang on the machines this runs on, so a
# qemu-system-x86_64 first in PATH drops the -accel options that are not
# the one QEMU_ACCEL names (tcg by default, as run-qemu.sh). 6.12's kunit.py
# passes no -accel, and the wrapper changes nothing there.
wrap=$BUILD_ROOT/kunit-bin
mkdir -p "$wrap"
real_qemu=$(command -v qemu-system-x86_64) || die "no qemu-system-x86_64"
cat > "$wrap/qemu-system-x86_64" <<EOF
#!/bin/bash
a=()
while [ \$# -gt 0 ]; do
	if [ "\$1" = -accel ] && [ \$# -gt 1 ]; then
		[ "\$2" = "${QEMU_ACCEL:-tcg}" ] && a+=(-accel "\$2")
		shift 2
		continue
	fi
	a+=("\$1")
	shift
done
exec "$real_qemu" "\${a[@]}"
EOF
chmod +x "$wrap/qemu-system-x86_64"
# --raw_output=kunit: kunit.py extracts the KTAP and prints it unparsed;
# the host parses it with the same parser as every other KTAP.
(cd "$tree" && PATH=$wrap:$PATH python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--kunitconfig=mm --build_dir="$BUILD_ROOT/kunit" --jobs="$JOBS" \
	--timeout=900 --make_options "CC=ccache gcc" --raw_output=kunit) > "$out"
# kunit.py's own status lines come before the KTAP, which the parser
# accepts only from its version line on (text before it fails).
sed -n '/^K\{0,1\}TAP version/,$p' "$out" |
	awk -v suite=kunit.py -f "$TOP/scripts/boot/ktap.awk" | tee "$out.results"
! grep -q ' FAIL' "$out.results"
