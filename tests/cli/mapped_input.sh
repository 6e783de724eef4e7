# Input mapped into memory: a raw file a piece at a time (RawPieces; raw_pieces.sh compares its
# streams with those of the same bytes through a pipe, which is read), a dump whole
# (DirectInput; direct_reads.sh compares its streams with those of copies HDF5 must read). A
# file that shrinks while it is mapped would raise SIGBUS at the next read past its new end:
# gradcodec then names the file and exits with 4, as a failed read would, instead of dying of
# a bus error. "While it is mapped" is made deterministic by a FIFO on standard output that
# nobody reads yet: gradcodec has encoded its first piece or tensor and waits to write it when
# the file is cut.
source "$(dirname "$0")/testlib.bash"

if [ -n "${GRADCODEC_SANITIZED:-}" ]; then
    echo "skipped: the sanitizer's own handler owns SIGBUS in this build (signal_cleanup.cpp)"
    exit 77
fi

N=4194304  # f32 elements: 16 MiB, four of gradcodec's 4 MiB pieces
perl -e 'print pack("f<*", map { sin($_ * 0.37) * 1e-3 } 0 .. '$((N - 1))')' > grad.f32

mkfifo out.fifo

# cut_while_writing WHAT FILE CUT_TO -- gradcodec encode ARGS...: starts the encode with its
# output to the FIFO, waits until it blocks writing, cuts FILE to CUT_TO bytes, lets the
# encode go on, and expects exit 4 with a message that names FILE.
cut_while_writing() {
    local what="$1" file="$2" cut_to="$3"
    shift 4
    exec 3<> out.fifo  # a reader, so that gradcodec's open does not wait, which reads nothing yet
    "$@" -o - -q > out.fifo 2> stderr &
    local pid=$! blocked=no status
    # Its first payload fills the pipe: gradcodec blocks writing it, in write(2) (system call
    # 1 on x86-64) to standard output, or where /proc has no system call, in a pipe write as
    # the kernel's wait channel names it.
    for _ in $(seq 100); do
        case "$(cut -d' ' -f1-2 /proc/$pid/syscall 2>/dev/null) $(cat /proc/$pid/wchan 2>/dev/null)" in
            "1 0x1 "* | *pipe_write*) blocked=yes; break ;;
        esac
        sleep 0.1
    done
    [ $blocked = yes ] && pass "$what: gradcodec waits to write its first payload" ||
        fail "$what: gradcodec never blocked on its output"
    truncate -s "$cut_to" "$file"
    cat <&3 > /dev/null &
    local drain=$!
    wait $pid
    status=$?
    kill $drain 2>/dev/null
    wait $drain 2>/dev/null
    exec 3<&-
    if [ $status -eq 4 ]; then pass "$what: a file that shrinks while mapped exits 4"; else fail "$what: exit $status, expected 4; stderr: $(cat stderr)"; fi
    grep -qF "$file: the file shrank while it was being read" stderr &&
        pass "$what: the message names the file that shrank" || fail "$what: stderr does not name $file: $(cat stderr)"
}

cut_while_writing "raw" grad.f32 0 -- \
    "$GC" encode grad.f32 --raw f32 --shape $N --codec cast:to=bf16 -T 1

# A dump of three 4 MiB tensors (their headers first, then their values in name order) and
# small ones. Cut just before the second tensor's values: its header is still there for the
# walk, its values are gone from under the mapping.
"$MAKE_BIG_DUMP" dump.h5 4 3
second=$(h5dump -p -H -d /big_1.weight dump.h5 | sed -n 's/ *OFFSET *//p')
if [ -n "$second" ]; then
    cut_while_writing "dump" dump.h5 "$second" -- "$GC" encode dump.h5 --codec lossless -T 1
else
    fail "h5dump gave no offset for /big_1.weight"
fi

finish
