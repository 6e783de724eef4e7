# Sourced by every CLI test: paths, a scratch directory and assertions that say what failed.
set -uo pipefail
GC="$1"
SAMPLES="$2"
MAKE_FIXTURE="$3"
MAKE_BIG_DUMP="${4:-}"
SAMPLE="$SAMPLES/cnn_digits.h5"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
FAILURES=0

fail() { echo "FAIL: $*" >&2; FAILURES=$((FAILURES + 1)); }
pass() { echo "ok: $*"; }

# expect_exit CODE DESCRIPTION -- command...   (stderr kept in $WORK/stderr)
expect_exit() {
    local want="$1" what="$2"; shift 3
    "$@" 2>"$WORK/stderr"
    local got=$?
    if [ "$got" -eq "$want" ]; then pass "$what (exit $got)"; else fail "$what: exit $got, expected $want; stderr: $(cat "$WORK/stderr")"; fi
}

expect_stderr() {
    if grep -qF -- "$1" "$WORK/stderr"; then pass "stderr names '$1'"; else fail "stderr lacks '$1': $(cat "$WORK/stderr")"; fi
}

expect_absent() {
    if [ ! -e "$1" ]; then pass "no $1 left"; else fail "$1 exists but should not"; fi
    local temps
    temps=$(ls -a "$(dirname "$1")" | grep -cE 'tmp-gradcodec|^\.gradcodec-' || true)
    if [ "$temps" -eq 0 ]; then pass "no temporary file left"; else fail "temporary files left: $(ls -a "$(dirname "$1")")"; fi
}

finish() {
    if [ "$FAILURES" -ne 0 ]; then echo "$FAILURES failure(s)" >&2; exit 1; fi
    echo "all passed"
}
