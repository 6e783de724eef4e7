# What OUTPUT may be, and what happens to it: concurrent writers, devices, FIFOs, symbolic
# links, the mode of a replaced file, standard input as OUTPUT, long names.
source "$(dirname "$0")/testlib.bash"
set -m  # background commands keep SIGINT (see interrupted_output.sh)

"$GC" encode "$SAMPLE" -o ref.gcs

# Two writers racing for one new OUTPUT without --force: both pass the up-front check (each is
# held on a FIFO until both are under way), exactly one publishes, the other is refused.
for round in 1 2 3 4 5; do
    rm -f race.gcs a.fifo b.fifo && mkfifo a.fifo b.fifo
    "$GC" encode - -o race.gcs < a.fifo 2>race_a.err & A=$!
    "$GC" encode - -o race.gcs < b.fifo 2>race_b.err & B=$!
    exec 3>a.fifo 4>b.fifo
    cat "$SAMPLE" >&3
    cat "$SAMPLE" >&4
    exec 3>&- 4>&-
    wait $A; sa=$?
    wait $B; sb=$?
    if { [ $sa -eq 0 ] && [ $sb -eq 2 ]; } || { [ $sa -eq 2 ] && [ $sb -eq 0 ]; }; then
        pass "round $round: one writer publishes, the other is refused (exits $sa, $sb)"
    else fail "round $round: exits $sa and $sb, expected one 0 and one 2: $(cat race_a.err race_b.err)"; fi
    if cmp -s race.gcs ref.gcs; then pass "round $round: OUTPUT is one whole stream"; else fail "round $round: OUTPUT is not the stream"; fi
done
grep -qh "appeared while gradcodec ran" race_a.err race_b.err && pass "the loser says OUTPUT appeared meanwhile" || fail "no race message"

# /dev/null needs no --force and stays a device; so does a FIFO, read by another process.
expect_exit 0 "-o /dev/null works without --force" -- "$GC" encode "$SAMPLE" -o /dev/null
expect_exit 0 "decode -o /dev/null works too" -- "$GC" decode ref.gcs -o /dev/null
if [ -c /dev/null ]; then pass "/dev/null is still a character device"; else fail "/dev/null was replaced"; fi
mkfifo out.fifo
cat out.fifo > from_fifo.gcs &
READER=$!
expect_exit 0 "a FIFO OUTPUT is written in place" -- "$GC" encode "$SAMPLE" -o out.fifo
wait $READER
if [ -p out.fifo ] && cmp -s from_fifo.gcs ref.gcs; then pass "the FIFO stays a FIFO and carries the stream"; else fail "FIFO output"; fi
mkfifo h5.fifo
cat h5.fifo > from_fifo.h5 &
READER=$!
expect_exit 0 "decode to a FIFO goes through a scratch file" -- "$GC" decode ref.gcs -o h5.fifo
wait $READER
expect_exit 0 "the HDF5 file read from the FIFO is the dump" -- h5diff "$SAMPLE" from_fifo.h5
"$GC" encode "$SAMPLE" -o /dev/stdout | cat > via_stdout.gcs
if cmp -s via_stdout.gcs ref.gcs; then pass "-o /dev/stdout into a pipe writes the stream"; else fail "-o /dev/stdout"; fi

# Symbolic links: never written through, never replaced; a dangling one is left alone.
ln -s nowhere.gcs dangling.gcs
expect_exit 2 "a dangling symlink OUTPUT is refused" -- "$GC" encode "$SAMPLE" -o dangling.gcs
expect_exit 2 "... with --force too" -- "$GC" encode "$SAMPLE" -o dangling.gcs --force
expect_stderr "symbolic link"
if [ -L dangling.gcs ] && [ ! -e nowhere.gcs ]; then pass "the link and its missing target are untouched"; else fail "dangling link changed"; fi
echo precious > victim.txt
ln -s victim.txt link.gcs
expect_exit 2 "a symlink OUTPUT to a regular file is refused even with --force" -- "$GC" encode "$SAMPLE" -o link.gcs --force
if [ "$(cat victim.txt)" = precious ] && [ -L link.gcs ]; then pass "the link target is untouched"; else fail "wrote through the link"; fi

# --force keeps the mode of the file it replaces; a new file gets the umask's.
"$GC" encode "$SAMPLE" -o moded.gcs
chmod 640 moded.gcs
expect_exit 0 "--force replaces a file" -- "$GC" encode "$SAMPLE" -o moded.gcs --force
if [ "$(stat -c %a moded.gcs)" = 640 ]; then pass "--force keeps mode 640"; else fail "mode became $(stat -c %a moded.gcs)"; fi
(umask 027; "$GC" encode "$SAMPLE" -o umasked.gcs)
if [ "$(stat -c %a umasked.gcs)" = 640 ]; then pass "a new OUTPUT follows the umask"; else fail "new file mode $(stat -c %a umasked.gcs)"; fi

# Standard input is INPUT: it cannot be OUTPUT too.
cp "$SAMPLE" in.h5
before=$(sha256sum < in.h5)
expect_exit 2 "encode - -o in.h5 --force < in.h5 is refused" -- bash -c "'$GC' encode - -o in.h5 --force < in.h5"
expect_stderr "same file as INPUT"
if [ "$(sha256sum < in.h5)" = "$before" ]; then pass "the input behind stdin is untouched"; else fail "stdin's file changed"; fi

# A name of 250 characters (NAME_MAX is 255) leaves no room for a suffix: none is needed.
long=$(printf 'x%.0s' $(seq 246)).gcs
expect_exit 0 "a 250-character OUTPUT name works" -- "$GC" encode "$SAMPLE" -o "$long"
if cmp -s "$long" ref.gcs; then pass "and holds the stream"; else fail "long name output"; fi
finish
