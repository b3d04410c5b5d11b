#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bisect-build.sh [--objects] [--build-dir DIR] [--seed-from DIR] TREE [FRAGMENT...]
# Build the test kernel after each patch of the series in turn (the commits
# BASE_TAG..HEAD of TREE), so that every patch builds on its own. FRAGMENT:
# the config fragments (default: the base's guest and hmm configs).
#   --objects  cheaper, what CI runs: the first commit that is built gets a
#              whole kernel build; every later one compiles, at that commit,
#              the objects of every kernel .c file the series touches that
#              its configuration builds, and checks their links against
#              that first build: each global symbol a built-in one uses is
#              defined by vmlinux (System.map, less the touched objects'
#              own definitions) or by a touched built-in object; each one a
#              module uses is exported by vmlinux (Module.symvers) or a
#              touched object; what vmlinux's untouched objects used from
#              the touched ones is still defined; no strong symbol is
#              defined twice. Not checked in this mode: the untouched
#              objects against the series' header changes (rebuilding them
#              is most of the cost: 856 of 7.3's 1397 objects include
#              mmu_notifier.h), the rest of modpost (namespaces, section
#              mismatches), and a file the series adds that enabled_obj
#              cannot tell is built (a composite object, a continued
#              line). The whole kernel is built at the last commit by the
#              series build. scripts/test.sh --full-bisect runs the
#              default mode.
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
# The link baseline of --objects is made by this run's first build.
[ ! -d "$out" ] || rm -f "$out"/.bisect-*
prev_frag=$(mktemp)
trap 'rm -f "$prev_frag"; git -C "$tree" checkout -q --detach "$head"' EXIT
# --objects: the kernel .c files any commit of the series touches (also
# those a later commit puts back as they were).
series_c=()
[ $objects = 0 ] || mapfile -t series_c < <(git -C "$tree" log --no-renames --name-only \
	--format= "$BASE_TAG..$head" -- '*.c' | grep -vE '^(tools|Documentation|scripts|samples|usr)/' |
	sort -u)

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

# touched_objects: the objects of series_c that the configuration in $out
# builds at the checked-out commit, one per line.
touched_objects() {
	local f
	for f in "${series_c[@]}"; do
		[ -f "$tree/$f" ] && enabled_obj "$f" && echo "${f%.c}.o"
	done
	return 0
}

# is_module OBJ: was OBJ compiled for a module (its .cmd has -DMODULE)?
is_module() {
	grep -q -- '-DMODULE' "$out/$(dirname "$1")/.$(basename "$1").cmd"
}

# nm_of KIND OBJ...: names from nm of each object, failing if nm fails:
#   defs    global definitions (any but U, w, v)
#   strong  global strong definitions (not weak W/V, not absolute A)
#   undef   undefined references (U; weak w/v ones may stay undefined)
#   exports names the objects export (__export_symbol_NAME)
nm_of() {
	local kind=$1 o; shift
	for o in "$@"; do
		case $kind in
		defs) nm -g --defined-only "$out/$o" | awk '$2 != "U" { print $3 }' ;;
		strong) nm -g --defined-only "$out/$o" | awk '$2 ~ /^[BDGRST]$/ { print $3 }' ;;
		undef) nm -u "$out/$o" | awk '$1 == "U" { print $2 }' ;;
		exports) nm --defined-only "$out/$o" | awk '{ print $3 }' | sed -n 's/^__export_symbol_//p' ;;
		esac || { echo "nm failed on $o"; return 1; }
	done
	return 0
}

# objects_baseline: after the whole build of the first built commit, what
# the link check compares with (files in $out):
#   .bisect-defs      global definitions of vmlinux (System.map) but those
#                     of the touched built-in objects, which each later
#                     commit provides itself
#   .bisect-strong    the same, strong definitions only (duplicates)
#   .bisect-required  what the untouched objects of vmlinux use from the
#                     touched ones: every later commit must define it
#   .bisect-exports   what vmlinux exports to modules (Module.symvers) but
#                     the touched built-in objects' exports
baseline() {
	local objs=() bi=() o
	mapfile -t objs < <(touched_objects)
	for o in "${objs[@]}"; do is_module "$o" || bi+=("$o"); done
	nm_of defs "${bi[@]}" | sort -u > "$out/.bisect-t1" || return 1
	awk '$2 ~ /^[A-Z]$/ { print $3 }' "$out/System.map" | sort -u |
		comm -23 - "$out/.bisect-t1" > "$out/.bisect-defs"
	awk '$2 ~ /^[BDGRST]$/ { print $3 }' "$out/System.map" | sort |
		awk 'NR == FNR { t[$1] = 1; next } !($1 in t)' "$out/.bisect-t1" - > "$out/.bisect-strong"
	# (In $out, so that nm names the archive's members by relative path.)
	(cd "$out" && nm -A -u vmlinux.a) |
		awk -v objs=" ${bi[*]} " '$2 == "U" { n = split($1, p, ":"); if (index(objs, " " p[n - 1] " ") == 0) print $3 }' |
		sort -u | comm -12 - "$out/.bisect-t1" > "$out/.bisect-required"
	nm_of exports "${bi[@]}" | sort -u > "$out/.bisect-t1-exports" || return 1
	awk -F'\t' '$3 == "vmlinux" { print $2 }' "$out/Module.symvers" | sort -u |
		comm -23 - "$out/.bisect-t1-exports" > "$out/.bisect-exports"
	echo "link baseline: $(wc -l < "$out/.bisect-defs") vmlinux definitions," \
		"$(wc -l < "$out/.bisect-required") required of the touched objects"
}

# build_objects: compile the enabled touched objects at the checked-out
# commit and check their links (see --objects): every reference of a
# built-in object defined by vmlinux or a touched built-in object; every
# reference of a module exported by them or by a touched module; what the
# rest of vmlinux uses still defined; no strong symbol defined twice.
build_objects() {
	local objs=() bi=() mods=() o bad=0 defs undef
	mapfile -t objs < <(touched_objects)
	[ ${#objs[@]} -gt 0 ] || { echo "no touched object is built"; return 0; }
	echo "objects: ${objs[*]}"
	kmake "$out" "$tree" -s "${objs[@]}" || return 1
	for o in "${objs[@]}"; do
		# A goal kbuild does not reach is not an error: it must exist and
		# be newer than its source.
		[ "$out/$o" -nt "$tree/${o%.o}.c" ] || { echo "$o was not compiled"; return 1; }
		if is_module "$o"; then mods+=("$o"); else bi+=("$o"); fi
	done
	defs=$(mktemp)
	{ cat "$out/.bisect-defs"; nm_of defs "${bi[@]}"; } | sort -u > "$defs" || { rm -f "$defs"; return 1; }
	undef=$(nm_of undef "${bi[@]}" | grep -vE '^(__start_|__stop_)' | sort -u | comm -23 - "$defs")
	[ -z "$undef" ] || { echo "undefined in vmlinux at this commit:"; echo "$undef"; bad=1; }
	undef=$(comm -23 "$out/.bisect-required" "$defs")
	[ -z "$undef" ] || { echo "used by untouched vmlinux objects, no longer defined:"; echo "$undef"; bad=1; }
	undef=$({ cat "$out/.bisect-strong"; nm_of strong "${bi[@]}"; } | sort | uniq -d)
	[ -z "$undef" ] || { echo "defined twice in vmlinux:"; echo "$undef"; bad=1; }
	if [ ${#mods[@]} -gt 0 ]; then
		{ cat "$out/.bisect-exports"; nm_of exports "${bi[@]}" "${mods[@]}"; } | sort -u > "$defs"
		undef=$(nm_of undef "${mods[@]}" | grep -vE '^(__this_module)$' | sort -u | comm -23 - "$defs")
		[ -z "$undef" ] || { echo "used by a module, exported by nothing at this commit:"; echo "$undef"; bad=1; }
	fi
	rm -f "$defs"
	return $bad
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
# A function lost in an edit would read as "not built" below.
declare -F affects_build enabled_obj touched_objects baseline build_objects >/dev/null ||
	die "bisect-build: a function of this script is missing"
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
	   ! git -C "$tree" diff --name-only "$c^" "$c" | grep Kconfig > /dev/null; then
		fragarg=()
	fi
	cp "$frag" "$prev_frag"
	# The seed, if any, goes under the first commit that is built.
	[ $built -eq 0 ] || seed=()
	built=$((built + 1))
	if [ $objects = 1 ] && [ -f "$out/.bisect-exports" ]; then
		step() {
			[ ${#fragarg[@]} -eq 0 ] || "$TOP/scripts/build/config.sh" "$tree" "$out" "${fragarg[@]}" || return 1
			build_objects
		}
	else
		step() {
			"$TOP/scripts/build/build.sh" "${seed[@]}" "$tree" "$out" "${fragarg[@]}" || return 1
			[ $objects = 0 ] || baseline
		}
	fi
	t=$(date +%s)
	if step >"$WORKDIR/bisect-$i.log" 2>&1; then
		log "bisect-build: [$i/${#commits[@]}] builds ($(( $(date +%s) - t ))s): $subj"
	else
		tail -n 30 "$WORKDIR/bisect-$i.log" >&2
		echo "bisect-build: [$i/${#commits[@]}] FAILS: $subj" >&2
		bad=$((bad + 1))
	fi
	rm -f "$frag"
done
[ $bad -eq 0 ] || die "bisect-build: $bad of ${#commits[@]} commit(s) do not build"
log "bisect-build: all ${#commits[@]} commit(s) build"
