#!/usr/bin/python3
"""The compute of one training step of scripts/train-compressed's models, in one process.

Per task: the median dense step (forward, backward, optimizer step at the training runs'
batch of 16 per rank, one thread, no all-reduce) and one test evaluation, in wall and CPU
time, with the load average. It shows what bounds the training runs' length: torch's BLAS
(Debian's python3-torch uses the libblas.so.3 that the system's alternatives pick) and the
evaluation's share. To time the reference BLAS while OpenBLAS is installed, preload it:

  PYTHONPATH=build/python bench/python_train_step.py
  LD_PRELOAD=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3 PYTHONPATH=build/python bench/python_train_step.py
"""
import argparse
import os

import torch

from bench_timing import median_ms, training_script



def blas_library():
    """The BLAS shared object this process loaded, from its memory map."""
    with open("/proc/self/maps") as maps:
        names = {line.split()[-1] for line in maps if "blas" in line.rsplit("/", 1)[-1]}
    return ", ".join(sorted(os.path.realpath(n) for n in names)) or "none found"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(1)
    train = training_script()
    print(f"BLAS: {blas_library()}; torch threads {torch.get_num_threads()}, "
          f"inter-op threads {torch.get_num_interop_threads()}")
    print("| task | parameters | step ms (median) | step CPU ms | evaluation ms | evaluation CPU ms | load average |")
    print("|---|---|---|---|---|---|---|")
    for name in ("digits", "lstm"):
        task = train.make_task(name, quick=False)
        torch.manual_seed(0)
        model = task.model()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        batches = task.batches(0, 2, seed=1)

        def step():
            optimizer.zero_grad()
            task.loss(model, next(batches)).backward()
            optimizer.step()

        step_ms, step_cpu = median_ms(step, args.repeats)
        eval_ms, eval_cpu = median_ms(lambda: task.evaluate(model), 3, warmup=0)
        print(f"| {name} | {sum(p.numel() for p in model.parameters())} | {step_ms:.1f} | {step_cpu:.1f} "
              f"| {eval_ms:.0f} | {eval_cpu:.0f} | {os.getloadavg()[0]:.2f} |")


if __name__ == "__main__":
    main()
