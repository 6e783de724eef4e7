#!/usr/bin/python3
"""The DDP hook's codec cost on the digits CNN of scripts/train-compressed, against its step.

Per codec: the median time of what the hook does to one step's gradient bucket on a rank of
a 2-rank job, without the network: add the residual, encode with the residual, decode both
ranks' frames and average them. The denominator is the median dense training step of the
same CNN (forward, backward, optimizer step at the training runs' batch of 16 per rank)
without its all-reduce, so the ratio is an upper bound of the overhead a real dense step
would see. One thread.

  PYTHONPATH=build/python nice bench/python_hook_overhead.py [--repeats 300]
"""
import argparse
import importlib.machinery
import pathlib
import time

import numpy as np
import torch

import gradcodec

SPECS = ["topk:density=0.01", "dgc:density=0.001", "sidco:dist=gpareto,density=0.01", "fft:density=0.1",
         "rangeq:bits=8"]


def median_ms(action, repeats):
    for _ in range(5):
        action()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return 1000 * float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args()
    torch.set_num_threads(1)
    script = pathlib.Path(__file__).resolve().parents[1] / "scripts" / "train-compressed"
    train = importlib.machinery.SourceFileLoader("train_compressed", str(script)).load_module()

    task = train.Digits(batch=train.DIGITS_BATCH, epochs=1, lr=0.05)  # the training runs' batch
    torch.manual_seed(0)
    model = task.model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    batches = task.batches(0, 2, seed=1)

    def dense_step():
        optimizer.zero_grad()
        task.loss(model, next(batches)).backward()
        optimizer.step()

    step_ms = median_ms(dense_step, args.repeats)
    # One real gradient, flattened the way DDP's bucket holds it.
    bucket = torch.cat([p.grad.flatten() for p in model.parameters()]).contiguous()
    print(f"digits CNN: {bucket.numel()} parameters, dense step (no all-reduce) median {step_ms:.3f} ms")
    print("| codec | hook codec work ms (median) | of the dense step |")
    print("|---|---|---|")
    for spec in SPECS:
        codec = gradcodec.Codec(spec)
        residual = torch.zeros_like(bucket)
        new_residual = torch.empty_like(bucket)
        total = torch.empty_like(bucket)
        peer = torch.empty_like(bucket)

        def hook_work():
            values = bucket + residual
            frame = codec.encode(values, residual=new_residual)
            gradcodec.decode(frame, out=total)
            gradcodec.decode(frame, out=peer)  # the other rank's frame costs the same
            total.add_(peer).div_(2)

        ms = median_ms(hook_work, args.repeats)
        print(f"| `{spec}` | {ms:.3f} | {100 * ms / step_ms:.1f}% |")


if __name__ == "__main__":
    main()
