#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mail-series.sh [--out DIR] [--to ADDR]... [--from IDENT] [--check]
# The mailing-list form of the series: git format-patch of BASE_TAG..SERIES_BRANCH
# in the base's kernel tree (as export.sh; HMM_BASE, default the mainline
# series, hmm/base-7.3..hmm/series-7.3), threaded under a cover letter whose
# subject and text come from Documentation/cover-letter.txt (a backport's
# from backports/BASE/cover-letter.txt), with base-commit;
# plus DIR/series.mbox, all messages in one mbox. Subjects are
# "[RFC PATCH nn/NN]". Nothing is sent.
# The sender is the From: of every message and signs off every patch
# (Signed-off-by, last): sendemail.from or else user.name and user.email of
# this repository's git configuration, as git send-email takes them. The
# script refuses to run (exit 2) without one, or with a placeholder: the
# patch store's neutral author, an address at example.com/.org/.net or under
# another name reserved for examples (.example, .invalid, .test, .localhost),
# a noreply address, or a domain without a dot. A patch whose stored author
# is a placeholder is mailed as the sender's; any other author stays the
# author (a "From:" line opens the body). Placeholder trailers are dropped.
#   --out DIR     output directory (default $HMM_WORKDIR/BASE/outgoing; old *.patch,
#                 series.mbox and b4/ in it are removed first)
#   --to ADDR     To: on every message (repeatable; default none)
#   --from IDENT  the sender, "Full Name <address>", instead of git's
#                 configuration (checked the same way)
#   --check       checkpatch --strict of each patch; the mailed series is the
#                 one in patches/ (patch-ids); b4 am of series.mbox (offline),
#                 git am onto the base tag in a temporary worktree, the tree
#                 must be the series branch's and the authors those mailed.
#                 One line per check; exit 1 on a failure.
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

# The neutral identity the patch store keeps as author and Signed-off-by.
PLACEHOLDER_NAME="HMM series developers"
PLACEHOLDER_EMAIL="hmm-series@example.org"
IDENT_RE='^([^<>]*[^<>[:space:]])[[:space:]]*<([^<>[:space:]]+@[^<>[:space:]]+)>$'

# is_placeholder IDENT: IDENT ("Name <address>") stands for nobody: the
# store's neutral identity, or an address under a name reserved for
# examples and tests (RFC 2606, RFC 6761) or git's "(none)" host.
is_placeholder() {
	local name addr domain
	[[ $1 =~ $IDENT_RE ]] || return 1
	name=${BASH_REMATCH[1],,} addr=${BASH_REMATCH[2],,}
	domain=${addr##*@}
	[ "$name" = "${PLACEHOLDER_NAME,,}" ] && return 0
	[ "$addr" = "$PLACEHOLDER_EMAIL" ] && return 0
	case ".$domain" in
	*.example.com|*.example.org|*.example.net|*.example|*.invalid|*.test|\
	*.localhost|*.localdomain|*".(none)") return 0 ;;
	esac
	return 1
}

# sender_problem IDENT: why IDENT may not send and sign off the series;
# nothing if it may.
sender_problem() {
	local addr
	if ! [[ $1 =~ $IDENT_RE ]]; then
		echo "'$1' is not 'Full Name <address>'"
		return
	fi
	addr=${BASH_REMATCH[2],,}
	if is_placeholder "$1"; then
		echo "'$1' is a placeholder, not a person"
	elif [[ ${addr##*@} != *.* ]]; then
		echo "'$1' has no mail domain"
	elif [[ $addr =~ (^|[.@+-])no-?reply([.@+-]|$) ]]; then
		echo "'$1' is a noreply address: nobody would read the replies"
	fi
}

# The sender, as git send-email finds it: --from, sendemail.from, or
# user.name and user.email of this repository's configuration (local,
# global, system, or GIT_CONFIG_* in the environment).
problem=
if [ -n "$FROM" ]; then
	SENDER=$FROM src="--from"
elif SENDER=$(git -C "$TOP" config sendemail.from); then
	src="git config sendemail.from"
else
	name=$(git -C "$TOP" config user.name || :)
	email=$(git -C "$TOP" config user.email || :)
	SENDER="$name <$email>" src="git config user.name / user.email"
	[ -n "$name" ] && [ -n "$email" ] || problem="not set"
fi
[ -n "$problem" ] || problem=$(sender_problem "$SENDER")
[ -z "$problem" ] || usage_error "no sender identity to mail the series with ($src: $problem).
Nothing posted may carry a placeholder identity: set your own, e.g.
  git -C $TOP config user.name 'Your Name'
  git -C $TOP config user.email you@your.domain
(or sendemail.from, or --from 'Your Name <you@your.domain>')"
[[ $SENDER =~ $IDENT_RE ]]
SENDER_NAME=${BASH_REMATCH[1]} SENDER_EMAIL=${BASH_REMATCH[2]}
SENDER="$SENDER_NAME <$SENDER_EMAIL>"

need_pkgs git
[ $CHECK = 0 ] || need_pkgs b4
ensure_tree
rev=$SERIES_BRANCH
git -C "$KTREE" rev-parse -q --verify "$rev^{commit}" >/dev/null ||
	die "no branch $rev in $KTREE; run scripts/series/import.sh first"
git -C "$KTREE" merge-base --is-ancestor "$BASE_TAG" "$rev" || die "$rev does not contain $BASE_TAG"
[ -z "$(git -C "$KTREE" rev-list --merges "$BASE_TAG..$rev")" ] || die "merge commits in $BASE_TAG..$rev"
base=$(git -C "$KTREE" rev-parse "$BASE_TAG^{commit}")
n=$(git -C "$KTREE" rev-list --count "$BASE_TAG..$rev")
[ "$n" -gt 0 ] || die "$BASE_TAG..$rev is empty: nothing to mail"

# The cover letter file: "Subject: [RFC PATCH 00/N] text", a blank line,
# the body.
PREFIX="RFC PATCH"
# The base's cover letter: the mainline series', or the backport's own.
cl=$TOP/Documentation/cover-letter.txt
[ -z "$BACKPORT_DIR" ] || cl=$BACKPORT_DIR/cover-letter.txt
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

# The series as it is mailed: the commits of hmm/series again, with their
# trees, author dates and committers, but
#  - a placeholder author replaced by the sender: a placeholder cannot
#    certify the Developer's Certificate of Origin, and an in-body "From:"
#    line naming it would make it the author in every tree that applies
#    the mail; the sender, who signs off, takes the authorship over;
#  - trailers that name a placeholder ("Signed-off-by: HMM series
#    developers <...>") dropped, for the same reason.
# Any other author stays the author: git format-patch --from then opens the
# body with a "From:" line for them, as when a maintainer sends someone
# else's patch. The commits are only written to the object store.
drop_placeholder_trailers() {
	local line
	while IFS= read -r line; do
		if [[ $line =~ ^[A-Za-z-]+-by:[[:space:]]*(.*)$ ]] &&
		   is_placeholder "${BASH_REMATCH[1]}"; then
			continue
		fi
		printf '%s\n' "$line"
	done
}
mailed=$base
while read -r c; do
	author=$(git -C "$KTREE" log -1 --format='%an <%ae>' "$c")
	if is_placeholder "$author"; then
		aname=$SENDER_NAME aemail=$SENDER_EMAIL
	else
		aname=$(git -C "$KTREE" log -1 --format=%an "$c")
		aemail=$(git -C "$KTREE" log -1 --format=%ae "$c")
	fi
	mailed=$(git -C "$KTREE" log -1 --format=%B "$c" | drop_placeholder_trailers |
		GIT_AUTHOR_NAME=$aname GIT_AUTHOR_EMAIL=$aemail \
		GIT_AUTHOR_DATE=$(git -C "$KTREE" log -1 --format=%ad --date=raw "$c") \
		GIT_COMMITTER_NAME=$(git -C "$KTREE" log -1 --format=%cn "$c") \
		GIT_COMMITTER_EMAIL=$(git -C "$KTREE" log -1 --format=%ce "$c") \
		GIT_COMMITTER_DATE=$(git -C "$KTREE" log -1 --format=%cd --date=raw "$c") \
		git -C "$KTREE" commit-tree "$c^{tree}" -p "$mailed")
done < <(git -C "$KTREE" rev-list --reverse "$BASE_TAG..$rev")
[ "$(git -C "$KTREE" rev-parse "$mailed^{tree}")" = "$(git -C "$KTREE" rev-parse "$rev^{tree}")" ] ||
	die "the mailed commits do not have the tree of $rev"

# The diff options are export.sh's, so every mailed diff is byte-identical
# to patches/ (and checkpatch sees exactly what CI checks); --full-index also
# lets 'git am -3' / 'b4 am -3' find the blobs. Unlike export.sh the
# messages are numbered, threaded and carry commit ids: the "From <id>"
# line is not sent by git send-email, but in DIR it names the mailed commit
# (hmm/series with the changes above, same tree), and those ids are
# reproducible for a given sender (import.sh fixes committer and date).
# base-commit is added by --base either way. --signoff adds the sender's
# Signed-off-by (the committer identity) after the others, unless it is
# already the last. No signature: the output does not depend on the local
# git version. format.* settings of the user's git config are overridden
# where they would change the patches; format.headers (e.g. Cc:) is left to
# the user (overriding it with an empty value, as export.sh does, adds a
# blank line after the headers).
GIT_COMMITTER_NAME=$SENDER_NAME GIT_COMMITTER_EMAIL=$SENDER_EMAIL \
git -C "$KTREE" -c diff.noprefix=false -c diff.mnemonicPrefix=false \
	-c diff.algorithm=myers -c format.suffix=.patch -c format.forceInBodyFrom=false \
	-c format.useAutoBase=false -c format.filenameMaxLength=64 \
	format-patch -q --cover-letter --cover-from-description=none \
	--subject-prefix="$PREFIX" --thread=shallow --numbered --base="$base" \
	--from="$SENDER" --signoff "${TO[@]}" \
	--no-signature --no-renames --full-index --no-binary --stat=80 \
	-o "$OUT" "$BASE_TAG..$mailed" >/dev/null

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

# Nothing posted may name a placeholder: no From: (header or in-body), no
# trailer, no shortlog line, nowhere in the text.
bad=$(grep -E '^(From|[A-Za-z-]+-by): ' "$OUT/series.mbox" | sed 's/^[A-Za-z-]*: *//' | sort -u |
	while IFS= read -r id; do
		if is_placeholder "$id"; then echo "$id"; fi
	done)
[ -z "$bad" ] || die "placeholder identities left in $OUT/series.mbox: $bad"
! grep -qiF -e "$PLACEHOLDER_EMAIL" -e "$PLACEHOLDER_NAME" "$OUT/series.mbox" ||
	die "$OUT/series.mbox names the placeholder identity: $(grep -niF -e "$PLACEHOLDER_EMAIL" -e "$PLACEHOLDER_NAME" "$OUT/series.mbox" | head -n 3)"
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
mapfile -t repo_p < <(series_patches | sed "s|^|$SERIES_DIR/patches/|")
if [ "${#repo_p[@]}" -gt 0 ] && [ -f "${repo_p[0]}" ] &&
   [ "$(cat "${patches[@]}" | ids)" = "$(cat "${repo_p[@]}" | ids)" ]; then
	result patches/ OK "the $n mailed patches are ${SERIES_REL}patches/ in series order (patch-id --stable)"
else
	result patches/ FAIL "$BASE_TAG..$rev differs from ${SERIES_REL}patches/ (run scripts/series/export.sh or scripts/series/import.sh --force)"
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
		# Authors, author dates and subjects must survive the mail too:
		# those of the mailed commits (a placeholder author replaced by
		# the sender). (b4 rewrites message bodies slightly, e.g. blank
		# lines around trailers, so the bodies are not compared.)
		if [ "$(git -C "$wt" log --format='%an %ae %at %s' "$BASE_TAG..HEAD")" = \
		     "$(git -C "$KTREE" log --format='%an %ae %at %s' "$BASE_TAG..$mailed")" ]; then
			result b4-authors OK "authors, author dates and subjects as in $rev, authors as mailed ($(git -C "$wt" log --format='%an' "$BASE_TAG..HEAD" | sort | uniq -c | awk '{ c = $1; $1 = ""; printf "%s%s:%s", s, substr($0, 2), c; s = ", " }'))"
		else
			result b4-authors FAIL "authors, author dates or subjects after b4 am + git am differ from the mailed commits"
		fi
		# The sender signs off every patch, last.
		unsigned=$(git -C "$wt" rev-list "$BASE_TAG..HEAD" | while read -r c; do
			[ "$(git -C "$wt" log -1 --format=%B "$c" | grep '^Signed-off-by: ' | tail -n1)" = \
			  "Signed-off-by: $SENDER" ] || echo "$c"
		done | wc -l)
		if [ "$unsigned" -eq 0 ]; then
			result sign-off OK "every commit's last Signed-off-by is $SENDER"
		else
			result sign-off FAIL "$unsigned commit(s) without $SENDER as last Signed-off-by"
		fi
	fi
fi
[ $fail -eq 0 ] || die "mail-series: $fail check(s) failed"
log "mail-series: all checks passed; send with: git send-email $OUT/0*.patch"
