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
import importlib.machinery
import os
import pathlib
import time

import numpy as np
import torch

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "scripts" / "train-compressed"


def blas_library():
    """The BLAS shared object this process loaded, from its memory map."""
    with open("/proc/self/maps") as maps:
        names = {line.split()[-1] for line in maps if "blas" in line.rsplit("/", 1)[-1]}
    return ", ".join(sorted(os.path.realpath(n) for n in names)) or "none found"


def timed(action, repeats):
    """(wall, CPU) medians in ms."""
    wall, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return 1000 * float(np.median(wall)), 1000 * float(np.median(cpu))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(1)
    train = importlib.machinery.SourceFileLoader("train_compressed", str(SCRIPT)).load_module()
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

        timed(step, 5)
        step_ms, step_cpu = timed(step, args.repeats)
        eval_ms, eval_cpu = timed(lambda: task.evaluate(model), 3)
        print(f"| {name} | {sum(p.numel() for p in model.parameters())} | {step_ms:.1f} | {step_cpu:.1f} "
              f"| {eval_ms:.0f} | {eval_cpu:.0f} | {os.getloadavg()[0]:.2f} |")


if __name__ == "__main__":
    main()
