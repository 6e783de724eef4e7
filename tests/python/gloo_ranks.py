"""Runs a function on N spawned gloo processes over loopback and collects what each returns.
A rank that dies fails the test at once with its exit code (a negative one names the signal),
its Python stack printed by faulthandler; a rank still running after RANK_DUMP_S prints every
thread's stack, so a hang shows where it is. Daemonic ranks, killed at the end, so a failed
test leaves no process behind to hang the run."""
import datetime
import faulthandler
import multiprocessing
import os
import pathlib
import queue as queue_module
import sys
import tempfile
import time

import torch
import torch.distributed as dist

RANKS_DEADLINE_S = 240
RANK_DUMP_S = 180


def run_ranks(target, world=2):
    """target(rank, world) on `world` processes in one gloo group; their results by rank."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    with tempfile.TemporaryDirectory(prefix="gloo-ranks-") as store:
        ranks = [context.Process(target=rank_main, args=(target, rank, world, f"{store}/store", queue),
                                 daemon=True)
                 for rank in range(world)]
        for p in ranks:
            p.start()
        try:
            results = collect(ranks, queue)
            for p in ranks:
                p.join(timeout=60)
                assert p.exitcode == 0, f"a rank exited with {p.exitcode} after sending its results"
        finally:
            for p in ranks:
                p.kill()
    return [results[r] for r in range(world)]


def collect(ranks, queue):
    results = {}
    deadline = time.monotonic() + RANKS_DEADLINE_S
    while len(results) < len(ranks):
        try:
            rank, result = queue.get(timeout=1)
            results[rank] = result
        except queue_module.Empty:
            died = {r: p.exitcode for r, p in enumerate(ranks) if p.exitcode not in (None, 0) and r not in results}
            assert not died, f"rank(s) died before sending results, exit codes {died} (stderr above)"
            assert time.monotonic() < deadline, \
                f"ranks {sorted(set(range(len(ranks))) - set(results))} sent nothing in {RANKS_DEADLINE_S} s"
    return results


def rank_main(target, rank, world, store, queue):
    faulthandler.enable()
    faulthandler.dump_traceback_later(RANK_DUMP_S)
    init(rank, world, store)
    result = target(rank, world)
    dist.destroy_process_group()
    queue.put((rank, result))


def progress(rank, what):
    """A line on stderr, which pytest shows only when the test fails: how far a rank got."""
    print(f"rank {rank}: {what} at {time.strftime('%H:%M:%S')}", file=sys.stderr, flush=True)


def init(rank, world, store):
    """Meets the other ranks through a file, not a TCP port another test could take first; gloo
    over loopback; a collective stuck for a minute fails the test."""
    torch.set_num_threads(1)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", init_method=pathlib.Path(store).as_uri(), rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=60))
    progress(rank, "process group ready")
