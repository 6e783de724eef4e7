"""Timing and the training script, shared by the Python benchmarks in bench/."""
import importlib.machinery
import pathlib
import time

import numpy as np

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "scripts" / "train-compressed"


def median_ms(action, repeats, warmup=5):
    """(wall, CPU) medians in ms after `warmup` untimed calls: CPU time shows what the work
    costs when the machine is shared."""
    for _ in range(warmup):
        action()
    wall, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return 1000 * float(np.median(wall)), 1000 * float(np.median(cpu))


def training_script():
    """scripts/train-compressed as a module: its models, tasks and batches."""
    return importlib.machinery.SourceFileLoader("train_compressed", str(SCRIPT)).load_module()
