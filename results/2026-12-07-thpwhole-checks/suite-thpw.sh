#!/bin/sh
# shellcheck disable=SC2034
SUITE=thpw
. /tests/suite-lib.sh
cd /tests/kselftest/mm || exit 1
for t in migrate_thp_whole migrate_mthp_whole migrate_thp migrate_pool_exhausted $THPW_MORE; do
	if bash ./test_hmm_dummy.sh -t "$t" > /tmp/o 2>&1; then
		r=PASS
	else
		r=FAIL
	fi
	sed 's/^/# /' /tmp/o
	emit "$t" "$r"
done
