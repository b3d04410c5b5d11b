#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bisect-build.sh [--objects] [--build-dir DIR] [--seed-from DIR] TREE [FRAGMENT...]
# Build the test kernel after each patch of the series in turn (the commits
# BASE_TAG..HEAD of TREE), so that every patch builds on its own. FRAGMENT:
# the config fragments (default: the base's guest and hmm configs).
#   --objects  cheaper, what CI runs: the first commit that is built gets a
#              whole kernel build; every later one compiles, at that commit,
#              the objects of every kernel .c file the series touches that
#              its configuration builds, and then checks their links: each
#              symbol they use must be defined by the first build's vmlinux
#              (System.map) or by one of them. Not checked in this mode:
#              the kernel's other objects against the series' header
#              changes (rebuilding them is most of the cost: 856 of 7.3's
#              1397 objects include mmu_notifier.h), modpost, and symbols a
#              patch removes from a touched file that another file uses.
#              The whole kernel is built at the last commit by the series
#              build. scripts/test.sh --full-bisect runs the default mode.
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
out=$BUILD_ROOT/bisect seed=() objects=0
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--objects) objects=1 ;;
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
# --objects: the kernel .c files the whole series touches.
series_c=()
[ $objects = 0 ] || mapfile -t series_c < <(git -C "$tree" diff --name-only \
	"$BASE_TAG" "$head" -- '*.c' | grep -vE '^(tools|Documentation|scripts|samples|usr)/')

# enabled_obj FILE.c: does the configuration in $out build FILE's object?
# A file the base has: if the first, whole build compiled it (its .cmd
# file; the series does not change what enables a file the base has). A
# file the series adds: if its directory's Makefile adds it under a symbol
# the .config sets (obj-$(CONFIG_X) += ... name.o ...), or under obj-y.
enabled_obj() {
	local f=$1 d n sym
	d=$(dirname "$f") n=$(basename "$f" .c)
	if git -C "$tree" cat-file -e "$BASE_TAG:$f" 2>/dev/null; then
		[ -f "$out/$d/.$n.o.cmd" ]
		return
	fi
	sym=$(sed -n -E "s/^obj-(\\\$\(CONFIG_([A-Za-z0-9_]+)\)|y)[[:space:]]*[+:]?=.*[[:space:]]$n\.o([[:space:]].*)?$/\2=/p" \
		"$tree/$d/Makefile" 2>/dev/null | head -n 1)
	[ -n "$sym" ] || return 1
	[ "$sym" = = ] && return 0
	grep -qE "^CONFIG_${sym%=}=[ym]$" "$out/.config"
}

# build_objects: compile the enabled objects of series_c at the checked-out
# commit and check that every symbol they use is defined (see --objects).
build_objects() {
	local f o objs=() undef
	for f in "${series_c[@]}"; do
		[ -f "$tree/$f" ] && enabled_obj "$f" && objs+=("${f%.c}.o")
	done
	[ ${#objs[@]} -gt 0 ] || { echo "no touched object is built"; return 0; }
	echo "objects: ${objs[*]}"
	kmake "$out" "$tree" -s "${objs[@]}" || return 1
	undef=$( { awk '{ print $3 }' "$out/.bisect-vmlinux.map"
		   for o in "${objs[@]}"; do nm --defined-only "$out/$o" | awk '{ print $3 }'; done
		 } | sort -u | comm -23 <(for o in "${objs[@]}"; do nm -u "$out/$o" | awk '{ print $2 }'; done |
			grep -vE '^(__this_module$|__start_|__stop_)' | sort -u) -)
	[ -z "$undef" ] || { echo "undefined at this commit (no object of the series and not in vmlinux):"; echo "$undef"; return 1; }
}

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
	if [ $objects = 1 ] && [ $built -gt 1 ]; then
		step() {
			[ ${#fragarg[@]} -eq 0 ] || "$TOP/scripts/build/config.sh" "$tree" "$out" "${fragarg[@]}" || return 1
			build_objects
		}
	else
		step() {
			"$TOP/scripts/build/build.sh" "${seed[@]}" "$tree" "$out" "${fragarg[@]}" || return 1
			[ $objects = 0 ] || cp "$out/System.map" "$out/.bisect-vmlinux.map"
		}
	fi
	if step >"$WORKDIR/bisect-$i.log" 2>&1; then
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
