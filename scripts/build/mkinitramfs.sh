#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mkinitramfs.sh BUILD_DIR TESTS_DIR OUT.cpio.gz
# Test initramfs: Debian's busybox-static, tests/guest/init, the kernel's
# modules from BUILD_DIR and the test programs and runners from TESTS_DIR
# (made by scripts/build/build-guest-tests.sh), with TESTS_DIR/rootfs at the root.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help) usage; exit 0 ;; -*) usage_error "unknown option $1" ;; esac
[ $# -eq 3 ] || usage_error "BUILD_DIR, TESTS_DIR and OUT.cpio.gz expected"
out=$1 tests=$2 img=$3
need_pkgs busybox-static cpio kmod
bb=/bin/busybox
file -L "$bb" 2>/dev/null | grep -q 'statically linked' || [ ! -x /usr/bin/file ] ||
	die "$bb is not statically linked (install busybox-static)"

st=$(mktemp -d)
trap 'rm -rf "$st"' EXIT
mkdir -p "$st"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,tests,lib/modules}
cp "$bb" "$st/bin/busybox"
for a in $("$bb" --list); do
	[ -e "$st/bin/$a" ] || ln -s busybox "$st/bin/$a"
done
install -m 0755 "$TOP/tests/guest/init" "$st/init"
echo 'root:x:0:0:root:/root:/bin/sh' > "$st/etc/passwd"
echo 'root:x:0:' > "$st/etc/group"
if grep -q '^CONFIG_MODULES=y' "$out/.config"; then
	kmake "$out" "$(cat "$out/source" 2>/dev/null || echo "$KTREE")" -s \
		INSTALL_MOD_PATH="$st" INSTALL_MOD_STRIP=1 modules_install >/dev/null
	rm -f "$st"/lib/modules/*/build "$st"/lib/modules/*/source
fi
cp -a "$tests/." "$st/tests/"
# TESTS_DIR/rootfs (bash and the shared libraries of the installed
# kselftests) goes over the root, replacing busybox's links of the same name.
if [ -d "$st/tests/rootfs" ]; then
	cp -a --remove-destination "$st/tests/rootfs/." "$st/"
	rm -rf "$st/tests/rootfs"
fi
(cd "$st" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -1 > "$img"
log "initramfs: $img ($(du -h "$img" | cut -f1))"
