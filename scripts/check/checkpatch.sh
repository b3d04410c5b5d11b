#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.sh [PATCH...]
# Patch hygiene for every patch of the series of the base HMM_BASE and of
# its selftest fixes (tests/selftest-fixes/, and the backport's own), or
# the ones given:
#   - scripts/checkpatch.pl --strict of the base's tree, clean; exceptions
#     only as listed, with a reason, in tests/checkpatch-exceptions (one
#     list for every base: a patch has the same name in each)
#   - a subject of the form "area/sub: summary" (e.g. "mm/hmm: ...")
#   - a body of at least 3 lines saying why, and a Signed-off-by
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
ensure_tree
exc=$TOP/tests/checkpatch-exceptions
need_pkgs perl python3-ply python3-git
# checkpatch's SPDX check runs "python3 scripts/spdxcheck.py", which needs
# Debian's python3 (with python3-ply and python3-git), not another python3 earlier in PATH.
export PATH=/usr/bin:/bin:$PATH

if [ $# -gt 0 ]; then
	# Absolute, since checkpatch.pl runs in the kernel tree.
	patches=()
	for p in "$@"; do
		patches+=("$(realpath "$p")")
	done
else
	mapfile -t patches < <(series_patches | sed "s|^|$SERIES_DIR/patches/|")
	for d in "${SELFTEST_FIXES[@]}"; do
		for p in "$d"/*.patch; do
			[ -e "$p" ] && patches+=("$p")
		done
	done
fi
bad=0 n=0
for p in "${patches[@]}"; do
	b=$(basename "$p")
	n=$((n + 1))
	# Exceptions name the patch by its file name in patches/, the subject
	# slug; a numbered file (format-patch's NNNN-slug.patch, as in
	# tests/selftest-fixes/ and mail-series.sh's output) by its slug too.
	ign=$(awk -v f="${b#[0-9][0-9][0-9][0-9]-}" '$1 == f { printf "%s,", $2 }' "$exc" 2>/dev/null)
	# checkpatch reads the tree for some checks: run it from the base tree.
	if ! out=$(cd "$KTREE" && perl scripts/checkpatch.pl --strict --show-types \
			--no-summary --quiet ${ign:+--ignore "${ign%,}"} "$p" 2>&1); then
		printf 'checkpatch: %s:\n%s\n' "$b" "$out" >&2
		bad=$((bad + 1))
	elif [ -n "$out" ]; then
		printf 'checkpatch: %s:\n%s\n' "$b" "$out" >&2
		bad=$((bad + 1))
	fi
	# The subject without its "[PATCH]", "[PATCH 03/38]" or "[RFC PATCH 03/38]"
	# (mail-series.sh) prefix.
	subj=$(sed -n 's/^Subject: \(\[[^]]*PATCH[^]]*\] \)\{0,1\}//p' "$p" | head -n1)
	if ! [[ $subj =~ ^[a-zA-Z0-9_.,/\ -]+:\ [^\ ] ]]; then
		echo "checkpatch: $b: subject '$subj' is not 'area/sub: summary'" >&2
		bad=$((bad + 1))
	fi
	# Commit message body: between the blank line after the headers and '---'.
	body=$(awk 'h && /^---$/ { exit } h { print } /^$/ && !h { h = 1 }' "$p")
	if [ "$(printf '%s\n' "$body" | grep -cvE '^[[:space:]]*$|^[A-Za-z-]+-by:|^Cc:|^Link:')" -lt 3 ]; then
		echo "checkpatch: $b: commit message body too short (say why, not only what)" >&2
		bad=$((bad + 1))
	fi
	printf '%s\n' "$body" | grep -q '^Signed-off-by: .* <.*@.*>$' ||
		{ echo "checkpatch: $b: no Signed-off-by" >&2; bad=$((bad + 1)); }
done
# An exception whose patch is gone (dropped, or its subject changed) would
# silently wait for a new patch of that name: say so on a whole-series run.
# The patches of every base count (the list serves them all).
if [ $# -eq 0 ] && [ -f "$exc" ]; then
	names=$(for b in "${HMM_BASES[@]}"; do
		(select_base "$b"
		 series_patches
		 for d in "${SELFTEST_FIXES[@]}"; do
			 for p in "$d"/*.patch; do [ ! -e "$p" ] || basename "$p"; done
		 done)
	done | sed 's/^[0-9][0-9][0-9][0-9]-//')
	for k in $(awk '!/^#/ && NF { print $1 }' "$exc" | sort -u); do
		grep -qxF "$k" <<<"$names" ||
			{ echo "checkpatch: tests/checkpatch-exceptions names $k, which is in no base's series or selftest fixes" >&2; bad=$((bad + 1)); }
	done
fi
# checkpatch leaves a CamelCase cache in the tree; it is not ours to keep.
rm -f "$KTREE"/.checkpatch-camelcase.git.*
[ $bad -eq 0 ] || die "patch hygiene: $bad problem(s) in $n patch(es)"
log "checkpatch: $n patch(es) clean (checkpatch --strict, subject, body, Signed-off-by)"
