#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bisect-build.sh [--build-dir DIR] [--seed-from DIR] TREE [FRAGMENT...]
# Build the test kernel after each patch of the series in turn (the commits
# BASE_TAG..HEAD of TREE), so that every patch builds on its own. FRAGMENT:
# the config fragments (default: the base's guest and hmm configs).
# Incremental and ccache'd, so cheap for small patches. Each commit is
# checked out in TREE itself, since a build directory belongs to one source
# path (its objects name it): give it a worktree that nothing else uses
# meanwhile (the pipeline's, scripts/series/import.sh --worktree). TREE's
# HEAD is checked out again at the end, also when a step fails.
#   --build-dir DIR  the build directory (default $HMM_WORKDIR/BASE/build/bisect)
#   --seed-from DIR  start it from a copy of DIR, an earlier build of TREE
#                    (build.sh --seed-from; the pipeline passes the base
#                    kernel's build)
# Commits that change only Documentation/, tools/testing/,
# scripts/coccinelle/ or MAINTAINERS are not rebuilt, nor commits whose
# changed files this configuration does not compile (no .cmd file of the
# build directory names them: e.g. a driver the test config leaves out,
# which the check-touched stage compiles under allmodconfig instead).
# The configuration step is rerun only when a Kconfig file or the set of
# fragment symbols the commit knows about changes.
. "$(dirname "$0")/../lib.sh"
out=$BUILD_ROOT/bisect seed=()
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--build-dir) need_arg "$@"; out=$2; shift ;;
	--seed-from) need_arg "$@"; seed=(--seed-from "$2"); shift ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || usage_error "no TREE given"
tree=$1; shift
[ $# -gt 0 ] || { mapfile -t frags < <(configs guest hmm); set -- "${frags[@]}"; }
ensure_tree
head=$(git -C "$tree" rev-parse HEAD)
mapfile -t commits < <(git -C "$tree" rev-list --reverse "$BASE_TAG..$head")
i=0 bad=0 built=0
prev_frag=$(mktemp)
trap 'rm -f "$prev_frag"; git -C "$tree" checkout -q --detach "$head"' EXIT

# affects_build COMMIT: does a file COMMIT changes take part in the build
# of $out (in the state the previous commit left it)? Build-system files
# (Kconfig, Makefiles, scripts/) always do, and so does a file the parent
# did not have (no .cmd file can name it yet); any other file does if a
# kbuild .cmd file of $out lists it as a source or dependency.
affects_build() {
	local c=$1 f
	[ -f "$out/.config" ] || return 0
	while read -r f; do
		case $f in
		Documentation/*|tools/testing/*|scripts/coccinelle/*|MAINTAINERS) continue ;;
		*Kconfig*|*Makefile*|*Kbuild*|*.mk|scripts/*|arch/*/configs/*) return 0 ;;
		esac
		git -C "$tree" cat-file -e "$c^:$f" 2>/dev/null || return 0
		grep -rqlF --include='.*.cmd' -e "/$f" "$out" && return 0
	done < <(git -C "$tree" diff --name-only "$c^" "$c")
	return 1
}
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
	if [ $built -gt 0 ] && ! affects_build "$c"; then
		log "bisect-build: [$i/${#commits[@]}] nothing this config compiles changed: $subj"
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
	# Same fragment and no Kconfig change: the .config the previous
	# commit was configured with still holds (kbuild runs syncconfig
	# itself if anything it reads changed). Saves ~20 s per commit.
	fragarg=("$frag")
	if [ $built -gt 0 ] && cmp -s "$frag" "$prev_frag" &&
	   ! git -C "$tree" diff --name-only "$c^" "$c" | grep -q Kconfig; then
		fragarg=()
	fi
	cp "$frag" "$prev_frag"
	# The seed, if any, goes under the first commit that is built.
	[ $built -eq 0 ] || seed=()
	built=$((built + 1))
	if "$TOP/scripts/build/build.sh" "${seed[@]}" "$tree" "$out" "${fragarg[@]}" >"$WORKDIR/bisect-$i.log" 2>&1; then
		log "bisect-build: [$i/${#commits[@]}] builds: $subj"
	else
		tail -n 30 "$WORKDIR/bisect-$i.log" >&2
		echo "bisect-build: [$i/${#commits[@]}] FAILS: $subj" >&2
		bad=$((bad + 1))
	fi
	rm -f "$frag"
done
[ $bad -eq 0 ] || die "bisect-build: $bad of ${#commits[@]} commit(s) do not build"
log "bisect-build: all ${#commits[@]} commit(s) build"
