# The paper's Fig. 8 vector through the real CLI: rangeq:bits=8,mantissa=3,eps=0.125,
# round=truncate encodes 0.256 to code 9, which decodes to 0.25 (format-spec/codec-rangeq.md).
source "$(dirname "$0")/testlib.bash"
SPEC="rangeq:bits=8,mantissa=3,eps=0.125,round=truncate"

# 0.256f is 0x3E83126F and 0.25f is 0x3E800000, little-endian.
printf '\x6f\x12\x83\x3e' > in.raw
if "$GC" encode in.raw --raw f32 --shape 1 -o s.gcs --codec "$SPEC" 2> err.txt; then
    pass "encode with $SPEC"
else
    fail "encode failed: $(cat err.txt)"
fi
if "$GC" decode s.gcs --raw -o out.raw 2> err.txt; then pass "decode --raw"; else fail "decode failed: $(cat err.txt)"; fi
got="$(od -An -tx1 out.raw 2>/dev/null | tr -d ' \n')"
if [ "$got" = "0000803e" ]; then pass "0.256 comes back as 0.25"; else fail "0.256 came back as bytes '$got', expected 0000803e (0.25)"; fi

# The sign bit composes with the magnitude code: -0.256 comes back as -0.25, and a value
# below eps/2 as zero, beside it in one tensor.
printf '\x6f\x12\x83\x3e\x6f\x12\x83\xbe\xcd\xcc\x4c\x3d' > in3.raw   # 0.256, -0.256, 0.05
"$GC" encode in3.raw --raw f32 --shape 3 -o s3.gcs --codec "$SPEC" 2> err.txt || fail "encode 3: $(cat err.txt)"
"$GC" decode s3.gcs --raw -o out3.raw 2> err.txt || fail "decode 3: $(cat err.txt)"
got="$(od -An -tx1 out3.raw 2>/dev/null | tr -d ' \n')"
if [ "$got" = "0000803e000080be00000000" ]; then pass "signs and the below-eps rule"; else fail "got '$got', expected 0000803e000080be00000000"; fi

finish
