#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh SRC BUILD_DIR [FRAGMENT...]
# Configure (when fragments are given) and build bzImage and modules
# out of tree (O=BUILD_DIR), incrementally, with ccache when available.
. "$(dirname "$0")/../lib.sh"

case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -ge 2 ] || usage_error "SRC and BUILD_DIR expected"
src=$1 out=$2; shift 2
src=$(cd "$src" && pwd)
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
