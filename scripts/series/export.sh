#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export.sh [--tree DIR] [--out DIR] [REV]
# Developer loop, step 2: regenerate the series of the base HMM_BASE
# (patches/ and series; backports/6.12/ for 6.12) from the commits
# BASE_TAG..REV of the base's kernel tree (REV defaults to its series
# branch: hmm/series-7.3, hmm/series for 6.12).
# The output carries no dates of export, commit ids or tool versions, so
# exporting an unchanged import is byte-identical. Patch files are named by
# subject slug, without a number (series gives the order); the comment lines
# of series stay with the patch they precede (Documentation/workflow.md,
# "The patch store").
#   --tree DIR  export from that git tree/worktree instead of the base tree
#   --out DIR   write DIR/patches and DIR/series instead of the base's
. "$(dirname "$0")/../lib.sh"

OUT=$SERIES_DIR
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--tree) need_arg "$@"; KTREE=$2; shift ;;
	--out) need_arg "$@"; OUT=$2; shift ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -le 1 ] || usage_error "one REV at most"
rev=${1:-$SERIES_BRANCH}
ensure_tree
git -C "$KTREE" rev-parse -q --verify "$rev^{commit}" >/dev/null || die "no revision $rev in $KTREE"
git -C "$KTREE" merge-base --is-ancestor "$BASE_TAG" "$rev" || die "$rev does not contain $BASE_TAG"

# Debian's top-level .gitignore hides new files: refuse to export while any
# untracked file (ignored or not) exists, since it may be a forgotten 'git add -f'.
untracked=$(git -C "$KTREE" ls-files --others --directory | head -n 20)
[ -z "$untracked" ] || die "untracked files in $KTREE (add new files with 'git add -f', delete the rest):
$untracked"
if [ "$(git -C "$KTREE" rev-parse HEAD)" = "$(git -C "$KTREE" rev-parse "$rev")" ]; then
	[ -z "$(git -C "$KTREE" status --porcelain --untracked-files=no)" ] ||
		die "uncommitted changes in $KTREE: commit them first"
fi
[ -z "$(git -C "$KTREE" rev-list --merges "$BASE_TAG..$rev")" ] || die "merge commits in $BASE_TAG..$rev"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/new"
# format.filenameMaxLength and format.suffix are pinned: the file names are
# the patches' identity (tests/checkpatch-exceptions keys them).
git -C "$KTREE" -c diff.noprefix=false -c diff.mnemonicPrefix=false \
	-c diff.algorithm=myers -c format.signature= -c format.headers= \
	-c format.coverLetter=false -c format.numbered=false \
	-c format.suffix=.patch -c format.filenameMaxLength=64 \
	format-patch -q --no-signature --zero-commit --no-numbered --no-renames \
	--full-index --no-binary --stat=80 -o "$tmp/new" "$BASE_TAG..$rev" >/dev/null

# subject FILE: the Subject: of a patch file, unfolded, without "[PATCH] ".
subject() {
	awk '/^Subject: / { s = $0
			while ((getline l) > 0 && l ~ /^[ \t]/) s = s l
			sub(/^Subject: (\[[^]]*\] )?/, "", s); print s; exit }
	     /^$/ { exit }' "$1"
}

# File names: git's subject slug without format-patch's NNNN- number (as in
# stable-queue), so inserting or dropping a patch renames no other file.
# The series being replaced (OUT/series, or the base's if OUT has
# none, so that an export into an empty directory compares byte for byte)
# decides two things:
#  - names: a patch keeps the name it had there (same subject and slug, or
#    failing that the same slug), so slugs that collide (two subjects with
#    the same first 52 characters) do not swap names; other patches get
#    their slug, or SLUG-2.patch, SLUG-3.patch... when it is taken;
#  - comments: comment and blank lines stay attached to the patch line they
#    preceded (section headers: "# events: ..."), and that line keeps
#    anything after the name; a new patch goes where it falls, with none.
#    A patch is the same patch by name or subject, or when it replaces one
#    between the same neighbours (reworded). If the patch a comment
#    preceded is gone, the comment moves down to the next patch (with a
#    warning); comments after the last patch stay last.
prev=$OUT
[ -f "$prev/series" ] || prev=$SERIES_DIR
: > "$tmp/new.list"
for f in "$tmp"/new/*.patch; do
	[ -e "$f" ] || break
	b=$(basename "$f")
	printf '%s\t%s\t%s\n' "$b" "${b#[0-9][0-9][0-9][0-9]-}" "$(subject "$f")" >> "$tmp/new.list"
done
: > "$tmp/old.list" && : > "$tmp/old.series" && : > "$tmp/names"
if [ -f "$prev/series" ]; then
	cp "$prev/series" "$tmp/old.series"
	while read -r p; do
		s=
		[ ! -f "$prev/patches/$p" ] || s=$(subject "$prev/patches/$p")
		printf '%s\t%s\n' "$p" "$s" >> "$tmp/old.list"
	done < <(series_patches "$prev/series")
fi
awk -v names="$tmp/names" -v series="$tmp/series" -v warnf="$tmp/warn" '
	# key(o): an old file name without a NNNN- number (numbered stores)
	function key(o) { sub(/^[0-9][0-9][0-9][0-9]-/, "", o); return o }
	# family(o, s): is o the slug s, or s deduplicated (S-N.patch)?
	function family(o, s,   b) {
		o = key(o); if (o == s) return 1
		b = s; sub(/\.patch$/, "", b)
		return substr(o, 1, length(b) + 1) == b "-" &&
			substr(o, length(b) + 2) ~ /^[0-9]+\.patch$/
	}
	function link(i, j) { lk[i] = j; used[j] = i }
	BEGIN { FS = "\t" }
	FILENAME == ARGV[1] { n++; tmpf[n] = $1; slug[n] = $2; nsub[n] = $3; next }
	FILENAME == ARGV[2] { osub[$1] = $2; next }
	/^[ \t]*(#|$)/ { blk = blk $0 "\n"; next }
	{	# the name as series_patches reads it
		nm = $0; sub(/#.*/, "", nm); sub(/^[ \t]+/, "", nm); sub(/[ \t].*/, "", nm)
		m++; oline[m] = $0; oname[m] = nm; oblk[m] = blk; blk = ""
	}
	END {
		for (i = 1; i <= n; i++)
			for (j = 1; j <= m; j++)
				if (!(j in used) && nsub[i] != "" && osub[oname[j]] == nsub[i] &&
				    family(oname[j], slug[i])) { link(i, j); break }
		for (i = 1; i <= n; i++)
			if (!(i in lk))
				for (j = 1; j <= m; j++)
					if (!(j in used) && key(oname[j]) == slug[i]) { link(i, j); break }
		# A patch reworded in place (its neighbours kept theirs) takes
		# the place, and so the comments, of the one it replaces.
		for (i = 1; i <= n; i++) {
			if (i in lk) continue
			j = (i == 1) ? 1 : ((i - 1) in lk) ? lk[i - 1] + 1 : 0
			if (j < 1 || j > m || (j in used)) continue
			if (i == n ? j == m : ((i + 1) in lk) && lk[i + 1] == j + 1) link(i, j)
		}
		for (i = 1; i <= n; i++)
			if ((i in lk) && family(oname[lk[i]], slug[i]) &&
			    !(key(oname[lk[i]]) in taken)) {
				name[i] = key(oname[lk[i]]); taken[name[i]] = 1
			}
		for (i = 1; i <= n; i++) {
			if (i in name) continue
			b = slug[i]; sub(/\.patch$/, "", b)
			c = slug[i]
			for (k = 2; c in taken; k++) c = b "-" k ".patch"
			name[i] = c; taken[c] = 1
		}
		carry = ""
		for (j = 1; j <= m; j++) {
			b = carry oblk[j]; carry = ""
			if (j in used) { blkof[j] = b; continue }
			carry = b
			if (b ~ /#/) printf "series: %s is not in the series any more; the comment lines before it now precede the next patch (check series)\n", oname[j] > warnf
		}
		for (i = 1; i <= n; i++) {
			print tmpf[i] "\t" name[i] > names
			if (!(i in lk)) { print name[i] > series; continue }
			j = lk[i]; l = oline[j]; p = index(l, oname[j])
			printf "%s%s%s%s\n", blkof[j], substr(l, 1, p - 1), name[i],
				substr(l, p + length(oname[j])) > series
		}
		printf "%s%s", carry, blk > series
	}' "$tmp/new.list" "$tmp/old.list" "$tmp/old.series"
[ ! -s "$tmp/warn" ] || while read -r w; do warn "$w"; done < "$tmp/warn"

mkdir -p "$OUT/patches"
rm -f "$OUT"/patches/*.patch
while IFS=$'\t' read -r t name; do
	mv "$tmp/new/$t" "$OUT/patches/$name"
done < "$tmp/names"
mv "$tmp/series" "$OUT/series"
log "export: $(series_patches "$OUT/series" | wc -l) patch(es) from $BASE_TAG..$rev into $OUT/patches and $OUT/series"
