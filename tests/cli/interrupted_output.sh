# Atomic output under interruption. Every terminating signal mid-encode or mid-decode leaves
# neither OUTPUT nor a temporary file; a full disk (RLIMIT_FSIZE) leaves none and exits 4;
# the file being built is unnamed, so even SIGKILL leaves nothing, and never a truncated or
# replaced OUTPUT. "Mid-run" is made deterministic with a FIFO we feed and then hold open:
# gradcodec has created its file and written part of its output, and waits for the rest of
# its input.
source "$(dirname "$0")/testlib.bash"

# Without job control a shell starts background commands with SIGINT and SIGQUIT ignored, and
# gradcodec keeps an ignored signal ignored (as nohup expects): job control keeps them live.
set -m

N=4194304  # f32 elements of the raw input: 16 MiB, of which only the first MiB ever arrives

# wait_for_temp OUTPUT PID: true once PID holds open a file being built in OUTPUT's directory
# (unnamed: "/dir/#123 (deleted)"; named where O_TMPFILE is missing: "/dir/.gradcodec-..."), at most 10 s.
wait_for_temp() {
    local dir
    dir=$(cd "$(dirname "$1")" && pwd -P)
    for _ in $(seq 100); do
        for fd in /proc/"$2"/fd/*; do
            case "$(readlink "$fd" 2>/dev/null)" in "$dir/#"*|"$dir/.gradcodec-"*) return 0 ;; esac
        done
        sleep 0.1
    done
    return 1
}

# left_behind: anything in the working directory a run could have left.
left_behind() { ls -A | grep -E '^\.gradcodec-|tmp-gradcodec' || true; }

# start_stalled OUTPUT FEED -- gradcodec arguments: runs gradcodec reading the FIFO `feed`,
# writes the file FEED into it and keeps it open (fd 3). Sets PID.
start_stalled() {
    local output="$1" feed="$2"; shift 3
    rm -f fifo && mkfifo fifo
    "$GC" "$@" < fifo 2>"$WORK/stderr" &
    PID=$!
    exec 3>fifo
    cat "$feed" >&3
    if wait_for_temp "$output" "$PID"; then pass "gradcodec $1 is under way (it holds its file for $output)"
    else fail "gradcodec $1 created no temporary for $output"; fi
}

# finish_stalled: closes the FIFO and reaps gradcodec; sets STATUS.
finish_stalled() {
    exec 3>&-
    wait "$PID"
    STATUS=$?
}

head -c 1048576 /dev/urandom > first_mib.f32
"$GC" encode "$SAMPLE" -o whole.gcs
stream_size=$(stat -c %s whole.gcs)
head -c $((stream_size / 2)) whole.gcs > half.gcs  # header and the first records only

for sig in INT TERM HUP ALRM USR1 USR2 XCPU QUIT VTALRM PROF SEGV BUS ABRT; do
    code=$((128 + $(kill -l $sig)))
    # Under ASan (GRADCODEC_SANITIZED, set by ctest) the sanitizer's own SEGV/BUS handler
    # reports the signal and aborts (abort_on_error=1); no temporary may be left either way.
    if [ -n "${GRADCODEC_SANITIZED:-}" ] && { [ $sig = SEGV ] || [ $sig = BUS ]; }; then
        code=$((128 + $(kill -l ABRT)))
    fi
    start_stalled out.gcs first_mib.f32 -- encode - --raw f32 --shape $N -o out.gcs
    kill -s $sig "$PID"
    finish_stalled
    if [ "$STATUS" -eq $code ]; then pass "SIG$sig ends encode (status $STATUS)"; else fail "encode after SIG$sig: status $STATUS, expected $code"; fi
    expect_absent out.gcs
    [ -z "$(left_behind)" ] || fail "SIG$sig left $(left_behind)"

    start_stalled out.h5 half.gcs -- decode - -o out.h5
    kill -s $sig "$PID"
    finish_stalled
    if [ "$STATUS" -eq $code ]; then pass "SIG$sig ends decode (status $STATUS)"; else fail "decode after SIG$sig: status $STATUS, expected $code"; fi
    expect_absent out.h5
done

"$GC" encode first_mib.f32 --raw f32 --shape 262144 -o single.gcs
head -c 500000 single.gcs > half_single.gcs  # one tensor, cut inside its payload
start_stalled out.raw half_single.gcs -- decode - --raw -o out.raw
kill -s INT "$PID"
finish_stalled
expect_absent out.raw

# decode -o - builds its HDF5 file in TMPDIR first: that scratch file goes too.
mkdir scratch
rm -f fifo && mkfifo fifo
TMPDIR="$WORK/scratch" "$GC" decode - -o - < fifo > stdout.h5 2>"$WORK/stderr" &
PID=$!
exec 3>fifo
cat half.gcs >&3
wait_for_temp scratch/x "$PID" || fail "decode -o - made no scratch file in TMPDIR"
kill -s TERM "$PID"
finish_stalled
if [ -z "$(ls -A scratch)" ]; then pass "SIGTERM leaves TMPDIR empty"; else fail "TMPDIR holds $(ls -A scratch)"; fi

# A reader that goes away (SIGPIPE) mid-way through decode -o - takes the scratch file too.
TMPDIR="$WORK/scratch" "$GC" decode whole.gcs -o - 2>"$WORK/stderr" | head -c 100 > /dev/null
status=${PIPESTATUS[0]}
if [ "$status" -eq 141 ]; then pass "SIGPIPE ends decode -o -"; else fail "decode -o - | head: status $status"; fi
if [ -z "$(ls -A scratch)" ]; then pass "SIGPIPE leaves TMPDIR empty"; else fail "TMPDIR holds $(ls -A scratch)"; fi

# SIGKILL cannot be caught, yet the unnamed file goes with the process, and an existing OUTPUT
# (replaced with --force) is untouched, never truncated.
"$GC" encode "$SAMPLE" -o out.gcs
cp out.gcs before.gcs
start_stalled out.gcs first_mib.f32 -- encode - --raw f32 --shape $N -o out.gcs --force
kill -s KILL "$PID"
finish_stalled
if cmp -s out.gcs before.gcs; then pass "SIGKILL leaves the old OUTPUT intact"; else fail "SIGKILL changed OUTPUT"; fi
if [ -z "$(left_behind)" ]; then pass "SIGKILL leaves no temporary"; else fail "after SIGKILL: '$(left_behind)'"; fi
rm -f out.gcs

start_stalled out.h5 half.gcs -- decode - -o out.h5
kill -s KILL "$PID"
finish_stalled
if [ ! -e out.h5 ]; then pass "SIGKILL mid-decode leaves no OUTPUT"; else fail "SIGKILL mid-decode left out.h5"; fi
if [ -z "$(left_behind)" ]; then pass "SIGKILL mid-decode leaves no temporary"; else fail "after SIGKILL: '$(left_behind)'"; fi

# A full disk, simulated with RLIMIT_FSIZE (ulimit -f, in KiB blocks): a write error, exit 4,
# and nothing left behind, for every kind of output.
expect_exit 4 "encode past the file-size limit is an I/O error" -- bash -c "ulimit -f 64; exec '$GC' encode '$SAMPLE' -o out.gcs"
expect_stderr "out.gcs"
expect_absent out.gcs
expect_exit 4 "encode --raw past the file-size limit is an I/O error" -- \
    bash -c "ulimit -f 64; exec '$GC' encode first_mib.f32 --raw f32 --shape 262144 -o out.gcs"
expect_absent out.gcs
expect_exit 4 "decode to HDF5 past the file-size limit is an I/O error" -- bash -c "ulimit -f 64; exec '$GC' decode whole.gcs -o out.h5"
expect_absent out.h5
expect_exit 4 "decode --raw past the file-size limit is an I/O error" -- bash -c "ulimit -f 64; exec '$GC' decode single.gcs --raw -o out.raw"
expect_absent out.raw
finish
