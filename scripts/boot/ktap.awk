# SPDX-License-Identifier: GPL-2.0
# ktap.awk: the host's KTAP parser.
#   awk -v suite=NAME -f scripts/boot/ktap.awk KTAP_FILE
# Reads KTAP (and the TAP 13 that kselftest prints: "TAP version 13",
# "1..N", "ok N name [# SKIP|# XFAIL ...]", "not ok N name [# ...]",
# "Bail out!"), nested either kselftest's way, a "# " prefix per level, or
# KTAP v1's way, four spaces per level. Prints one line per test:
#   RESULT SUITE PATH STATUS [reason]
# PATH is the names from the top level down, joined with "/" (blanks become
# "_"); STATUS is PASS, FAIL or SKIP. A level whose plan ("1..N") does not
# match the results it printed, or that printed results and no plan (a
# program that was killed), gets "RESULT SUITE PARENT/__plan__ FAIL ...".
# A child's results come before its parent's result line, so they are held
# until the parent's name is known.

function reset(d) {
	plan[d] = -1; seen[d] = 0; nheld[d] = 0; bail[d] = 0
}
# result(D, NAME, STATUS, WHY): a result at level D; held for the parent
# when D > 0, printed at the top level.
function result(d, name, st, why,    i, n) {
	n = nheld[d]++
	hname[d, n] = name; hst[d, n] = st; hwhy[d, n] = why
	# Children of this result (level d + 1) are named under it.
	for (i = 0; i < nheld[d + 1]; i++) {
		n = nheld[d]++
		hname[d, n] = name "/" hname[d + 1, i]
		hst[d, n] = hst[d + 1, i]; hwhy[d, n] = hwhy[d + 1, i]
	}
	close_level(d + 1, name)
}
# close_level(D, PARENT): check the plan of level D, then forget it.
function close_level(d, parent,    p) {
	p = (parent == "") ? "" : parent "/"
	if (bail[d])
		hold(d - 1, p "__plan__", "FAIL", "bail-out")
	else if (plan[d] >= 0 && plan[d] != seen[d])
		hold(d - 1, p "__plan__", "FAIL", "planned-" plan[d] "-ran-" seen[d])
	else if (plan[d] < 0 && seen[d] > 0)
		hold(d - 1, p "__plan__", "FAIL", "no-plan-after-" seen[d] "-results")
	reset(d)
}
function hold(d, name, st, why,    n) {
	if (d < 0) {
		emit(name, st, why)
		return
	}
	n = nheld[d]++
	hname[d, n] = name; hst[d, n] = st; hwhy[d, n] = why
}
function emit(name, st, why) {
	print "RESULT", suite, name, st (why == "" ? "" : " " why)
}
function flush_top(    i) {
	for (i = 0; i < nheld[0]; i++)
		emit(hname[0, i], hst[0, i], hwhy[0, i])
	nheld[0] = 0
}

BEGIN {
	if (suite == "")
		suite = "ktap"
	for (i = 0; i < 16; i++)
		reset(i)
}
{
	sub(/\r$/, "")
	line = $0
	d = 0
	while (1) {
		if (substr(line, 1, 2) == "# ")
			line = substr(line, 3)
		else if (substr(line, 1, 4) == "    ")
			line = substr(line, 5)
		else
			break
		d++
	}
	if (d > 14)
		next
	if (line ~ /^(K?TAP version [0-9]+)$/) {
		# A new (sub)test stream at this level; results a previous
		# stream at this level left without a parent stay held.
		plan[d] = -1; seen[d] = 0
		next
	}
	if (line ~ /^1\.\.[0-9]+/) {
		plan[d] = substr(line, 4) + 0
		next
	}
	if (line ~ /^Bail out!/) {
		bail[d] = 1
		next
	}
	if (line !~ /^(not )?ok [0-9]+( |$)/)
		next
	ok = (line !~ /^not /)
	sub(/^(not )?ok [0-9]+ ?/, "", line)
	name = line; dir = ""
	if ((i = index(line, " # ")) > 0) {
		name = substr(line, 1, i - 1); dir = substr(line, i + 3)
	} else if (substr(line, 1, 2) == "# ") {
		name = ""; dir = substr(line, 3)
	}
	sub(/^[ \t]+/, "", name); sub(/[ \t]+$/, "", name)
	gsub(/[ \t]+/, "_", name)
	sub(/^(bash_)?\.\//, "", name)
	if (name == "")
		name = "test" (seen[d] + 1)
	st = ok ? "PASS" : "FAIL"
	why = ""
	if (toupper(dir) ~ /^SKIP/) {
		st = "SKIP"; why = "skip"
	} else if (toupper(dir) ~ /^XFAIL/) {
		st = "PASS"; why = "xfail"
	} else if (!ok && dir != "") {
		why = dir
		gsub(/[ \t]+/, "_", why)
	}
	seen[d]++; total++
	result(d, name, st, why)
	if (d == 0)
		flush_top()
}
END {
	# A level still open at the end was cut short (a killed program): its
	# results count, under __unfinished__, and it fails.
	for (d = 15; d > 0; d--) {
		if (nheld[d] == 0 && seen[d] == 0 && plan[d] < 0)
			continue
		for (i = 0; i < nheld[d]; i++)
			hold(d - 1, "__unfinished__/" hname[d, i], hst[d, i], hwhy[d, i])
		hold(d - 1, "__unfinished__/__plan__", "FAIL",
		     "no-result-line-after-" seen[d] "-of-" plan[d] "-results")
	}
	flush_top()
	close_level(0, "")
	if (total == 0)
		emit("__suite__", "FAIL", "no-KTAP-results")
}
