#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# config.sh SRC BUILD_DIR FRAGMENT...
# Make BUILD_DIR/.config from tinyconfig plus the fragments (later fragments
# win), run olddefconfig, then check that every requested symbol has the
# requested value. Fails naming each symbol that did not take.
# BASE_CONFIG=FILE starts from FILE (e.g. a distribution's config) instead
# of tinyconfig.
. "$(dirname "$0")/../lib.sh"

case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -ge 3 ] || usage_error "SRC, BUILD_DIR and at least one FRAGMENT expected"
src=$1 out=$2; shift 2
mkdir -p "$out"

want=$(mktemp)
trap 'rm -f "$want"' EXIT
# Effective request: last assignment of each symbol across the fragments.
cat "$@" | sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p' |
	awk '{ v[$1] = $2; if (!($1 in o)) { o[$1] = n++; k[n-1] = $1 } }
	     END { for (i = 0; i < n; i++) print k[i], v[k[i]] }' > "$want"

if [ -n "${BASE_CONFIG:-}" ]; then
	cp "$BASE_CONFIG" "$out/.config"
else
	kmake "$out" "$src" -s tinyconfig >/dev/null
fi
cat "$@" >> "$out/.config"
kmake "$out" "$src" -s olddefconfig 2>&1 >/dev/null |
	grep -v "override: reassigning to symbol" >&2 || true

bad=0
while read -r sym val; do
	got=$(sed -n "s/^$sym=\(.*\)$/\1/p" "$out/.config")
	[ -n "$got" ] || got=n
	if [ "$got" != "$val" ]; then
		printf 'config: %s=%s requested, got %s\n' "$sym" "$val" "$got" >&2
		bad=$((bad + 1))
	fi
done < "$want"
[ $bad -eq 0 ] || die "$bad requested config symbol(s) did not take (fragments: $*)"
log "config: $(wc -l < "$want") requested symbols verified in $out/.config"
