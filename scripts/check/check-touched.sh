#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-touched.sh TREE
# Compile-only check of every kernel .c file the series touches, under
# allmodconfig, with W=1 and sparse (C=2), on hmm/base and on the series
# head, the commit checked out in TREE (e.g. an import made by
# scripts/series/import.sh --worktree; uncommitted changes are not seen).
# Both are compiled in a worktree of its own, $HMM_WORKDIR/BASE/check-touched-tree
# (made once, then reused, like its build directory): TREE is not touched.
# Fails on any warning the series adds (compared per file, ignoring line
# numbers) and on any touched file that does not compile.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -eq 1 ] || usage_error "one TREE expected"
tree=$1
ensure_tree
need_pkgs sparse
head=$(git -C "$tree" rev-parse HEAD)

# Kernel .c files that exist at the series head (deleted files are skipped).
mapfile -t files < <(touched_files "$tree" '*.c')
if [ ${#files[@]} -eq 0 ]; then
	log "check-touched: the series touches no kernel .c file; nothing to compile"
	exit 0
fi

# Object target for a source file. amdkfd is built from amdgpu's Makefile.
obj_of() {
	local f=${1%.c}.o
	case "$f" in
	drivers/gpu/drm/amd/amdkfd/*) f=drivers/gpu/drm/amd/amdgpu/../amdkfd/${f#drivers/gpu/drm/amd/amdkfd/} ;;
	esac
	echo "$f"
}

out=$BUILD_ROOT/allmod
res=$WORKDIR/check-touched
rm -rf "$res" && mkdir -p "$res"
# The base and the head in turn, at one path, so that the allmodconfig
# build directory stays incremental across both and across runs.
wt=$(realpath -m -- "$WORKDIR/check-touched-tree")
# A build directory belongs to one source path (as in build.sh).
if [ "$(cat "$out/.hmm-src" 2>/dev/null)" != "$wt" ]; then
	rm -rf "$out" && mkdir -p "$out" && echo "$wt" > "$out/.hmm-src"
fi

# compile_all LABEL: build every touched object in one make (parallel),
# W=1 and sparse; the log holds all warnings, with source paths.
compile_all() {
	local label=$1 f objs=()
	# allmodconfig of this very tree: the series adds symbols (CONFIG_HMM_DEVMEM,
	# ...) that a base config carried over by syncconfig would leave off.
	kmake "$out" "$wt" -s allmodconfig >/dev/null
	# allmodconfig turns on -Werror; we want the warnings listed, not fatal.
	"$wt/scripts/config" --file "$out/.config" -d WERROR -d GCC_PLUGINS
	kmake "$out" "$wt" -s olddefconfig >/dev/null
	kmake "$out" "$wt" -s prepare >/dev/null 2>"$res/prepare-$label.log" ||
		{ cat "$res/prepare-$label.log" >&2; die "allmodconfig prepare failed ($label)"; }
	for f in "${files[@]}"; do
		# New files have no base version.
		[ "$label" = base ] && ! git -C "$wt" cat-file -e "$BASE_TAG:$f" 2>/dev/null && continue
		objs+=("$(obj_of "$f")")
		rm -f "$out/$(obj_of "$f")"
	done
	[ ${#objs[@]} -gt 0 ] || { : > "$res/$label.log"; return 0; }
	kmake "$out" "$wt" -k W=1 C=2 "${objs[@]}" > "$res/$label.log" 2>&1
}

# Warnings, without line/column numbers and build-relative prefixes, as a
# sorted multiset.
norm() {
	grep -aE '(warning|error):' "$1" |
		sed -E "s|^(\.\./)*$(basename "$wt")/||; s|^$wt/||" |
		sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort || true
}

own_worktree "$tree" "$wt" "$BASE_TAG"
compile_all base || true	# a base file that fails is reported below, not fatal
git -C "$wt" checkout -q --detach "$head"
rc=0
if ! compile_all series; then
	echo "check-touched: touched files do not compile at the series head:" >&2
	grep -aE 'error' "$res/series.log" | head -n 30 >&2
	rc=1
fi
added=$(comm -13 <(norm "$res/base.log") <(norm "$res/series.log"))
# One sparse false positive is allowed in new functions: 6.12's
# pte_offset_map_lock() takes rcu_read_lock() inside __pte_offset_map()
# without a sparse annotation, so every function that maps and unmaps a
# page table gets "context imbalance in 'f' - unexpected unlock" from
# rcu_read_unlock() in include/linux/rcupdate.h (34 such functions in the
# base mm/ files alone). Any other context imbalance still fails.
pte_rcu="^include/linux/rcupdate.h: warning: context imbalance in '[A-Za-z0-9_]+' - unexpected unlock$"
if [ -n "$added" ] && echo "$added" | grep -qE "$pte_rcu"; then
	log "check-touched: ignored (pte_offset_map_lock RCU, see the script):"
	echo "$added" | grep -E "$pte_rcu" | sed 's/^/    /'
	added=$(echo "$added" | grep -vE "$pte_rcu" || true)
fi
if [ -n "$added" ]; then
	echo "check-touched: warnings the series adds (W=1, sparse):" >&2
	echo "$added" >&2
	rc=1
fi
[ $rc -eq 0 ] || die "check-touched: failed (logs in $res)"
log "check-touched: ${#files[@]} touched .c file(s) compile under allmodconfig with no new W=1/sparse warnings"
