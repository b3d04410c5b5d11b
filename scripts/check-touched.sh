#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-touched.sh TREE
# Compile-only check of every kernel .c file the series touches, under
# allmodconfig, with W=1 and sparse (C=2), on hmm/base and on the series
# head checked out in TREE (an import made by scripts/import.sh --worktree).
# Fails on any warning the series adds (compared per file, ignoring line
# numbers) and on any touched file that does not compile.
. "$(dirname "$0")/lib.sh"
[ $# -eq 1 ] && [ "$1" != --help ] || { sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
tree=$1
ensure_tree
need_pkgs sparse
head=$(git -C "$tree" rev-parse HEAD)

# Kernel .c files that exist at the series head (deleted files are skipped).
mapfile -t files < <(git -C "$tree" diff --name-only --diff-filter=d "$BASE_TAG" "$head" -- '*.c' |
	grep -vE '^(tools|scripts|samples|Documentation|usr)/' || true)
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

compile_all() { # LABEL
	local label=$1 f o rc=0
	if [ ! -f "$out/.config" ] || [ "$out/.config" -ot "$tree/Makefile" ]; then
		kmake "$out" "$tree" -s allmodconfig >/dev/null
		# allmodconfig turns on -Werror; we want the warnings listed, not fatal.
		"$tree/scripts/config" --file "$out/.config" -d WERROR -d GCC_PLUGINS
		kmake "$out" "$tree" -s olddefconfig >/dev/null
	fi
	kmake "$out" "$tree" -s prepare >/dev/null 2>"$res/prepare-$label.log" ||
		{ cat "$res/prepare-$label.log" >&2; die "allmodconfig prepare failed ($label)"; }
	for f in "${files[@]}"; do
		o=$(obj_of "$f")
		if [ "$label" = base ] && ! git -C "$tree" cat-file -e "$BASE_TAG:$f" 2>/dev/null; then
			: > "$res/$label-${f//\//_}.log"	# new file: no base warnings
			continue
		fi
		rm -f "$out/$o"
		if ! kmake "$out" "$tree" W=1 C=2 "$o" >"$res/$label-${f//\//_}.log" 2>&1; then
			echo "check-touched: $f does not compile at $label:" >&2
			grep -E 'error' "$res/$label-${f//\//_}.log" | head -n 20 >&2
			rc=1
		fi
	done
	return $rc
}

# Warnings of one file, without line/column numbers, as a sorted multiset.
norm() {
	grep -aE '(warning|error):' "$1" | sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort || true
}

git -C "$tree" checkout -q --detach "$BASE_TAG"
compile_all base || true	# a base file that fails is reported, not fatal
git -C "$tree" checkout -q --detach "$head"
rc=0
compile_all series || rc=1

new=0
for f in "${files[@]}"; do
	k=${f//\//_}
	added=$(comm -13 <(norm "$res/base-$k.log") <(norm "$res/series-$k.log"))
	if [ -n "$added" ]; then
		echo "check-touched: new warnings in $f (W=1, sparse):" >&2
		echo "$added" >&2
		new=$((new + 1))
	fi
done
[ $new -eq 0 ] && [ $rc -eq 0 ] ||
	die "check-touched: $new file(s) with new warnings, compile rc=$rc (logs in $res)"
log "check-touched: ${#files[@]} touched .c file(s) compile under allmodconfig with no new W=1/sparse warnings"
