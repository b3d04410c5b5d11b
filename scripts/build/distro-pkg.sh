#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# distro-pkg.sh [--debian [--compile-only]] [--seed BUILD_DIR] TREE
# The distribution path: build installable Debian kernel packages
# ("make bindeb-pkg") from TREE, a kernel tree with the series applied (an
# import made by scripts/series/import.sh --worktree), and check what they hold.
#
#   (default)     configs/guest.config + configs/hmm.config: the small test
#                 kernel, packaged (a few minutes; what CI runs).
#   --debian      Debian's own amd64 config of the base (package
#                 linux-config-7.3 from trixie-backports, for 6.12
#                 linux-config-6.12 from the machine's Debian 12 archive, at
#                 the version of the base source) + configs/distro.config:
#                 the kernel a distro would ship. A full build: hours on 2
#                 cores.
#   --debian --compile-only
#                 Debian's config + distro.config, olddefconfig, every symbol
#                 checked, then every kernel .c file the series touches
#                 compiled under it (what CI runs: minutes, not hours).
#
# Package checks (both full modes): linux-image holds the kernel, its config
# with CONFIG_HMM_DEVMEM=y and CONFIG_HMM_DEVICE_MIRROR=y, and the modules hmm_dummy.ko and test_mmu_notifier.ko
# built for that kernel release; linux-headers holds the series' headers
# (hmm_mirror.h, hmm_migrate.h, hmm_pt.h); an out-of-tree module using the
# mirror and device-memory API (tests/programs/extmod/) builds against the extracted
# headers package, as a driver writer's would. CONFIG_HMM_DEVMEM=n with no
# mirror either is the build-nohmm stage of scripts/test.sh.
# --seed BUILD_DIR starts from a copy of the objects of an earlier build of
# TREE (the pipeline passes its series build: kbuild then only rebuilds what
# the configs make differ).
# Output: $HMM_WORKDIR/BASE/build/distro-{guest,debian}/*.deb
. "$(dirname "$0")/../lib.sh"
mode=guest compile_only=0 seed=
while [ $# -gt 0 ]; do
	case "$1" in
	--debian) mode=debian ;;
	--compile-only) compile_only=1 ;;
	--seed) need_arg "$@"; seed=$2; shift ;;
	--help|-h) usage; exit 0 ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || usage_error "one TREE expected"
[ $compile_only = 0 ] || [ $mode = debian ] || usage_error "--compile-only goes with --debian"
tree=$(cd "$1" && pwd)
ensure_tree
# The Build-Depends of the kernel's own scripts/package/mkdebian; 7.x's
# adds libdw-dev and python3 to 6.12's.
need_pkgs dpkg-dev debhelper kmod cpio bc bison flex libelf-dev libdw-dev libssl-dev \
	python3 rsync xz-utils

top=$BUILD_ROOT/distro-$mode
out=$top/build            # O=; dpkg-buildpackage puts the .debs in its parent
[ -z "$seed" ] || seed_build "$seed" "$out"
mkdir -p "$out"
rm -f "$top"/*.deb "$top"/*.buildinfo "$top"/*.changes

if [ $mode = debian ]; then
	# The same Debian version as the base source (base-version), from the
	# same package source (lib.sh's deb_fetch, base_apt), when the
	# archive still has it.
	deb=$(deb_fetch "$DEB_CONFIG" "$(base_version)")
	dl=$WORKDIR/debian-config
	rm -rf "$dl" && mkdir -p "$dl" && dpkg-deb -x "$deb" "$dl/x"
	xz -dc "$dl/x/usr/src/$DEB_CONFIG/config.amd64_none_amd64.xz" > "$dl/config.amd64"
	log "distro-pkg: Debian config from $(basename "$deb")"
	mapfile -t cfg < <(configs distro)
	BASE_CONFIG=$dl/config.amd64 "$TOP/scripts/build/config.sh" "$tree" "$out" "${cfg[@]}"
else
	mapfile -t cfg < <(configs guest hmm)
	"$TOP/scripts/build/config.sh" "$tree" "$out" "${cfg[@]}"
fi

if [ $compile_only = 1 ]; then
	mapfile -t files < <(touched_files "$tree" '*.c')
	# Touched files built only under a symbol a distro config may leave
	# off. Debian's has no DEVICE_PRIVATE, hence no HSA_AMD_SVM, and no
	# KUnit.
	declare -A guard=(
		[drivers/gpu/drm/amd/amdkfd/kfd_svm.c]=CONFIG_HSA_AMD_SVM
		[mm/hmm_pt_test.c]=CONFIG_HMM_PT_KUNIT_TEST
		[mm/hmm_mirror_test.c]=CONFIG_HMM_MIRROR_KUNIT_TEST
	)
	kmake "$out" "$tree" -s prepare
	objs=() skipped=()
	for f in "${files[@]}"; do
		o=${f%.c}.o
		case "$o" in
		drivers/gpu/drm/amd/amdkfd/*) o=drivers/gpu/drm/amd/amdgpu/../amdkfd/${o#drivers/gpu/drm/amd/amdkfd/} ;;
		esac
		# Files the config does not build (their structures are
		# not even defined then) are listed, not compiled.
		g=${guard[$f]:-}
		if [ -n "$g" ] && ! grep -qE "^$g=(y|m)$" "$out/.config"; then
			skipped+=("$f ($g off)")
			continue
		fi
		rm -f "$out/$o"
		objs+=("$o")
	done
	kmake "$out" "$tree" -s "${objs[@]}" ||
		die "the series does not compile under Debian's config"
	for o in "${objs[@]}"; do
		[ -f "$out/$o" ] || die "$o was not built under Debian's config"
	done
	log "distro-pkg: ${#objs[@]} touched files compile under Debian's config + distro.config"
	[ ${#skipped[@]} -eq 0 ] || log "distro-pkg: not built by that config: ${skipped[*]}"
	exit 0
fi

start=$(date +%s)
kmake "$out" "$tree" -s bindeb-pkg >"$top/bindeb-pkg.log" 2>&1 ||
	{ tail -n 40 "$top/bindeb-pkg.log" >&2; die "make bindeb-pkg failed (log: $top/bindeb-pkg.log)"; }
log "distro-pkg: bindeb-pkg in $(( $(date +%s) - start ))s"
ls "$top"/*.deb >&2

# Check the packages.
krel=$(kmake "$out" "$tree" -s kernelrelease)
image=$(ls "$top"/linux-image-"$krel"_*.deb 2>/dev/null | grep -v -- -dbg_ | head -n 1 || true)
headers=$(ls "$top"/linux-headers-"$krel"_*.deb 2>/dev/null | head -n 1 || true)
[ -n "$image" ] || die "no linux-image-$krel package"
[ -n "$headers" ] || die "no linux-headers-$krel package"
x=$top/extract
rm -rf "$x" && mkdir -p "$x/image" "$x/headers"
dpkg-deb -x "$image" "$x/image"
dpkg-deb -x "$headers" "$x/headers"
bad=0
check() { if eval "$2"; then log "distro-pkg: ok: $1"; else echo "distro-pkg: FAILED: $1" >&2; bad=1; fi; }
check "kernel image boot/vmlinuz-$krel" "[ -s '$x/image/boot/vmlinuz-$krel' ]"
for s in CONFIG_HMM_DEVMEM=y CONFIG_HMM_DEVICE_MIRROR=y; do
	check "boot/config-$krel has $s" "grep -qx $s '$x/image/boot/config-$krel'"
done
for m in drivers/char/hmm_dummy.ko lib/test_mmu_notifier.ko; do
	f=$x/image/lib/modules/$krel/kernel/$m
	check "module $m" "[ -f '$f' ]"
	[ -f "$f" ] && check "$m built for $krel" "modinfo -F vermagic '$f' | grep -q '^$krel '"
done
hdr=$x/headers/usr/src/linux-headers-$krel
for h in hmm_mirror.h hmm_migrate.h hmm_pt.h; do
	check "linux-headers has include/linux/$h" "[ -f '$hdr/include/linux/$h' ]"
done
# A driver writer's out-of-tree module, against the headers package only.
rm -rf "$x/extmod" && cp -r "$TOP/tests/programs/extmod" "$x/extmod"
if make -C "$hdr" M="$x/extmod" modules >"$top/extmod.log" 2>&1 &&
   [ -f "$x/extmod/hmm_extmod.ko" ]; then
	log "distro-pkg: ok: out-of-tree module against linux-headers-$krel"
else
	tail -n 20 "$top/extmod.log" >&2
	echo "distro-pkg: FAILED: out-of-tree module against linux-headers-$krel" >&2
	bad=1
fi
[ $bad = 0 ] || die "package checks failed"
log "distro-pkg: $(basename "$image") and $(basename "$headers") checked"
