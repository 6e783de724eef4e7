# Raw input for a codec that encodes in pieces (cast; rangeq and topk, which survey a file
# before encoding it, so read it again) is streamed a few MiB at a time: the stream must be
# the one the whole-tensor path writes (--scope group takes that path), from a file or a
# pipe, on any thread count, and errors must name the whole tensor's element.
source "$(dirname "$0")/testlib.bash"

# 1.3M values: several 4 MiB pieces of f32, more of f64, and a short last piece.
N=1300001
perl -e 'print pack("f<*", map { sin($_ * 0.37) * 1e-3 * (1 + $_ % 7) } 0 .. '$((N - 1))')' > g.f32
perl -e 'print pack("d<*", map { sin($_ * 0.37) * 1e-3 * (1 + $_ % 7) } 0 .. '$((N - 1))')' > g.f64
for raw in f32 f64; do
    for spec in cast:to=f16 cast:to=bf16 rangeq:bits=8 rangeq:bits=3 rangeq:bits=8,mantissa=3 \
        topk:density=0.001 topk:count=5,values=f32 topk:density=0.1,values=rangeq,bits=6; do
        "$GC" encode g.$raw --raw $raw --shape $N --codec $spec -o whole.gcs --force --scope group
        "$GC" encode g.$raw --raw $raw --shape $N --codec $spec -o pieces.gcs --force -T 1
        if cmp -s whole.gcs pieces.gcs; then pass "$raw $spec in pieces: the whole encode's bytes"
        else fail "$raw $spec in pieces differs from the whole encode"; fi
        cat g.$raw | "$GC" encode - --raw $raw --shape $N --codec $spec -o - -T 3 > piped.gcs
        if cmp -s whole.gcs piped.gcs; then pass "$raw $spec from a pipe on 3 threads: the same bytes"
        else fail "$raw $spec from a pipe on 3 threads differs"; fi
    done
done
"$GC" decode pieces.gcs --raw -o back.f64
if [ "$(stat -c %s back.f64)" -eq $((8 * N)) ]; then pass "the streamed record decodes"; else fail "decoded size $(stat -c %s back.f64)"; fi

# 70000 does not fit f16: element 1234567 lies in the fifth piece.
perl -e '@v = (1e-3) x '$N'; $v[1234567] = 70000; print pack("f<*", @v)' > big.f32
expect_exit 3 "a value out of range in a later piece is bad input" -- "$GC" encode big.f32 --raw f32 --shape $N --codec cast:to=f16 -o x.gcs
expect_stderr "element 1234567"
expect_absent x.gcs
expect_exit 3 "from a pipe too" -- bash -c "cat big.f32 | '$GC' encode - --raw f32 --shape $N --codec cast:to=f16 -o x.gcs"
expect_stderr "element 1234567"
expect_absent x.gcs

# rangeq surveys the file before it writes anything: the same error, and nothing written.
perl -e '@v = (1e-3) x '$N'; $v[1234567] = 9**9**9; print pack("f<*", @v)' > inf.f32
expect_exit 3 "an infinite value in a later piece stops rangeq" -- "$GC" encode inf.f32 --raw f32 --shape $N --codec rangeq -o x.gcs
expect_stderr "element 1234567 is infinite"
expect_absent x.gcs
expect_exit 3 "and top-k" -- "$GC" encode inf.f32 --raw f32 --shape $N --codec topk:density=0.01 -o x.gcs
expect_stderr "element 1234567 is infinite"
expect_absent x.gcs
"$GC" encode inf.f32 --raw f32 --shape $N --codec topk:count=3 --allow-nonfinite -o tinf.gcs
"$GC" encode inf.f32 --raw f32 --shape $N --codec topk:count=3 --allow-nonfinite -o tinf-whole.gcs --scope group
if cmp -s tinf.gcs tinf-whole.gcs; then pass "top-k in pieces carries the infinity as the whole encode does"
else fail "top-k with --allow-nonfinite in pieces differs"; fi
"$GC" encode inf.f32 --raw f32 --shape $N --codec rangeq --allow-nonfinite -o inf.gcs
"$GC" encode inf.f32 --raw f32 --shape $N --codec rangeq --allow-nonfinite -o inf-whole.gcs --scope group
if cmp -s inf.gcs inf-whole.gcs; then pass "rangeq in pieces carries the infinity as the whole encode does"
else fail "rangeq with --allow-nonfinite in pieces differs"; fi
"$GC" decode inf.gcs --raw -o inf-back.f32
if [ "$(od -An -tx4 -j $((4 * 1234567)) -N4 inf-back.f32 | tr -d ' ')" = 7f800000 ]; then
    pass "the infinity decodes exactly"
else fail "element 1234567 decoded as $(od -An -tx4 -j $((4 * 1234567)) -N4 inf-back.f32)"; fi

expect_exit 3 "a pipe shorter than the shape is bad input" -- bash -c "head -c 5000000 g.f32 | '$GC' encode - --raw f32 --shape $N --codec cast -o x.gcs"
expect_stderr "needs exactly $((4 * N)) bytes, the input holds only 5000000"
expect_absent x.gcs
expect_exit 3 "a pipe longer than the shape is bad input" -- bash -c "cat g.f32 g.f32 | '$GC' encode - --raw f32 --shape $N --codec cast -o x.gcs"
expect_stderr "holds more"
expect_absent x.gcs
expect_exit 3 "a file of another size is refused before anything is encoded" -- "$GC" encode g.f32 --raw f32 --shape 1000 --codec cast -o x.gcs
expect_stderr "needs exactly 4000 bytes"
expect_absent x.gcs

: > empty.f32
expect_exit 0 "an empty tensor encodes" -- "$GC" encode empty.f32 --raw f32 --shape 0 --codec cast -o e.gcs
"$GC" encode empty.f32 --raw f32 --shape 0 --codec cast -o e-whole.gcs --scope group
if cmp -s e.gcs e-whole.gcs; then pass "the empty tensor's stream is the whole encode's"; else fail "empty tensor streams differ"; fi
"$GC" encode empty.f32 --raw f32 --shape 0 --codec rangeq -o er.gcs
"$GC" encode empty.f32 --raw f32 --shape 0 --codec rangeq -o er-whole.gcs --scope group
if cmp -s er.gcs er-whole.gcs; then pass "rangeq's empty tensor too"; else fail "rangeq empty tensor streams differ"; fi
expect_exit 0 "an empty pipe encodes" -- bash -c "'$GC' encode - --raw f32 --shape 0 --codec cast -o - < empty.f32 > ep.gcs"
if cmp -s e.gcs ep.gcs; then pass "from a pipe too"; else fail "empty pipe stream differs"; fi
finish
