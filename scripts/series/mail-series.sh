#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mail-series.sh [--out DIR] [--to ADDR]... [--from IDENT] [--check]
# The mailing-list form of the series: git format-patch of hmm/base..hmm/series
# in the kernel tree (as export.sh), threaded under a cover letter whose
# subject and text come from Documentation/cover-letter.txt, with base-commit;
# plus DIR/series.mbox, all messages in one mbox. Subjects are
# "[RFC PATCH nn/NN]". Nothing is sent.
#   --out DIR     output directory (default $HMM_WORKDIR/outgoing; old *.patch,
#                 series.mbox and b4/ in it are removed first)
#   --to ADDR     To: on every message (repeatable; default none)
#   --from IDENT  From: of every message (default: the author of the series tip)
#   --check       checkpatch --strict of each patch; the mailed series is the
#                 one in patches/ (patch-ids); b4 am of series.mbox (offline),
#                 git am onto hmm/base in a temporary worktree, the tree must be
#                 hmm/series' tree. One line per check; exit 1 on a failure.
. "$(dirname "$0")/../lib.sh"

OUT=$WORKDIR/outgoing CHECK=0 FROM=
TO=()
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--out) need_arg "$@"; OUT=$2; shift ;;
	--to) need_arg "$@"; TO+=("--to=$2"); shift ;;
	--from) need_arg "$@"; FROM=$2; shift ;;
	--check) CHECK=1 ;;
	*) usage_error "unknown argument $1" ;;
	esac
	shift
done
need_pkgs git b4
ensure_tree
rev=$SERIES_BRANCH
git -C "$KTREE" rev-parse -q --verify "$rev^{commit}" >/dev/null ||
	die "no branch $rev in $KTREE; run scripts/series/import.sh first"
git -C "$KTREE" merge-base --is-ancestor "$BASE_TAG" "$rev" || die "$rev does not contain $BASE_TAG"
[ -z "$(git -C "$KTREE" rev-list --merges "$BASE_TAG..$rev")" ] || die "merge commits in $BASE_TAG..$rev"
base=$(git -C "$KTREE" rev-parse "$BASE_TAG^{commit}")
n=$(git -C "$KTREE" rev-list --count "$BASE_TAG..$rev")
[ "$n" -gt 0 ] || die "$BASE_TAG..$rev is empty: nothing to mail"
[ -n "$FROM" ] || FROM=$(git -C "$KTREE" log -1 --format='%an <%ae>' "$rev")

# The cover letter file: "Subject: [RFC PATCH 00/N] text", a blank line,
# the body.
PREFIX="RFC PATCH"
cl=$TOP/Documentation/cover-letter.txt
[ -f "$cl" ] || die "no $cl"
subj_line=$(head -n1 "$cl")
[[ $subj_line =~ ^Subject:\ \[$PREFIX\ 0+/([0-9]+)\]\ (.+)$ ]] ||
	die "$cl: first line must be 'Subject: [$PREFIX 00/N] ...'"
[ "$((10#${BASH_REMATCH[1]}))" -eq "$n" ] ||
	die "$cl says ${BASH_REMATCH[1]} patches, $BASE_TAG..$rev has $n: update the cover letter"
subject=${BASH_REMATCH[2]}
[ -z "$(sed -n 2p "$cl")" ] || die "$cl: line 2 must be empty (it separates subject and body)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case "$OUT/" in "$TOP"/*) die "--out $OUT is inside this repository; use a directory outside it" ;; esac
rm -f "$OUT"/*.patch "$OUT/series.mbox"
rm -rf "$OUT/b4"

# The diff options are export.sh's, so every mailed diff is byte-identical
# to patches/ (and checkpatch sees exactly what CI checks); --full-index also
# lets 'git am -3' / 'b4 am -3' find the blobs. Unlike export.sh the
# messages are numbered, threaded and carry real commit ids: the "From <id>"
# line is not sent by git send-email, but in DIR it ties each file to its
# commit in hmm/series, and those ids are reproducible anyway (import.sh
# fixes committer and date). base-commit is added by --base either way.
# No signature: the output does not depend on the local git version.
# format.* settings of the user's git config are overridden where they
# would change the patches; format.headers (e.g. Cc:) is left to the user
# (overriding it with an empty value, as export.sh does, adds a blank line
# after the headers).
git -C "$KTREE" -c diff.noprefix=false -c diff.mnemonicPrefix=false \
	-c diff.algorithm=myers -c format.suffix=.patch \
	-c format.useAutoBase=false -c format.filenameMaxLength=64 \
	format-patch -q --cover-letter --cover-from-description=none \
	--subject-prefix="$PREFIX" --thread=shallow --numbered --base="$base" \
	--from="$FROM" "${TO[@]}" \
	--no-signature --no-renames --full-index --no-binary --stat=80 \
	-o "$OUT" "$BASE_TAG..$rev" >/dev/null

cover=$OUT/0000-cover-letter.patch
[ -f "$cover" ] || die "git format-patch wrote no $cover"
grep -q '^Subject: .*\*\*\* SUBJECT HERE \*\*\*$' "$cover" || die "$cover: no subject placeholder"
grep -qx '\*\*\* BLURB HERE \*\*\*' "$cover" || die "$cover: no blurb placeholder"
# Fill the placeholders; fold the subject header below 78 columns, as git does.
tail -n +3 "$cl" > "$OUT/.body"
awk -v subj="$subject" -v bodyf="$OUT/.body" '
	/^Subject: .*\*\*\* SUBJECT HERE \*\*\*$/ {
		sub(/\*\*\* SUBJECT HERE \*\*\*$/, "")
		line = $0; nw = split(subj, w, " ")
		for (i = 1; i <= nw; i++) {
			if (length(line) + length(w[i]) > 77 && line !~ /^ *$/ && line !~ /\] $/) {
				sub(/ $/, "", line); print line; line = " "
			}
			line = line w[i] (i < nw ? " " : "")
		}
		print line; next
	}
	/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < bodyf) > 0) print l; next }
	{ print }' "$cover" > "$cover.new"
rm -f "$OUT/.body"
mv "$cover.new" "$cover"
! grep -q '\*\*\* [A-Z]* HERE \*\*\*' "$cover" || die "$cover: a placeholder is left"
# The cover letter's text has UTF-8 (names); say so if git did not.
if LC_ALL=C grep -q '[^[:print:][:space:]]' "$cover" && ! grep -qi '^Content-Type:' "$cover"; then
	sed -i '0,/^$/s//MIME-Version: 1.0\nContent-Type: text\/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n/' "$cover"
fi

# One mbox: the files already start with "From <id> <date>" lines; a blank
# line ends each message. No body line may look like a separator.
mapfile -t msgs < <(find "$OUT" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | sort)
[ "${#msgs[@]}" -eq $((n + 1)) ] || die "expected $((n + 1)) files in $OUT, found ${#msgs[@]}"
for f in "${msgs[@]}"; do
	[ "$(grep -c '^From ' "$f")" -eq 1 ] || die "$f: a line starting with 'From ' would split the mbox"
	cat "$f"; echo
done > "$OUT/series.mbox"
log "mail-series: cover letter + $n patch(es) in $OUT, mbox $OUT/series.mbox (base-commit $base)"
[ $CHECK = 1 ] || exit 0

fail=0
result() { # result NAME OK|FAIL TEXT
	printf 'check %-10s %s: %s\n' "$1" "$2" "$3"
	[ "$2" = OK ] || fail=$((fail + 1))
}
patches=("${msgs[@]:1}")

# (a) checkpatch, exactly as scripts/check/checkpatch.sh runs it for CI (the file
# names are those of patches/ with a NNNN- number, which checkpatch.sh drops,
# so tests/checkpatch-exceptions applies).
if "$TOP/scripts/check/checkpatch.sh" "${patches[@]}" 2> "$OUT/checkpatch.log"; then
	result checkpatch OK "${#patches[@]} patches clean (checkpatch.pl --strict, subject, body, Signed-off-by)"
else
	sed 's/^/  /' "$OUT/checkpatch.log"
	result checkpatch FAIL "see above ($OUT/checkpatch.log)"
fi

# (b) the mailed series is the repository's series (same patch-ids in order):
# otherwise hmm/series has commits that were not exported, or the reverse.
ids() { git -C "$KTREE" patch-id --stable | awk '{ print $1 }'; }
mapfile -t repo_p < <(series_patches | sed "s|^|$TOP/patches/|")
if [ "${#repo_p[@]}" -gt 0 ] && [ -f "${repo_p[0]}" ] &&
   [ "$(cat "${patches[@]}" | ids)" = "$(cat "${repo_p[@]}" | ids)" ]; then
	result patches/ OK "the $n mailed patches are patches/ in series order (patch-id --stable)"
else
	result patches/ FAIL "$BASE_TAG..$rev differs from patches/ (run scripts/series/export.sh or scripts/series/import.sh --force)"
fi

# (c) b4 am of the mbox, offline, then git am onto the base: same tree.
# b4 0.12 reads an mbox named by path with Python's mailbox module (compat32
# headers), and then fails on folded Subject: lines ("Header values may not
# contain linefeed"), which git format-patch writes for long subjects. Given
# the mbox on stdin ("-m -") it splits it with git mailsplit and parses the
# messages as it does lore's, which works.
wt=$(mktemp -d /tmp/hmm-mail-am.XXXXXX)
cleanup() {
	git -C "$KTREE" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
	git -C "$KTREE" worktree prune
}
trap cleanup EXIT
rmdir "$wt"
git -C "$KTREE" worktree add -q --detach "$wt" "$BASE_TAG"
mkdir -p "$OUT/b4"
if ! (cd "$wt" && b4 --offline-mode --no-interactive am --no-cache \
		--use-local-mbox - --outdir "$OUT/b4" --mbox-name series) \
		< "$OUT/series.mbox" > "$OUT/b4/b4.log" 2>&1; then
	sed 's/^/  /' "$OUT/b4/b4.log"
	result b4-am FAIL "b4 am failed ($OUT/b4/b4.log)"
elif [ ! -s "$OUT/b4/series.mbx" ]; then
	sed 's/^/  /' "$OUT/b4/b4.log"
	result b4-am FAIL "b4 am wrote no $OUT/b4/series.mbx"
else
	b4base=$(sed -n 's/^ *Base: .*\<\([0-9a-f]\{40\}\)\>.*/\1/p' "$OUT/b4/b4.log" | head -n1)
	if ! GIT_COMMITTER_NAME="hmm-series mail-check" GIT_COMMITTER_EMAIL="hmm-series@localhost" \
		git -C "$wt" am -q --whitespace=error-all "$OUT/b4/series.mbx" > "$OUT/b4/git-am.log" 2>&1; then
		sed 's/^/  /' "$OUT/b4/git-am.log"
		result b4-am FAIL "git am of b4's series.mbx onto $BASE_TAG failed"
	else
		got=$(git -C "$wt" rev-list --count "$BASE_TAG..HEAD")
		if [ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(git -C "$KTREE" rev-parse "$rev^{tree}")" ] &&
		   [ "$got" -eq "$n" ]; then
			result b4-am OK "b4 am (offline${b4base:+, base-commit ${b4base:0:12}}) + git am onto $BASE_TAG: $got commits, tree identical to $rev"
		else
			result b4-am FAIL "b4 am + git am gave $got commits, tree $(git -C "$wt" rev-parse --short 'HEAD^{tree}'), $rev has $n, tree $(git -C "$KTREE" rev-parse --short "$rev^{tree}")"
		fi
		# Authors, author dates and subjects must survive the mail too.
		# (b4 rewrites message bodies slightly, e.g. blank lines around
		# trailers, so the bodies are not compared.)
		if [ "$(git -C "$wt" log --format='%an %ae %at %s' "$BASE_TAG..HEAD")" = \
		     "$(git -C "$KTREE" log --format='%an %ae %at %s' "$BASE_TAG..$rev")" ]; then
			result b4-authors OK "authors, author dates and subjects as in $rev"
		else
			result b4-authors FAIL "authors, author dates or subjects after b4 am + git am differ from $rev"
		fi
	fi
fi
[ $fail -eq 0 ] || die "mail-series: $fail check(s) failed"
log "mail-series: all checks passed; send with: git send-email $OUT/0*.patch"
