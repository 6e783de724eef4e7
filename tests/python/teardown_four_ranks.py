"""A 4-rank gloo DDP run through the hook that ends as docs/python.md's teardown recipe says: 20
steps of a small MLP, one all_gather_object, then barrier, drop the DDP model, destroy the
process group. Run by test_teardown.py, many times, under a time limit."""
import datetime
import os
import pathlib
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

import gradcodec.torch as gctorch


def rank_main(rank, world, store):
    torch.set_num_threads(1)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", init_method=pathlib.Path(store).as_uri(), rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=60))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    ddp = DistributedDataParallel(model)
    state, hook = gctorch.comm_hook("topk:density=0.01")
    ddp.register_comm_hook(state, hook)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(rank)
    for _ in range(20):
        loss = ddp(torch.randn(32, 64, generator=generator)).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ranks = [None] * world
    dist.all_gather_object(ranks, rank)
    assert ranks == list(range(world))
    # The teardown recipe: every rank done with collectives, the model and the hook's state
    # gone, then the process group.
    dist.barrier()
    del ddp, optimizer, state, hook
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    with tempfile.TemporaryDirectory(prefix="teardown-") as directory:
        mp.spawn(rank_main, args=(world, f"{directory}/store"), nprocs=world)
