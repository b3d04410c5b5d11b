#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh [--full|--quick|--ci|--core|--backport] [--full-bisect] [--debug] [--suites LIST] [--mainline|--lts]
# The whole test pipeline, from a fresh machine: install what is needed,
# get the base tree, check patch hygiene, apply the series with quilt and
# git am (identical trees), run the series' coccinelle rule, build the base
# and the series kernels, compile the touched files under allmodconfig (W=1,
# sparse), build every patch in turn, boot both kernels under QEMU, run the
# suites in tests/plans/, scan the kernel logs and compare the upstream
# suites' results base vs series.
# Both bases, one after the other. With no level option (what CI runs,
# sized for CI's 80 minutes on a fresh machine, where every compile is
# cold: about 70 minutes, estimated from the stages' cold times):
# mainline 7.3 at level ci, then the 6.12 backport at level backport.
# With --full (what to run before posting, about 2 hours on a fresh
# machine): 7.3 at level full, then 6.12 at level core. With
# HMM_BASE or KERNEL_TREE set, or with --mainline or --lts, one base only,
# level full unless told otherwise (scripts/test.sh --lts: the 6.12
# per-patch builds and the other checks CI leaves out on 6.12).
# Each base ends with a table per suite and "N passed, N failed"; a run of
# both ends with a line per base and the total "N passed, N failed". Exits
# 1 on failure. Stage times: $HMM_WORKDIR/BASE/results/latest/timings.txt.
# Levels (the last one given wins):
#   --full         every stage below: both kernels built and booted, the
#                  base's upstream results checked against the record
#                  (base-record) and compared with the series'
#   --ci           no base kernel: the series' upstream results are
#                  compared with the base's recorded ones (tests/base-
#                  results, which --full checks); and none of the checks
#                  that cost most cold and change only with the patches:
#                  kunit.py (its own kernel: 11 min cold), bisect-build
#                  (20 min), build-nohmm, build-mirror-only, the Sphinx
#                  build (kernel-doc's checks of the touched files run)
#   --quick        no base kernel (the record, as ci), no check-touched,
#                  kernel-doc, distro-config, bisect-build, build-nohmm,
#                  build-mirror-only, distro-pkg; kunit.py runs
#   --core         the core stages only: hygiene, apply-check, export
#                  round trip, the base and series builds and boots, the
#                  comparison; no kunit.py, check-touched, kernel-doc,
#                  distro-config, bisect-build, build-nohmm,
#                  build-mirror-only, distro-pkg
#   --backport     core without the base kernel: the series kernel built
#                  and booted, its upstream results compared with the
#                  base's recorded ones (backports/BASE/base-results)
# Other options:
#   --full-bisect  (implies --full) bisect-build builds the whole kernel
#                  at every commit (about 40 min on 7.3 here with a warm
#                  ccache, far more cold: run it before posting); by
#                  default it compiles the series' touched objects per
#                  commit and checks their links (bisect-build.sh --objects)
#   --debug        also build the debug kernel (configs/debug.config) and
#                  run every suite on it
#   --suites LIST  comma-separated suites instead of tests/plans/*
#   --mainline     only the mainline base (HMM_BASE=7.3)
#   --lts          only the 6.12 LTS base (HMM_BASE=6.12)
. "$(dirname "$0")/lib.sh"

# Only the debug boot's tests get longer harness timeouts, and only
# boot() of the debug kernel another tests dir: never from the caller.
unset KSFT_TIMEOUT_SCALE BOOT_TESTS
LEVEL= DEBUG=0 SUITES= ONE=${HMM_BASE_GIVEN:-} BISECT=(--objects) FULLB=0
[ -z "${KERNEL_TREE:-}" ] || ONE=1
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--full) LEVEL=full ;;
	--ci) LEVEL=ci ;;
	--quick) LEVEL=quick ;;
	--core) LEVEL=core ;;
	--backport) LEVEL=backport ;;
	--debug) DEBUG=1 ;;
	--full-bisect) BISECT=() FULLB=1 ;;
	--suites) need_arg "$@"; SUITES=$2; shift ;;
	--mainline) select_base 7.3; ONE=1 ;;
	--lts) select_base 6.12; ONE=1 ;;
	-h|--help) usage; exit 0 ;;
	*) usage_error "unknown argument $1" ;;
	esac
	shift
done

# --full-bisect is a mode of bisect-build, which runs at level full only:
# it implies --full, and any other level is an error.
if [ $FULLB = 1 ]; then
	[ -n "$LEVEL" ] || LEVEL=full
	[ "$LEVEL" = full ] || usage_error "--full-bisect needs level full, not --$LEVEL"
fi

# Every base: the primary at the level asked for (ci by default), the
# backports at theirs (below); each run is this script on one base.
if [ -z "$ONE" ]; then
	T0=$(date +%s) rc=0
	for b in "${HMM_BASES[@]}"; do
		# The primary at the level asked for (ci by default); a backport
		# at quick with --quick, core with --full or --core, backport
		# otherwise.
		lvl=(--ci)
		[ -z "$LEVEL" ] || lvl=(--$LEVEL)
		if [ "$b" != "${HMM_BASES[0]}" ]; then
			case $LEVEL in
			quick) ;;
			full|core) lvl=(--core) ;;
			*) lvl=(--backport) ;;
			esac
		fi
		# (A backport at level core runs no bisect-build: without
		# --full-bisect.)
		bargs=("${args[@]}")
		if [ "$b" != "${HMM_BASES[0]}" ]; then
			bargs=()
			for a in "${args[@]}"; do [ "$a" = --full-bisect ] || bargs+=("$a"); done
		fi
		log "base $b"
		rm -f "$CACHE/$b/results/latest/final.txt"
		HMM_BASE=$b "$0" "${bargs[@]}" "${lvl[@]}" || rc=1
	done
	echo
	echo "==================== every base ($(( $(date +%s) - T0 ))s) ===================="
	# BASE KERNEL SUITE TEST STATUS, a base without results as a failure.
	for b in "${HMM_BASES[@]}"; do
		f=$CACHE/$b/results/latest/final.txt
		if [ -f "$f" ]; then
			sed "s/^/$b /" "$f"
		else
			echo "$b pipeline pipeline results FAIL"
		fi
	done | awk '{ if (!($1 in n)) order[k++] = $1; n[$1]++; c[$1, $5]++; t[$5]++ }
		END { for (i = 0; i < k; i++) { b = order[i]
			printf "%-5s %d passed, %d failed, %d skipped, %d known base failures\n",
				b, c[b, "PASS"], c[b, "FAIL"], c[b, "SKIP"], c[b, "XFAIL"] }
		      printf "%d passed, %d failed, %d skipped\n", t["PASS"], t["FAIL"], t["SKIP"] }'
	exit $rc
fi
LEVEL=${LEVEL:-full}
# BASE_BOOT: does this level build and boot the base kernel, to compare
# the upstream suites' results with the series'? (The other levels
# compare them with the base's results as recorded, $BASE_RESULTS, if
# the record's inputs are those of this run: record_key.)
BASE_BOOT=0 USE_RECORD=0
case $LEVEL in
full|core) BASE_BOOT=1 ;;
*) USE_RECORD=1 ;;
esac
log "base $HMM_BASE: ${SERIES_REL}series onto $BASE_TAG, $LEVEL"
R=$WORKDIR/results/latest
rm -rf "$R" && mkdir -p "$R"
RES=$R/results.txt	# KERNEL SUITE TEST STATUS
: > "$RES"
WT=$WORKDIR/test-tree
T0=$(date +%s)
rec() { echo "$*" >> "$RES"; }

# took NAME T: record in $R/timings.txt that the step NAME, started at T
# (date +%s), took until now.
took() { echo "$1 $(( $(date +%s) - $2 ))" >> "$R/timings.txt"; }

# stage NAME CMD...: run a pipeline step, log to $R/NAME.log, record it.
stage() {
	local name=$1 t=$(date +%s); shift
	log "[$(( t - T0 ))s] $name"
	if "$@" > "$R/$name.log" 2>&1; then
		took "$name" "$t"
		rec pipeline pipeline "$name" PASS
		return 0
	fi
	took "$name" "$t"
	rec pipeline pipeline "$name" FAIL
	echo "---- $name failed; last lines of $R/$name.log:" >&2
	tail -n 40 "$R/$name.log" >&2
	return 1
}

suite_list() {
	if [ -n "$SUITES" ]; then
		tr ',' '\n' <<<"$SUITES"
	else
		sed -e 's/#.*//' "$TOP/tests/plans/$1" | awk 'NF { print $1 }'
	fi
}

# boot K BUILD_DIR PLAN...: scripts/boot/boot.sh with the suites of the
# plans (tests/plans/PLAN) into $R/*-K.* (initramfs, QEMU, log scan, the
# results parsed from the suites' KTAP); each of its steps is recorded as a stage (initramfs-K, boot-K,
# kernel-log-K).
boot() {
	local k=$1 out=$2; shift 2
	local suites t ok=1
	suites=$(for f in "$@"; do suite_list "$f"; done | awk '!seen[$0]++' | paste -sd, -)
	[ -n "$suites" ] || { log "no suites for $k"; return 0; }
	t=$(date +%s)
	log "[$(( t - T0 ))s] boot-$k"
	"$TOP/scripts/boot/boot.sh" --name "$k" --timeout "${BOOT_TIMEOUT:-2400}" --keep-initramfs \
		"$out" "${BOOT_TESTS:-$R/tests}" "$suites" "$R" > "$R/boot-$k.log" 2>&1 || ok=0
	took "boot-$k" "$t"
	awk -v k="$k" '{ print "pipeline pipeline", $1 "-" k, $2 }' "$R/steps-$k.txt" >> "$RES"
	awk -v k="$k" '{ print k, $2, $3, $4 }' "$R/results-$k.txt" >> "$RES"
	if [ $ok = 0 ]; then
		echo "---- boot-$k failed; last lines of $R/boot-$k.log:" >&2
		tail -n 40 "$R/boot-$k.log" >&2
	fi
	[ $ok = 1 ]
}

summary() {
	local known=$KNOWN_FAILURES
	# Known base failures count as xfail wherever they fail.
	awk 'NR == FNR { if ($0 !~ /^#/ && NF >= 2) kf[$1 " " $2] = 1; next }
	     { s = $4; if (s == "FAIL" && (($2 " " $3) in kf)) s = "XFAIL"; print $1, $2, $3, s }' \
		"$known" "$RES" > "$R/final.txt"
	echo
	echo "==================== summary: $HMM_BASE, $LEVEL ($(( $(date +%s) - T0 ))s) ===================="
	printf '%-9s %-28s %6s %6s %6s %6s\n' kernel suite passed failed skipped xfail
	awk '{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[n++] = k }
	       c[k, $4]++ }
	     END { for (i = 0; i < n; i++) { split(order[i], a, " ");
	           printf "%-9s %-28s %6d %6d %6d %6d\n", a[1], a[2], c[order[i], "PASS"],
	                  c[order[i], "FAIL"], c[order[i], "SKIP"], c[order[i], "XFAIL"] } }' "$R/final.txt"
	local p f s x
	p=$(awk '$4 == "PASS"' "$R/final.txt" | wc -l)
	f=$(awk '$4 == "FAIL"' "$R/final.txt" | wc -l)
	s=$(awk '$4 == "SKIP"' "$R/final.txt" | wc -l)
	x=$(awk '$4 == "XFAIL"' "$R/final.txt" | wc -l)
	if [ "$f" -gt 0 ]; then
		echo "failed:"
		awk '$4 == "FAIL" { print "  " $1, $2, $3 }' "$R/final.txt" | head -n 50
	fi
	echo "known base failures (${KNOWN_FAILURES#"$TOP/"}), not counted as failed: $x"
	echo "Under TCG only ratios mean anything; logs: $R"
	echo "$p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ]
}
finish() { summary && exit 0; exit 1; }

# ---------------------------------------------------------------------------
stage deps need_pkgs "${BUILD_PKGS[@]}" || finish
# The host's KTAP parser against its fixtures (tests/ktap/): a parser that
# stopped seeing failures would make every KTAP suite pass.
ktap_parser() {
	local f bad=0
	for f in "$TOP"/tests/ktap/*.tap; do
		diff -u "${f%.tap}.expected" <(awk -v suite=s -f "$TOP/scripts/boot/ktap.awk" "$f") || bad=1
	done
	# Crafted-input checks of the scripts that feed it (tests/ktap/*.check).
	for f in "$TOP"/tests/ktap/*.check; do
		bash "$f" "$TOP" || bad=1
	done
	return $bad
}
stage ktap-parser ktap_parser || true
# The host-side checks of scripts (tests/scripts/*.check, run as
# "bash NAME.check TOP", exit 0 = pass): seconds, no kernel.
script_checks() {
	local f bad=0
	for f in "$TOP"/tests/scripts/*.check; do
		echo "== ${f##*/}"
		bash "$f" "$TOP" || bad=1
	done
	return $bad
}
stage script-checks script_checks || true
stage base-tree "$TOP/scripts/series/get-base.sh" || finish
stage checkpatch "$TOP/scripts/check/checkpatch.sh" || true
stage import "$TOP/scripts/series/import.sh" --worktree "$WT" || finish
HEAD_COMMIT=$(git -C "$WT" rev-parse HEAD)
NPATCH=$(git -C "$WT" rev-list --count "$BASE_TAG..$HEAD_COMMIT")
stage apply-check "$TOP/scripts/series/apply-check.sh" "$WT" || true
# Developer loop: exporting the unchanged import gives the same bytes.
roundtrip() {
	rm -rf "$R/export" && "$TOP/scripts/series/export.sh" --tree "$WT" --out "$R/export" HEAD &&
	diff -r "$SERIES_DIR/patches" "$R/export/patches" && diff "$SERIES_DIR/series" "$R/export/series"
}
stage export-roundtrip roundtrip || true
mapfile -t CFG_BASE < <(configs guest)
mapfile -t CFG_SERIES < <(configs guest hmm)
mapfile -t CFG_DEBUG < <(configs guest hmm debug)
stage config-debug "$TOP/scripts/build/config.sh" "$WT" "$BUILD_ROOT/debug" "${CFG_DEBUG[@]}" || true

# Base kernel first, at the levels that boot it (same worktree path, so
# ccache serves the series build).
SAME=0
[ "$(git -C "$WT" rev-parse "$BASE_TAG^{tree}")" = "$(git -C "$WT" rev-parse "$HEAD_COMMIT^{tree}")" ] && SAME=1
# The series' coccinelle switch rule: silent on the series, and it must find
# amdkfd's incomplete switch on the base (seconds; an empty series has no rule).
[ $SAME = 1 ] || stage cocci-check "$TOP/scripts/check/cocci-check.sh" "$WT" || true
BASE_OK=0
if [ $BASE_BOOT = 1 ] && [ $SAME = 0 ]; then
	git -C "$WT" checkout -q --detach "$BASE_TAG"
	stage build-base "$TOP/scripts/build/build.sh" "$WT" "$BUILD_ROOT/base" "${CFG_BASE[@]}" && BASE_OK=1
	git -C "$WT" checkout -q --detach "$HEAD_COMMIT"
fi
# The series build and bisect-build start from the base objects, if the
# base was built (same worktree path): kbuild rebuilds only what the
# series changes.
SEED=()
[ $BASE_OK = 1 ] && SEED=(--seed-from "$BUILD_ROOT/base")
stage build-series "$TOP/scripts/build/build.sh" "${SEED[@]}" "$WT" "$BUILD_ROOT/series" \
	"${CFG_SERIES[@]}" || finish
stage guest-tests "$TOP/scripts/build/build-guest-tests.sh" "$WT" "$R/tests" || finish
# The series' KUnit tests the KUnit way: kunit.py with mm/.kunitconfig, in
# QEMU; its KTAP goes through the host's KTAP parser into the results.
# (Levels full and quick: cold, kunit.py's own kernel build took 648 s,
# and the guest boot runs the same KUnit modules at every level.)
if [ $SAME = 0 ] && { [ $LEVEL = full ] || [ $LEVEL = quick ]; } && [ -f "$WT/mm/.kunitconfig" ]; then
	stage kunit-qemu "$TOP/scripts/kunit.sh" "$WT" "$R/kunit.ktap" || true
	[ -f "$R/kunit.ktap.results" ] &&
		awk '{ print "series", $2, $3, $4 }' "$R/kunit.ktap.results" >> "$RES"
fi
# nohmm_build: the build-nohmm stage; build.sh checks the symbols the
# configs ask for, and the guest config asks for none of the series': check
# here that neither the mirror nor device memory came in.
nohmm_build() {
	"$TOP/scripts/build/build.sh" --seed-from "$BUILD_ROOT/series" \
		"$WT" "$BUILD_ROOT/nohmm" "${CFG_BASE[@]}" || return 1
	! grep -E '^CONFIG_HMM_(DEVICE_MIRROR|DEVMEM)=' "$BUILD_ROOT/nohmm/.config"
}
# mirror_only_build: the build-mirror-only stage, the mirror
# (CONFIG_HMM_DEVICE_MIRROR, which the mirror's KUnit test selects) without
# device memory; config.sh checks that each symbol took.
mirror_only_build() {
	local cfg=()
	mapfile -t cfg < <(configs guest hmm mirror-only)
	"$TOP/scripts/build/build.sh" --seed-from "$BUILD_ROOT/series" \
		"$WT" "$BUILD_ROOT/mirror-only" "${cfg[@]}"
}

if [ $LEVEL = full ] || [ $LEVEL = ci ]; then
	stage check-touched "$TOP/scripts/check/check-touched.sh" "$WT" || true
	# kernel-doc of the touched files and exported functions, and the mm
	# book of the in-kernel documentation built with Sphinx.
	# (At level ci without the Sphinx build.)
	KDOC=(--htmldocs)
	[ $LEVEL = full ] || KDOC=()
	stage kernel-doc "$TOP/scripts/check/kdoc-check.sh" "${KDOC[@]}" "$WT" || true
	# The series under Debian's own config of the base (compile the touched files).
	stage distro-config "$TOP/scripts/build/distro-pkg.sh" --debian --compile-only "$WT" || true
	# bisect-build checks out each commit in $WT (its objects belong to
	# that path) and checks HEAD out again when it ends, however it ends.
	if [ $LEVEL = full ]; then
		stage bisect-build "$TOP/scripts/check/bisect-build.sh" "${BISECT[@]}" "${SEED[@]}" \
			--build-dir "$BUILD_ROOT/bisect" "$WT" || true
		[ "$(git -C "$WT" rev-parse HEAD)" = "$HEAD_COMMIT" ] ||
			{ rec pipeline pipeline worktree-head FAIL; git -C "$WT" checkout -q --detach "$HEAD_COMMIT"; }
	fi
	# The series with CONFIG_HMM_DEVMEM=n and no mirror (a distro that leaves
	# them off) must build too. Starts from a copy of the series build (the
	# head, HMM_DEVMEM=y): kbuild rebuilds only what depends on the symbols
	# that change.
	[ $LEVEL != full ] || stage build-nohmm nohmm_build || true
	# And with the mirror but without device memory (a driver that only
	# mirrors, as upstream's hmm_range_fault() users).
	[ $LEVEL != full ] || stage build-mirror-only mirror_only_build || true
fi

PLANS=(upstream series)
boot series "$BUILD_ROOT/series" "${PLANS[@]}" || true
BASE_BOOTED=0
if [ $SAME = 1 ]; then
	log "the series is empty ($NPATCH patches): the series kernel is the base kernel, booted once"
elif [ $BASE_OK = 1 ] && [ $BASE_BOOT = 1 ]; then
	boot base "$BUILD_ROOT/base" upstream && BASE_BOOTED=1
fi

# upstream_suites: the suites of tests/plans/upstream, only those of
# --suites if it was given, one per line.
upstream_suites() {
	local s
	for s in $(SUITES= suite_list upstream); do
		[ -z "$SUITES" ] || tr ',' '\n' <<<"$SUITES" | grep -qxF -- "$s" || continue
		echo "$s"
	done
}

# record_key: what the base kernel's upstream results depend on besides
# the base kernel, one line each: the base tree; the series' changes to
# files the base has under tools/testing/selftests/mm (the programs it
# adds skip as a whole on the base, which the comparison allows for);
# the selftest fixes; the guest's init and kselftest runner, the upstream
# plan and the guest config; the QEMU command line and release. Kept
# beside the record ($BASE_RESULTS.key): a record made with other inputs
# is stale.
record_key() {
	local d
	echo "base-tree $(git -C "$WT" rev-parse "$BASE_TAG^{tree}")"
	echo "selftests-changed $(git -C "$WT" diff --diff-filter=MD "$BASE_TAG" "$HEAD_COMMIT" -- tools/testing/selftests/mm | sha256sum | cut -c1-16)"
	echo "selftest-fixes $(for d in "${SELFTEST_FIXES[@]}"; do cat "$d"/*.patch 2>/dev/null; done | sha256sum | cut -c1-16)"
	echo "guest $(cd "$TOP" && cat tests/guest/init tests/guest/run-kselftest.sh \
		tests/guest/suite-lib.sh tests/plans/upstream scripts/boot/run-qemu.sh \
		$(configs guest) | sha256sum | cut -c1-16)"
	# (QEMU's major.minor: its -cpu max, and so what the tests see, moves
	# with releases, not with a distribution's security updates.)
	echo "qemu $(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9]*\.[0-9]*\).*/\1/p')"
}

# base_record: the base kernel's upstream results, just booted, must be
# the recorded ones ($BASE_RESULTS, with the same record_key), which the
# other levels compare the series with. $R/base-results.new(.key) is
# what to record when the base or what it runs changed: review the diff
# first (the record also reflects the series' changes to base selftests).
base_record() {
	record_key > "$R/base-results.new.key"
	awk '$1 == "base" && $2 != "pipeline" { print $2, $3, $4 }' "$RES" | sort > "$R/base-results.new"
	[ -s "$R/base-results.new" ] || { echo "the base kernel has no upstream results"; return 1; }
	local bad=0
	diff -u "$BASE_RESULTS.key" "$R/base-results.new.key" ||
		{ echo "the record's inputs differ from this run's (< recorded, > now)"; bad=1; }
	diff -u "$BASE_RESULTS" "$R/base-results.new" ||
		{ echo "the base kernel's results differ from ${BASE_RESULTS#"$TOP/"} (< recorded, > now)"; bad=1; }
	[ $bad = 0 ] && return 0
	echo "if the base or what it runs changed as it should, record them:"
	echo "  cp $R/base-results.new $BASE_RESULTS; cp $R/base-results.new.key $BASE_RESULTS.key"
	return 1
}
# (Only from a whole, clean base boot, of every upstream suite.)
if [ $BASE_BOOT = 1 ] && [ $SAME = 0 ] && [ -z "$SUITES" ]; then
	if [ $BASE_BOOTED = 1 ]; then
		stage base-record base_record || true
	elif [ $BASE_OK = 1 ]; then
		rec pipeline pipeline base-record FAIL
		echo "---- base-record: the base boot failed; the record was not checked" >&2
	fi
fi

# Debian packages of the series kernel (make bindeb-pkg), and what they hold.
if { [ $LEVEL = full ] || [ $LEVEL = ci ]; } && [ $SAME = 0 ]; then
	stage distro-pkg "$TOP/scripts/build/distro-pkg.sh" --seed "$BUILD_ROOT/series" "$WT" || true
fi

# Upstream suites: base results must be known, series results must equal base.
# (At levels that boot no base kernel, USE_RECORD=1: the base's results
# are the recorded ones, $BASE_RESULTS.)
cmp_results() {
	local base=series
	[ $SAME = 1 ] || base=base
	if [ "${USE_RECORD:-0}" = 1 ]; then
		[ -s "$BASE_RESULTS" ] || { echo "no recorded base results: ${BASE_RESULTS#"$TOP/"}"; return 1; }
		if ! record_key | diff -u "$BASE_RESULTS.key" -; then
			echo "${BASE_RESULTS#"$TOP/"} was recorded with other inputs (< recorded, > now):"
			echo "run scripts/test.sh --full (or --lts --core), whose base-record stage checks and re-records it"
			return 1
		fi
		# Only the suites this run booted (--suites).
		upstream_suites | awk 'NR == FNR { k[$1] = 1; next } ($1 in k) { print "base", $0 }' \
			- "$BASE_RESULTS" > "$R/base.res"
	else
		awk -v b="$base" '$1 == b && $2 != "pipeline"' "$RES" > "$R/base.res"
	fi
	awk '$1 == "series"' "$RES" > "$R/series.res"
	# s, t, st local: stage() runs this with a local t of its own (its
	# start time), which the loop would overwrite.
	local bad=0 s t st
	while read -r _ s t st; do
		[ "$st" = FAIL ] || continue
		# The key "SUITE TEST" as a string (test names hold ( ) . +).
		awk -v k="$s $t" '$0 == k || index($0, k " ") == 1 { f = 1 } END { exit !f }' \
			"$KNOWN_FAILURES" ||
			{ echo "base kernel: $s $t fails and is not in ${KNOWN_FAILURES#"$TOP/"}"; bad=1; }
	done < "$R/base.res"
	# Every upstream suite must have run tests of its own on the base
	# kernel (not only the runner's __timeout__, __kernel_log__, ...):
	# the series' results are compared only under the programs the base
	# ran, so a category that came out empty on the base would let any
	# series result through.
	for s in $(upstream_suites); do
		[ "$s" = shell ] && continue
		awk -v s="$s" '$2 == s && $3 !~ /^__/ { f = 1 } END { exit !f }' "$R/base.res" ||
			{ echo "base kernel: $s ran no test of its own: nothing to compare the series with"; bad=1; }
	done
	# (An empty series booted once is the base kernel: compared with the
	# record, if there is one to compare with.)
	if [ $SAME = 0 ] || [ "${USE_RECORD:-0}" = 1 ]; then
		# Every upstream test the base ran must give the same result on
		# the series, and the series must have no other result under the
		# programs the base ran (a test's path starts with its program,
		# e.g. kselftest:cow cow/...) nor another result of the runner
		# (__plan__, __unfinished__, __timeout__, ...). A program the
		# series adds to a category (test_hmm_dummy.sh in kselftest:hmm)
		# is the series' own test: it counts, but has no base to equal.
		#
		# A program that skips as a whole on the base (one SKIP line,
		# no result of its own: test_hmm_dummy.sh without hmm_dummy) is
		# the series' own test as well. Its category's __exit__ then
		# says ksft_skip on the base only because of it: __exit__ is
		# not compared there (the series' own __exit__ still counts
		# among its results).
		awk 'NR == FNR { if ($3 ~ /\//) { p = $3; sub(/\/.*/, "", p); sub_[$2, p] = 1 }; next }
		     $3 !~ /\// && $3 !~ /^__/ && $4 == "SKIP" && !(($2, $3) in sub_) { print $2, $3 }' \
			"$R/base.res" "$R/base.res" > "$R/base-skipped.txt"
		awk -v skipped="$R/base-skipped.txt" '
		     BEGIN { while ((getline l < skipped) > 0) { split(l, f, " "); sk[f[1], f[2]] = 1; cat[f[1]] = 1 } }
		     { p = $3; sub(/\/.*/, "", p) }
		     !(($2, p) in sk) && !($3 == "__exit__" && ($2 in cat))' \
			"$R/base.res" > "$R/base.cmp"
		if ! diff <(awk '{ print $2, $3, $4 }' "$R/base.cmp" | sort) \
			  <(awk 'function top(t) { sub(/\/.*/, "", t); return t }
				 NR == FNR { u[$2, top($3)] = 1; b[$2] = 1; next }
				 (($2, top($3)) in u) ||
				 (top($3) ~ /^__/ && ($2 in b) && ($3 != "__exit__" || (($2, $3) in u))) { print $2, $3, $4 }' \
				"$R/base.cmp" "$R/series.res" | sort); then
			echo "upstream suites: results differ between base and series (< base, > series)"
			bad=1
		fi
	fi
	[ $bad = 0 ]
}
# series_ran: every suite the series kernel booted with must have run
# tests of its own (not only the runner's __timeout__, __kernel_log__,
# ..., and not only skipped ones); its failures count against the known
# failures in the summary, as every suite's.
series_ran() {
	local s bad=0
	awk '$1 == "series"' "$RES" > "$R/series.res"
	for s in $(for p in "${PLANS[@]}"; do suite_list "$p"; done | sort -u); do
		[ "$s" = shell ] && continue
		awk -v s="$s" '$2 == s && $3 !~ /^__/ && $4 != "SKIP" { f = 1 } END { exit !f }' "$R/series.res" ||
			{ echo "series kernel: $s ran no test of its own (or only skipped)"; bad=1; }
	done
	[ $bad = 0 ]
}
if [ $SAME = 1 ] || [ $BASE_BOOT = 1 ] || [ $USE_RECORD = 1 ]; then
	stage compare-base-series cmp_results || true
fi
stage series-ran series_ran || true
# The debug kernel runs the tests about 3 times slower than the normal one
# under TCG (a debug boot is expected to take ~2270 s): 3 times the boot
# cap and the per-category timeout (tests/guest/run-kselftest.sh:
# mm/settings 180 s x 15 = 2700 s, which a hung category can use up with
# the cap still ahead).
# kasan_multi_shot: KASAN prints every report, not only the first (a
# first report at boot would hide every later one).
# no5lvl: 4-level paging. With 5-level paging (QEMU's -cpu max has LA57)
# 7.3.4 can report a false wild-memory-access at boot: identify_cpu()
# clears boot_cpu_data's capabilities, so an interrupt in that window sees
# pgtable_l5_enabled() false and KASAN takes the 5-level direct map for
# memory without shadow (posted upstream as "kasan: Fix false-positive
# wild-memory-access on x86 under 5-level paging", June 2026;
# Documentation/testing.md, which says what 4-level paging leaves out).
# Its tests are built apart with the kselftest harness's per-test
# timeouts 5 times longer (KSFT_TIMEOUT_SCALE, build-guest-tests.sh): the
# 30 s default and hmm-tests' TEST_F_TIMEOUT(..., 120) ran out under the
# debug kernel on the base too, which says nothing about the kernel.
# The suite zap skips its exit mode there (a SKIP with this reason):
# under the debug kernel the exiting process was never reaped before the
# eviction ended (0 hits in 20 iterations, with 32 and with 96 THPs), so
# exit mode can only end inconclusive (exit 2); the normal boots run it.
debug_tests() {
	KSFT_TIMEOUT_SCALE=5 "$TOP/scripts/build/build-guest-tests.sh" "$WT" "$R/tests-debug" &&
	mkdir -p "$R/tests-debug/zap" &&
	echo "not under the debug kernel: its race window was never reached there (testing.md)" \
		> "$R/tests-debug/zap/skip-exit"
}
if [ $DEBUG = 1 ] &&
   stage build-debug "$TOP/scripts/build/build.sh" "$WT" "$BUILD_ROOT/debug" "${CFG_DEBUG[@]}" &&
   stage guest-tests-debug debug_tests; then
	BOOT_TIMEOUT=$(( ${BOOT_TIMEOUT:-2400} * 3 )) BOOT_TESTS=$R/tests-debug \
	QEMU_APPEND="${QEMU_APPEND:-} hmmtimeoutscale=15 kasan_multi_shot no5lvl" boot debug "$BUILD_ROOT/debug" upstream series || true
fi
finish
