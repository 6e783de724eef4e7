# Raw input mapped into memory, a piece at a time (RawPieces; raw_pieces.sh compares its
# streams with those of the same bytes through a pipe, which is read). A file that shrinks
# while it is mapped would raise SIGBUS at the next read past its new end: gradcodec then names
# the file and exits with 4, as a failed read would, instead of dying of a bus error.
# "While it is mapped" is made deterministic by a FIFO on standard output that nobody reads
# yet: gradcodec has encoded its first piece and waits to write it when the file is cut.
source "$(dirname "$0")/testlib.bash"

if [ -n "${GRADCODEC_SANITIZED:-}" ]; then
    echo "skipped: the sanitizer's own handler owns SIGBUS in this build (signal_cleanup.cpp)"
    exit 77
fi

N=4194304  # f32 elements: 16 MiB, four of gradcodec's 4 MiB pieces
perl -e 'print pack("f<*", map { sin($_ * 0.37) * 1e-3 } 0 .. '$((N - 1))')' > grad.f32

mkfifo out.fifo
exec 3<> out.fifo  # a reader, so that gradcodec's open does not wait, which reads nothing yet
"$GC" encode grad.f32 --raw f32 --shape $N --codec cast:to=bf16 -T 1 -o - -q > out.fifo 2> stderr &
pid=$!
# The first piece's 2 MiB payload fills the pipe: gradcodec blocks writing it, in write(2)
# (system call 1 on x86-64) to standard output, or where /proc has no system call, in a pipe
# write as the kernel's wait channel names it.
blocked=no
for _ in $(seq 100); do
    case "$(cut -d' ' -f1-2 /proc/$pid/syscall 2>/dev/null) $(cat /proc/$pid/wchan 2>/dev/null)" in
        "1 0x1 "* | *pipe_write*) blocked=yes; break ;;
    esac
    sleep 0.1
done
[ $blocked = yes ] && pass "gradcodec waits to write its first piece" || fail "gradcodec never blocked on its output"
: > grad.f32  # the file shrinks to nothing under the mapping
cat <&3 > /dev/null &
drain=$!
wait $pid
status=$?
kill $drain 2>/dev/null
wait $drain 2>/dev/null
exec 3<&-
if [ $status -eq 4 ]; then pass "a file that shrinks while mapped exits 4"; else fail "a file that shrinks while mapped: exit $status, expected 4; stderr: $(cat stderr)"; fi
grep -qF "grad.f32: the file shrank while it was being read" stderr &&
    pass "the message names the file that shrank" || fail "stderr does not name the file: $(cat stderr)"

finish
