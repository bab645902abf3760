#!/usr/bin/env bash
# Judge an `R CMD check` run from its output directory (the <pkg>.Rcheck folder).
#
#   bash tools/check-log.sh build/vhmc.Rcheck [exit-status-of-R-CMD-check]
#
# Prints every NOTE, WARNING and ERROR item of 00check.log with its details and
# the testthat summary, then exits non-zero when the check did not pass:
#   - 00check.log is missing, or has no final "Status:" line (check did not finish);
#   - the "Status:" line, or any check item, reports a WARNING or an ERROR
#     (an item line "* checking ... WARNING|ERROR", or a status alone on its
#     line, as R writes it after "* checking tests ...");
#   - R CMD check itself exited non-zero (second argument).
# NOTEs are printed but do not fail the check.
set -uo pipefail

dir=${1:?usage: check-log.sh <pkg>.Rcheck [R CMD check exit status]}
check_rc=${2:-0}
log="$dir/00check.log"

if [ ! -f "$log" ]; then
  echo "check-log: FAIL: $log not found (R CMD check did not run)" >&2
  exit 1
fi

# Items whose status is not OK, each with the lines that explain it.
# An item starts at a line beginning with "* "; its status is the word after
# the last "... " (possibly preceded by a timing like "[3s/4s]"), or a later
# line that holds only the status (tests, examples).
problems=$(awk '
  function flush() { if (item != "" && status != "") { printf "%s\n%s", item, body; print "" } }
  /^\* / {
    flush(); item = $0; body = ""; status = ""
    if (match($0, /\.\.\. *(\[[^]]*\] *)?(NOTE|WARNING|ERROR)$/)) {
      status = $0; sub(/^.* /, "", status)
    }
    next
  }
  /^Status:/ { flush(); item = ""; next }
  item != "" {
    if ($0 ~ /^ *(\[[^]]*\] *)?(NOTE|WARNING|ERROR)$/) { s = $0; sub(/^.* /, "", s); status = s }
    body = body $0 "\n"
  }
  END { flush() }
' "$log")

n_note=$(grep -cE '(\.\.\. *(\[[^]]*\] *)?NOTE$)|(^ *(\[[^]]*\] *)?NOTE$)' "$log")
n_warn=$(grep -cE '(\.\.\. *(\[[^]]*\] *)?WARNING$)|(^ *(\[[^]]*\] *)?WARNING$)' "$log")
n_err=$(grep -cE '(\.\.\. *(\[[^]]*\] *)?ERROR$)|(^ *(\[[^]]*\] *)?ERROR$)' "$log")
status_line=$(grep -E '^Status:' "$log" | tail -n 1)

if [ -n "$problems" ]; then
  echo "==> R CMD check items that are not OK:"
  printf '%s\n' "$problems"
fi

# testthat: the summary of the run, and the failures if it failed.
tests_dir="$dir/tests"
rout=""
for f in "$tests_dir/testthat.Rout.fail" "$tests_dir/testthat.Rout"; do
  if [ -f "$f" ]; then rout=$f; break; fi
done
summary=""
if [ -n "$rout" ]; then
  summary=$(grep -E '^\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$rout" | tail -n 1)
  if [ "${rout##*.}" = "fail" ]; then
    echo "==> testthat failed; output of $rout from test_check():"
    if grep -q '^> test_check' "$rout"; then
      sed -n '/^> test_check/,$p' "$rout" | tail -n 200
    else
      tail -n 60 "$rout"
    fi
  fi
fi

echo "==> R CMD check: ${status_line:-no Status line} (NOTEs: $n_note, WARNINGs: $n_warn, ERRORs: $n_err)"
echo "==> full log: $log"

fail=0
if [ -z "$status_line" ]; then
  echo "check-log: FAIL: $log has no Status line (check did not finish)" >&2; fail=1
fi
if [ "$n_warn" -gt 0 ] || [ "$n_err" -gt 0 ] || printf '%s' "$status_line" | grep -qE 'WARNING|ERROR'; then
  echo "check-log: FAIL: R CMD check reported WARNING or ERROR" >&2; fail=1
fi
if [ "$check_rc" -ne 0 ]; then
  echo "check-log: FAIL: R CMD check exited with status $check_rc" >&2; fail=1
fi
if [ "$fail" -eq 0 ]; then
  echo "check-log: PASS (NOTEs do not fail the check)"
fi

# Last line: the plain "N passed, N failed, N skipped" count of the R tests.
if [ -n "$summary" ]; then
  read -r t_fail t_skip t_pass < <(printf '%s\n' "$summary" |
    sed -E 's/^\[ FAIL ([0-9]+) \| WARN [0-9]+ \| SKIP ([0-9]+) \| PASS ([0-9]+) \].*/\1 \2 \3/')
  echo "testthat: $t_pass passed, $t_fail failed, $t_skip skipped"
elif [ -d "$tests_dir" ]; then
  echo "check-log: no testthat summary found under $tests_dir" >&2
fi
exit "$fail"
