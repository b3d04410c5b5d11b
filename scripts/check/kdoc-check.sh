#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kdoc-check.sh [--htmldocs] TREE
# Kernel-doc check of the series, on the series head checked out in TREE
# (an import made by scripts/series/import.sh --worktree):
#  1. scripts/kernel-doc -none -Wall on every kernel .c/.h file the series
#     touches, at hmm/base and at the head: fails on any warning the series
#     adds (compared per file without line numbers; new files have no base,
#     so every warning in them is new). The base's own warnings are left.
#  2. Every function the series exports (a new EXPORT_SYMBOL*) has a
#     kernel-doc comment in a file the series touches.
#  3. With --htmldocs: "make SPHINXDIRS=mm htmldocs" (Sphinx from Debian),
#     at the base and at the head: the series must add no warning.
. "$(dirname "$0")/../lib.sh"
html=0
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--htmldocs) html=1 ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || usage_error "one TREE expected"
tree=$1
ensure_tree
head=$(git -C "$tree" rev-parse HEAD)
res=$WORKDIR/kdoc-check
rm -rf "$res" && mkdir -p "$res/base"

mapfile -t files < <(touched_files "$tree" '*.c' '*.h')
[ ${#files[@]} -gt 0 ] || { log "kdoc-check: the series touches no kernel .c/.h file"; exit 0; }

# kdoc FILE LABEL: kernel-doc warnings of FILE, as "file: message" without
# line numbers, sorted (a multiset). LABEL names FILE in the output.
kdoc() {
	(cd "$tree" && perl scripts/kernel-doc -none -Wall "$1" 2>&1) |
		grep -E 'warning:|error:' | sed -E "s|^[^:]*:[0-9]+:|$2:|" | sort || true
}

fail=0
for f in "${files[@]}"; do
	kdoc "$f" "$f" > "$res/series.one"
	if git -C "$tree" cat-file -e "$BASE_TAG:$f" 2>/dev/null; then
		mkdir -p "$res/base/$(dirname "$f")"
		git -C "$tree" show "$BASE_TAG:$f" > "$res/base/$f"
		kdoc "$res/base/$f" "$f" > "$res/base.one"
	else
		: > "$res/base.one"
	fi
	new=$(comm -13 "$res/base.one" "$res/series.one")
	if [ -n "$new" ]; then
		echo "kdoc-check: new kernel-doc warnings in $f:" >&2
		echo "$new" >&2
		fail=1
	fi
done
log "kdoc-check: ${#files[@]} touched files, kernel-doc -Wall: $([ $fail = 0 ] && echo 'no new warning' || echo 'NEW WARNINGS')"

# Exported by the series: every new EXPORT_SYMBOL*(name) of the touched files.
mapfile -t exported < <(git -C "$tree" diff "$BASE_TAG" "$head" -- "${files[@]}" |
	sed -nE 's/^\+EXPORT_SYMBOL(_GPL)?\(([A-Za-z0-9_]+)\);.*/\2/p' | sort -u)
undoc=()
for sym in "${exported[@]}"; do
	found=0
	for f in "${files[@]}"; do
		grep -q "\b$sym\b" "$tree/$f" || continue
		# Not "| grep -q": under pipefail, grep -q leaving at the first
		# match can kill kernel-doc with SIGPIPE and fail the pipe.
		if (cd "$tree" && perl scripts/kernel-doc -rst -function "$sym" "$f" 2>/dev/null) |
			grep "c:function::.*\b$sym\b" > /dev/null; then
			found=1
			break
		fi
	done
	[ $found = 1 ] || undoc+=("$sym")
done
if [ ${#undoc[@]} -gt 0 ]; then
	echo "kdoc-check: exported without kernel-doc: ${undoc[*]}" >&2
	fail=1
fi
log "kdoc-check: ${#exported[@]} functions exported by the series, $((${#exported[@]} - ${#undoc[@]})) with kernel-doc"

if [ $html = 1 ]; then
	need_pkgs python3-sphinx python3-sphinx-rtd-theme
	# Only the mm book: the series' pages are there. Built at the base (a
	# worktree of its own, kept for the next run) and at the head; a
	# warning the base does not have (per file, without line numbers)
	# fails. SPHINXDIRS=mm alone cannot resolve links into other books:
	# those are the base's too.
	# htmldocs LABEL TREE: the build's warnings, normalized, sorted.
	htmldocs() {
		local out=$BUILD_ROOT/htmldocs-$1
		rm -rf "$out" && mkdir -p "$out"
		local rc=0
		make -C "$2" O="$out" SPHINXDIRS=mm htmldocs > "$res/htmldocs-$1.log" 2>&1 || rc=$?
		# The netlink specs are rendered into the source tree even with
		# O=; leave the tree as it was.
		git -C "$2" clean -qfX -- Documentation/networking/netlink_spec
		if [ $rc != 0 ]; then
			tail -n 30 "$res/htmldocs-$1.log" >&2
			echo "kdoc-check: make SPHINXDIRS=mm htmldocs failed ($1)" >&2
			return 1
		fi
		# Without the tree's path and without line numbers, wherever a
		# warning names a file: 7.3's ABI warnings name two files, one
		# of them by absolute path ("... is defined 2 times: FILE:N;
		# TREE/FILE:N"), and base and series are different trees.
		grep -E 'WARNING|ERROR' "$res/htmldocs-$1.log" |
			sed -E "s|$2/||g; s|^([^:]*):[0-9]+:|\1:|; s#(Documentation/[^ :;]+):[0-9]+#\1#g" |
			sort > "$res/htmldocs-$1.txt" || true
	}
	bwt=$WORKDIR/kdoc-base-tree
	own_worktree "$tree" "$bwt" "$BASE_TAG"
	htmldocs base "$bwt" || fail=1
	htmldocs series "$tree" || fail=1
	new=$(comm -13 "$res/htmldocs-base.txt" "$res/htmldocs-series.txt")
	if [ -n "$new" ]; then
		echo "kdoc-check: htmldocs warnings the series adds:" >&2
		echo "$new" >&2
		fail=1
	fi
	log "kdoc-check: htmldocs (mm book): $(wc -l < "$res/htmldocs-series.txt") warnings, $(wc -l < "$res/htmldocs-base.txt") at the base, $(printf '%s' "$new" | grep -c . || true) new"
fi
exit $fail
