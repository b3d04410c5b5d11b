#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cocci-check.sh TREE
# Run the series' coccinelle rule
# scripts/coccinelle/misc/mmu_notifier_event_switch.cocci (MODE=report:
# a switch on enum mmu_notifier_event that does not list every event) on
# every file of TREE that reads the event of an mmu notifier range, one
# spatch per file (no include following, so it takes seconds). The files are
# found by a grep, so new consumers are checked too: files that use `->event`
# and `struct mmu_notifier_range` or `MMU_NOTIFY_` (kernel code, not tools/).
# Fails if the rule reports anything on TREE (the series head), if spatch
# fails on a file, or if the rule does NOT report amdkfd's switch on hmm/base
# (self-check: the base switch misses 7 events, so a rule that finds nothing
# there is broken). A second self-check runs the rule on a synthetic file with
# braced case blocks ("case X: { ... }"): a complete switch must not be
# reported, an incomplete one must.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -eq 1 ] || usage_error "one TREE expected"
tree=$(cd "$1" && pwd)
need_pkgs coccinelle
git -C "$tree" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null ||
	die "no $BASE_TAG in $tree"
RULE=scripts/coccinelle/misc/mmu_notifier_event_switch.cocci
SELFCHECK=drivers/gpu/drm/amd/amdkfd/kfd_svm.c
[ -f "$tree/$RULE" ] || die "$tree has no $RULE (the series adds it)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The rule as the series has it, used on both trees.
cp "$tree/$RULE" "$tmp/rule.cocci"

# consumers REF|"": files that read range->event / update->event at REF
# (empty: the checked-out tree).
consumers() {
	local ref=$1 p=${1:+$1:} cand
	# Fixed strings first (fast on the whole tree), then the regex on those.
	# shellcheck disable=SC2086 # $ref: no ref means the working tree
	mapfile -t cand < <(git -C "$tree" grep -l -F -e 'MMU_NOTIFY_' \
		-e 'struct mmu_notifier_range' $ref -- '*.c' '*.h' ':!tools/' \
		':!Documentation/' ':!scripts/' ':!samples/' | sed "s|^$p||")
	[ ${#cand[@]} -gt 0 ] || return 0
	# shellcheck disable=SC2086
	git -C "$tree" grep -l -E -e '->event\b' $ref -- "${cand[@]}" | sed "s|^$p||" | sort
}

# run_rule DIR OUT FILE...: spatch in DIR on each file (paths relative to
# DIR, so the rule finds DIR/include/linux/mmu_notifier.h for the enum);
# reports go to OUT. Fails if spatch fails on a file.
run_rule() {
	local dir=$1 out=$2 f rc=0; shift 2
	: > "$out"
	for f in "$@"; do
		if ! (cd "$dir" && spatch -D report --very-quiet --no-includes --include-headers \
			--sp-file "$tmp/rule.cocci" "$f") >> "$out" 2> "$tmp/err"; then
			echo "cocci-check: spatch failed on $f:" >&2
			cat "$tmp/err" >&2
			rc=1
		fi
	done
	return $rc
}

start=$(date +%s)
rc=0

# Series: the tree as checked out.
mapfile -t files < <(consumers "")
[ ${#files[@]} -gt 0 ] || die "no file of $tree reads an mmu notifier event (grep broken?)"
log "cocci-check: series tree, ${#files[@]} file(s): ${files[*]}"
run_rule "$tree" "$tmp/series.out" "${files[@]}" || rc=1
if [ -s "$tmp/series.out" ]; then
	echo "cocci-check: $RULE reports on the series tree:" >&2
	cat "$tmp/series.out" >&2
	rc=1
else
	log "cocci-check: series tree: no report"
fi

# Self-check on hmm/base, extracted with its own mmu_notifier.h.
mapfile -t bfiles < <(consumers "$BASE_TAG")
mkdir "$tmp/base"
git -C "$tree" archive "$BASE_TAG" include/linux/mmu_notifier.h "${bfiles[@]}" | tar -x -C "$tmp/base"
log "cocci-check: $BASE_TAG, ${#bfiles[@]} file(s): ${bfiles[*]}"
run_rule "$tmp/base" "$tmp/base.out" "${bfiles[@]}" || rc=1
sed 's/^/  base: /' "$tmp/base.out" >&2
if ! grep -q "^$SELFCHECK:[0-9].*WARNING: switch on enum mmu_notifier_event" "$tmp/base.out"; then
	echo "cocci-check: self-check failed: the rule does not report $SELFCHECK on $BASE_TAG" >&2
	rc=1
fi

# Self-check 2: braced case blocks, against the series' own enum.
mkdir "$tmp/shapes"
{
	echo '#include <linux/mmu_notifier.h>'
	echo 'int complete_braced(const struct mmu_notifier_range *range)'
	echo '{'
	echo '	int x = 0;'
	echo '	switch (range->event) {'
	echo '	case MMU_NOTIFY_UNMAP: {'
	echo '		int y = 1;'
	echo '		x = y;'
	echo '		break;'
	echo '	}'
	# The other values but the last two fall through to one braced block,
	# the last two to plain statements: the rule once saw only those two.
	mapfile -t evs < <(sed -n '/^enum mmu_notifier_event {/,/^};/p' \
		"$tree/include/linux/mmu_notifier.h" | grep -o 'MMU_NOTIFY_[A-Z_]*' |
		grep -v '^MMU_NOTIFY_UNMAP$')
	printf '\tcase %s:\n' "${evs[@]:0:${#evs[@]}-2}"
	echo '	{'
	echo '		x = 2;'
	echo '		break;'
	echo '	}'
	printf '\tcase %s:\n' "${evs[@]: -2}"
	echo '		x = 3;'
	echo '		break;'
	echo '	}'
	echo '	return x;'
	echo '}'
	echo 'int incomplete_braced(const struct mmu_notifier_range *range)'
	echo '{'
	echo '	switch (range->event) {'
	echo '	case MMU_NOTIFY_UNMAP:'
	echo '	case MMU_NOTIFY_CLEAR: {'
	echo '		return 1;'
	echo '	}'
	echo '	default: {'
	echo '		return 0;'
	echo '	}'
	echo '	}'
	echo '}'
} > "$tmp/shapes/braced.c"
(cd "$tmp/shapes" && MMU_NOTIFIER_H="$tree/include/linux/mmu_notifier.h" \
	spatch -D report --very-quiet --no-includes --include-headers \
	--sp-file "$tmp/rule.cocci" braced.c) > "$tmp/shapes.out" 2>&1 || rc=1
sed 's/^/  shapes: /' "$tmp/shapes.out" >&2
# switch_line FUNC: line of the first switch after "int FUNC("
switch_line() {
	awk -v f="int $1(" 'index($0, f) == 1 { on = 1 } on && /switch/ { print NR; exit }' \
		"$tmp/shapes/braced.c"
}
complete=$(switch_line complete_braced)
incomplete=$(switch_line incomplete_braced)
if grep -q "^braced.c:$complete:" "$tmp/shapes.out"; then
	echo "cocci-check: self-check failed: a complete switch with braced case blocks is reported" >&2
	rc=1
fi
if ! grep -q "^braced.c:$incomplete:.*does not handle MMU_NOTIFY_PROTECTION_VMA" "$tmp/shapes.out"; then
	echo "cocci-check: self-check failed: an incomplete switch with braced case blocks is not reported" >&2
	rc=1
fi

[ $rc -eq 0 ] || die "cocci-check: failed"
log "cocci-check: rule reports nothing on the series, reports the base's $SELFCHECK switch and handles braced case blocks ($(( $(date +%s) - start ))s)"
