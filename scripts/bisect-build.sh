#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bisect-build.sh TREE [FRAGMENT...]
# Build the test kernel after each patch of the series in turn (the commits
# hmm/base..HEAD of TREE), so that every patch builds on its own. Uses its
# own build directory; incremental and ccache'd, so cheap for small patches.
# Commits that change only Documentation/, tools/testing/,
# scripts/coccinelle/ or MAINTAINERS are not rebuilt.
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] && [ "$1" != --help ] || { sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
tree=$1; shift
[ $# -gt 0 ] || set -- "$TOP/configs/guest.config" "$TOP/configs/hmm.config"
ensure_tree
head=$(git -C "$tree" rev-parse HEAD)
mapfile -t commits < <(git -C "$tree" rev-list --reverse "$BASE_TAG..$head")
out=$BUILD_ROOT/bisect
i=0 bad=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	git -C "$tree" checkout -q --detach "$c"
	subj=$(git -C "$tree" log -1 --format=%s "$c")
	# A commit that only touches documentation, selftests or coccinelle
	# scripts cannot break the kernel build: skip the rebuild. (Selftests
	# are compiled by the guest-tests stage, at the last commit.)
	if ! git -C "$tree" diff --name-only "$c^" "$c" |
		grep -qvE '^(Documentation/|tools/testing/|scripts/coccinelle/|MAINTAINERS$)'; then
		log "bisect-build: [$i/${#commits[@]}] no kernel source changed: $subj"
		continue
	fi
	# Options introduced later in the series do not exist yet: configure
	# with the fragments' symbols that this commit knows about.
	frag=$(mktemp)
	git -C "$tree" grep -hE '^[[:space:]]*(menu)?config [A-Za-z0-9_]+' -- '*Kconfig*' |
		awk '{ print "CONFIG_" $2 }' | sort -u > "$frag.known"
	cat "$@" | awk -F= 'NR == FNR { k[$1] = 1; next } /^CONFIG_/ && ($1 in k)' \
		"$frag.known" - > "$frag"
	rm -f "$frag.known"
	if "$TOP/scripts/build.sh" "$tree" "$out" "$frag" >"$WORKDIR/bisect-$i.log" 2>&1; then
		log "bisect-build: [$i/${#commits[@]}] builds: $subj"
	else
		tail -n 30 "$WORKDIR/bisect-$i.log" >&2
		echo "bisect-build: [$i/${#commits[@]}] FAILS: $subj" >&2
		bad=$((bad + 1))
	fi
	rm -f "$frag"
done
git -C "$tree" checkout -q --detach "$head"
[ $bad -eq 0 ] || die "bisect-build: $bad of ${#commits[@]} commit(s) do not build"
log "bisect-build: all ${#commits[@]} commit(s) build"
