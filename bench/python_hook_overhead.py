#!/usr/bin/python3
"""The DDP hook's codec cost on the digits CNN of scripts/train-compressed, against its step.

Per codec: the median time of what the hook does to one step's gradient bucket on a rank of
a 2-rank job, without the network: add the residual, encode with the residual (which also
hands back this rank's own frame decoded), decode the other rank's frames and average. Both ways the hook can encode a bucket are timed: as one
frame (what scripts/train-compressed uses) and per tensor (a frame per parameter).

Two denominators, both medians at the training runs' batch of 16 per rank, one thread:
- the dense step of the same CNN in this process without its all-reduce (forward, backward,
  optimizer step): the smallest step there is, so the ratio is an upper bound;
- the dense DDP step of 2 gloo processes on this machine, all-reduce included: the step the
  hook replaces in training (rank 0's wall and CPU time, gloo's threads included).

  PYTHONPATH=build/python bench/python_hook_overhead.py [--repeats 300]

--work-only SPEC times only the hook's work on one bucket for that codec (no steps, no DDP
processes): a quick, steadier figure for comparing two builds of the library.
"""
import argparse
import os
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import gradcodec
import gradcodec.torch as gctorch
from bench_timing import median_ms, training_script

SPECS = ["topk:density=0.01", "dgc:density=0.001", "sidco:dist=gpareto,density=0.01", "fft:density=0.1",
         "rangeq:bits=8"]


def dense_step_of(model, task, rank):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    batches = task.batches(rank, 2, seed=1)

    def step():
        optimizer.zero_grad()
        task.loss(model, next(batches)).backward()
        optimizer.step()

    return step


def ddp_rank(rank, store, repeats, queue):
    torch.set_num_threads(1)
    train = training_script()
    train.init_local_group(rank, 2, store)
    task = train.Digits(batch=train.DIGITS_BATCH, epochs=1, lr=0.05)
    torch.manual_seed(0)
    model = task.model()
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    timing = median_ms(dense_step_of(ddp, task, rank), repeats)
    dist.destroy_process_group()
    if rank == 0:
        queue.put(timing)


def ddp_step_ms(repeats):
    """(wall, CPU) median ms of a dense DDP step on 2 gloo processes, from rank 0."""
    context = mp.get_context("spawn")
    queue = context.Queue()
    with tempfile.TemporaryDirectory(prefix="hook-overhead-") as store:
        ranks = [context.Process(target=ddp_rank, args=(r, f"{store}/store", repeats, queue), daemon=True)
                 for r in range(2)]
        for p in ranks:
            p.start()
        timing = queue.get(timeout=600)
        for p in ranks:
            p.join()
    return timing


def hook_work(codec, bucket, spans):
    """What the hook does to one bucket, frame by frame as gradcodec.torch does it."""
    residual = torch.zeros_like(bucket)
    new_residual = torch.empty_like(bucket)
    own = torch.empty_like(bucket)
    frames = torch.empty(sum(codec.max_frame_size(count, "f32") for _, count in spans), dtype=torch.uint8)

    def work():
        values = bucket + residual
        sizes = gctorch.encode_spans(codec, values, new_residual, own, spans, frames)
        # The other rank's frames cost what this rank's own would: decode them as the peer's.
        gathered = [frames, frames]
        gctorch.average_frames(gathered, [sizes, sizes], spans, own, rank=0)

    return work


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--work-only", metavar="SPEC", help="time only the hook's work for SPEC")
    args = parser.parse_args()
    torch.set_num_threads(1)
    train = training_script()
    task = train.Digits(batch=train.DIGITS_BATCH, epochs=1, lr=0.05)  # the training runs' batch
    torch.manual_seed(0)
    model = task.model()
    if args.work_only:
        dense_step_of(model, task, 0)()  # one step, for a real gradient
        bucket = torch.cat([p.grad.flatten() for p in model.parameters()]).contiguous()
        ms, cpu_ms = median_ms(hook_work(gradcodec.Codec(args.work_only), bucket, [(0, bucket.numel())]),
                               args.repeats)
        print(f"`{args.work_only}`, one frame per bucket of {bucket.numel()}: hook work median {ms:.3f} ms "
              f"(CPU {cpu_ms:.3f} ms), load average {os.getloadavg()[0]:.2f}")
        return
    step_ms, step_cpu_ms = median_ms(dense_step_of(model, task, 0), args.repeats)
    ddp_ms, ddp_cpu_ms = ddp_step_ms(args.repeats)
    # One real gradient, flattened the way DDP's bucket holds it.
    bucket = torch.cat([p.grad.flatten() for p in model.parameters()]).contiguous()
    offsets = np.cumsum([0] + [p.numel() for p in model.parameters()])
    per_tensor = [(int(start), int(end - start)) for start, end in zip(offsets[:-1], offsets[1:])]
    print(f"digits CNN: {bucket.numel()} parameters in {len(per_tensor)} tensors; median dense step "
          f"without all-reduce {step_ms:.3f} ms (CPU {step_cpu_ms:.3f} ms), dense DDP step on 2 gloo "
          f"ranks {ddp_ms:.3f} ms (CPU {ddp_cpu_ms:.3f} ms); load average {os.getloadavg()[0]:.2f}")
    print("| codec | frames | hook codec work ms (median) | CPU ms | of the step without all-reduce "
          "| of the dense DDP step |")
    print("|---|---|---|---|---|---|")
    for spec in SPECS:
        codec = gradcodec.Codec(spec)
        for mode, spans in (("one per bucket", [(0, bucket.numel())]), ("one per tensor", per_tensor)):
            ms, cpu_ms = median_ms(hook_work(codec, bucket, spans), args.repeats)
            print(f"| `{spec}` | {mode} | {ms:.3f} | {cpu_ms:.3f} | {100 * ms / step_ms:.1f}% "
                  f"| {100 * ms / ddp_ms:.1f}% |")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
