/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output for the series' guest test programs (hmm-demo, -fuzz, -finj,
 * -soak): the same format as the kselftests, read by the host's one KTAP
 * parser (scripts/boot/ktap.awk).
 *
 * ktap_header() first: "TAP version 13", and the plan ("1..N", N the
 * results printed) when the process that called it exits, however main()
 * returns; forked children print none. A program killed by a signal leaves
 * no plan, which the parser reports as a failure.
 * ktap_result(KTAP_PASS|KTAP_FAIL|KTAP_SKIP, NAME, DETAIL): one result line,
 * flushed at once (a forked child must not inherit it in its buffer).
 * NAME has no blanks. DETAIL (may be NULL or "") is a reason after "#" for
 * a failure or a skip, and a "# NAME: DETAIL" diagnostic line before a
 * pass, so that it cannot read as a KTAP directive (SKIP, TODO, XFAIL).
 */
#ifndef HMM_TESTS_KTAP_H
#define HMM_TESTS_KTAP_H

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

enum ktap_status { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

static unsigned int ktap_count;
static pid_t ktap_pid;

static void ktap_plan(void)
{
	if (getpid() != ktap_pid)
		return;
	printf("1..%u\n", ktap_count);
	fflush(stdout);
}

static inline void ktap_header(void)
{
	ktap_pid = getpid();
	printf("TAP version 13\n");
	fflush(stdout);
	atexit(ktap_plan);
}

static inline void ktap_result(enum ktap_status st, const char *name,
			       const char *detail)
{
	const char *sep = "";

	if (!detail)
		detail = "";
	/* A failure's reason must not start like a directive. */
	if (st == KTAP_FAIL && (!strncasecmp(detail, "skip", 4) ||
				!strncasecmp(detail, "todo", 4) ||
				!strncasecmp(detail, "xfail", 5)))
		sep = "reason: ";
	ktap_count++;
	switch (st) {
	case KTAP_PASS:
		if (detail[0])
			printf("# %s: %s\n", name, detail);
		printf("ok %u %s\n", ktap_count, name);
		break;
	case KTAP_FAIL:
		printf("not ok %u %s%s%s%s\n", ktap_count, name,
		       detail[0] ? " # " : "", sep, detail);
		break;
	case KTAP_SKIP:
		printf("ok %u %s # SKIP %s\n", ktap_count, name, detail);
		break;
	}
	fflush(stdout);
}

#endif /* HMM_TESTS_KTAP_H */
