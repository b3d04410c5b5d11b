#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh [--seed-from DIR] SRC BUILD_DIR [FRAGMENT...]
# Configure (when fragments are given) and build bzImage and modules
# out of tree (O=BUILD_DIR), incrementally, with ccache when available.
#   --seed-from DIR  first replace BUILD_DIR by a copy of DIR, an earlier
#                    build of the same SRC path (e.g. the base kernel's):
#                    kbuild tracks dependencies per file and per config
#                    symbol, so only what differs is rebuilt. A DIR built
#                    from another path is not used (its objects name that
#                    path, so everything would be rebuilt anyway).
. "$(dirname "$0")/../lib.sh"

seed=
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--seed-from) need_arg "$@"; seed=$2; shift ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 2 ] || usage_error "SRC and BUILD_DIR expected"
src=$1 out=$2; shift 2
src=$(cd "$src" && pwd)
if [ -n "$seed" ]; then
	if [ "$(cat "$seed/.hmm-src" 2>/dev/null)" = "$src" ]; then
		log "build: $out starts from a copy of $seed"
		seed_build "$seed" "$out"
	else
		warn "build: --seed-from $seed was not built from $src; not used"
	fi
fi
# A build directory belongs to one source tree: its dependency files name
# that tree's paths. Start afresh if it was used with another one.
if [ -f "$out/.hmm-src" ] && [ "$(cat "$out/.hmm-src")" != "$src" ]; then
	log "build: $out was built from $(cat "$out/.hmm-src"); starting afresh"
	rm -rf "$out"
fi
mkdir -p "$out"
echo "$src" > "$out/.hmm-src"
if [ $# -gt 0 ]; then
	"$TOP/scripts/build/config.sh" "$src" "$out" "$@"
fi
[ -f "$out/.config" ] || die "$out has no .config; pass config fragments"
start=$(date +%s)
kmake "$out" "$src" -s bzImage modules
log "built $out/arch/x86/boot/bzImage in $(( $(date +%s) - start ))s"
