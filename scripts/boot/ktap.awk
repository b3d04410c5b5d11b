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
# kselftest's "[RUN] DESCRIPTION" diagnostic (ksft_print_msg, as cow,
# ksm_functional_tests, madv_populate and others print it before each
# test, whose result line then says only "No leak from parent into child")
# names the results that follow it at its parent level: PATH ends in the
# description, and a failed result keeps its own text as the reason. Two
# results of one level with the same name become NAME, NAME~2, NAME~3.
# Several KTAP documents in a row (a new "TAP version" line at the top
# level) are checked one by one, each against its own plan; a document
# without any result fails ("__suite__ FAIL no-KTAP-results").
# The input must start with a top-level version line: any other non-blank
# line before it (a shell's "error while loading shared libraries", a
# program that printed no KTAP before the guest runner's own document)
# fails as "__suite__ FAIL no-KTAP-results(text-before-version-line)", so
# that a document that is missing cannot pass on the results of the ones
# after it.

function reset(d) {
	plan[d] = -1; seen[d] = 0; nheld[d] = 0; bail[d] = 0
	runname[d] = ""; gen[d]++
}
# result(D, NAME, STATUS, WHY): a result at level D; held for the parent
# when D > 0, printed at the top level.
function result(d, name, st, why,    i, n) {
	if ((n = ++dup[d, gen[d], name]) > 1)
		name = name "~" n
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
	if (docs == 0 && !(d == 0 && line ~ /^K?TAP version [0-9]+$/)) {
		if ($0 ~ /[^ \t]/)
			pre++
		next
	}
	if (line ~ /^(K?TAP version [0-9]+)$/) {
		# A new top-level document: the one before it ends here.
		if (d == 0 && docs++ > 0)
			end_doc()
		if (d == 0 && docs == 1 && pre > 0)
			emit("__suite__", "FAIL", "no-KTAP-results(text-before-version-line)")
		# A new (sub)test stream at this level; results a previous
		# stream at this level left without a parent stay held.
		plan[d] = -1; seen[d] = 0; runname[d] = ""; gen[d]++
		next
	}
	if (d > 0 && line ~ /^\[RUN\] /) {
		runname[d - 1] = substr(line, 7)
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
	own = name
	if (runname[d] != "") {
		name = runname[d]
		gsub(/[ \t]+/, "_", name)
	}
	st = ok ? "PASS" : "FAIL"
	why = ""
	# Only the directive itself ("# SKIP", "# SKIP reason"), not a
	# failure's reason that starts with the same letters ("# SKIPPED").
	if (toupper(dir) ~ /^SKIP([ \t]|$)/) {
		st = "SKIP"; why = "skip"
	} else if (toupper(dir) ~ /^XFAIL([ \t]|$)/) {
		st = "PASS"; why = "xfail"
	} else if (!ok && dir != "") {
		why = dir
		gsub(/[ \t]+/, "_", why)
	} else if (!ok && own != name) {
		why = own
	}
	seen[d]++; total++
	result(d, name, st, why)
	if (d == 0)
		flush_top()
}
# end_doc(): the end of a top-level KTAP document. A level still open was
# cut short (a killed program): its results count, under __unfinished__,
# and it fails.
function end_doc(    d, i) {
	for (d = 15; d > 0; d--) {
		if (nheld[d] == 0 && seen[d] == 0 && plan[d] < 0)
			continue
		for (i = 0; i < nheld[d]; i++)
			hold(d - 1, "__unfinished__/" hname[d, i], hst[d, i], hwhy[d, i])
		hold(d - 1, "__unfinished__/__plan__", "FAIL",
		     "no-result-line-after-" seen[d] "-of-" plan[d] "-results")
		reset(d)
	}
	flush_top()
	close_level(0, "")
	if (total == 0)
		emit("__suite__", "FAIL", "no-KTAP-results")
	total = 0
}
END {
	if (docs > 0 || total > 0)
		end_doc()
	else
		emit("__suite__", "FAIL", "no-KTAP-results")
}
