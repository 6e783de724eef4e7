# --device cpu|cuda on encode and decode. Without a usable GPU (or in a build without CUDA)
# --device cuda stops with exit 2 and a message, leaving no output; with one, the streams it
# writes decode on the CPU and CPU streams decode on the GPU (the gpu-labelled gpu_tests
# bound the coefficient differences; here only the format is checked).
source "$(dirname "$0")/testlib.bash"

expect_exit 0 "--device cpu is the default path" -- "$GC" encode "$SAMPLE" -o cpu.gcs --codec fft --device cpu
expect_exit 2 "an unknown device is a usage error" -- "$GC" encode "$SAMPLE" -o x.gcs --codec fft --device tpu
expect_stderr "valid devices are cpu, cuda"
expect_absent x.gcs
expect_exit 2 "decode refuses an unknown device too" -- "$GC" decode cpu.gcs -o x.h5 --device tpu
expect_absent x.h5

"$GC" encode "$SAMPLE" -o gpu.gcs --codec fft --device cuda 2>"$WORK/stderr"
status=$?
if [ "$status" -eq 2 ]; then
    echo "note: no usable CUDA device here; checking the refusal only"
    expect_stderr "--device cuda:"
    expect_absent gpu.gcs
    expect_exit 2 "decode --device cuda without a device is exit 2" -- "$GC" decode cpu.gcs -o x.h5 --device cuda
    expect_stderr "--device cuda:"
    expect_absent x.h5
elif [ "$status" -eq 0 ]; then
    pass "encode --device cuda ran on a GPU"
    expect_exit 0 "the CPU decodes a GPU-written stream" -- "$GC" decode gpu.gcs -o gpu_cpu.h5
    expect_exit 0 "the GPU decodes a CPU-written stream" -- "$GC" decode cpu.gcs -o cpu_gpu.h5 --device cuda
    expect_exit 0 "the GPU decodes its own stream" -- "$GC" decode gpu.gcs -o gpu_gpu.h5 --device cuda
    expect_exit 0 "inspect reads the GPU stream" -- "$GC" inspect gpu.gcs
    # Exact selection: the GPU's topk stream is the CPU's, byte for byte.
    expect_exit 0 "topk on the CPU" -- "$GC" encode "$SAMPLE" -o topk_cpu.gcs --codec topk:density=0.01
    expect_exit 0 "topk on the GPU" -- "$GC" encode "$SAMPLE" -o topk_gpu.gcs --codec topk:density=0.01 --device cuda
    if cmp -s topk_cpu.gcs topk_gpu.gcs; then pass "GPU and CPU topk streams are identical"; else fail "GPU topk stream differs from the CPU's"; fi
else
    fail "encode --device cuda: exit $status; stderr: $(cat "$WORK/stderr")"
fi
finish
