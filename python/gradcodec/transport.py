"""All-reduce transports: each codec's summable form, for the DDP hook's transport="allreduce".

The hook's default transport all-gathers every rank's frame, so each rank receives and decodes
N - 1 frames: its traffic and decode work grow with the number of ranks N. The forms here make
what crosses the wire summable instead, so that a ring all-reduce moves it (about twice the
message, whatever N) and every rank decodes once, after the sum:

- randomk: every rank draws the same positions from the step's shared seed (the randomk codec's
  own draw, gradcodec.random_positions) and the k values there are all-reduced.
- topk, dgc, sidco: ScaleCom's cyclic local top-k. The step's leader (step mod N) selects
  positions from its own error-fed values with the codec, and broadcasts them as a position
  section of the format; every rank all-reduces its own values at those positions.
- rangeq, qsgd, terngrad: shared-scale quantisation. An all-reduce (max) of per-block scales,
  stochastic rounding of every value onto the shared grid of s levels, an all-reduce of the
  integer codes in the narrowest lane the backend sums exactly that holds N·s (int8; f16, exact
  for integers up to 2048; else int32: gloo sums no int16), and one decode after the sum.
- lowrank: PowerSGD. Per matrix, P = M·Q, all-reduce P, orthonormalise it, Q = Mᵀ·P,
  all-reduce Q; the approximation is P·Qᵀ and Q is kept for the next step (warm start).
  Vectors, and matrices the factors would not shrink, are all-reduced as they are.
- cast: the values divided by N, rounded to f16, all-reduced in f16 (PyTorch's
  fp16_compress_hook). bf16 needs a backend that sums it (gloo does not).

Every function returns (average, sent): the mean over ranks that every rank ends the step with
(bit-identical on all ranks: it is computed from all-reduced data only), and this rank's own
contribution as it entered the sum, so that error feedback keeps values - sent. For lowrank,
whose own contribution is not separable, `sent` is the average itself, as PowerSGD's error
feedback does.

Bytes are counted per rank and collective by algorithm, from the size of each message:
a ring all-reduce of D bytes sends and receives 2(N-1)/N·D; an all-gather of S bytes a rank
sends and receives (N-1)·S; a broadcast of S bytes (a pipelined chain from the root) sends S
from every rank but the last of the chain and receives S at every rank but the root.
"""
import math
import time

import numpy as np
import torch
import torch.distributed as dist

import gradcodec

SUMMABLE = ("randomk", "topk", "dgc", "sidco", "rangeq", "qsgd", "terngrad", "lowrank", "cast")


class WireCounter:
    """Bytes this rank sent and received, and what a dense f32 ring all-reduce would have."""

    def __init__(self):
        self.bytes_sent = 0.0
        self.bytes_received = 0.0
        self.bytes_dense = 0.0
        self.collective_seconds = 0.0  # time inside the collectives the transports call

    def ring_allreduce(self, nbytes, world):
        moved = 2.0 * (world - 1) / world * nbytes
        self.bytes_sent += moved
        self.bytes_received += moved

    def allgather(self, nbytes, world):
        self.bytes_sent += (world - 1) * nbytes
        self.bytes_received += (world - 1) * nbytes

    def broadcast(self, nbytes, world, rank, root):
        position = (rank - root) % world  # the rank's place in the chain from the root
        if position != world - 1:
            self.bytes_sent += nbytes
        if position != 0:
            self.bytes_received += nbytes

    def dense(self, numel, world):
        self.bytes_dense += 2.0 * (world - 1) / world * 4 * numel

    def as_dict(self):
        return {"bytes_sent": self.bytes_sent, "bytes_received": self.bytes_received,
                "bytes_dense": self.bytes_dense}


def spec_parts(spec):
    """("topk", {"density": "0.01"}) for "topk:density=0.01"."""
    name, _, options = spec.partition(":")
    keys = dict(item.split("=", 1) for item in options.split(",") if item)
    return name, keys


def check_summable(spec):
    """Raises ValueError when the codec has no summable form (or one this backend cannot run)."""
    name, keys = spec_parts(spec)
    if name not in SUMMABLE:
        raise ValueError(f"transport='allreduce': codec '{name}' has no summable form; "
                         f"codecs with one: {', '.join(SUMMABLE)} (use transport='allgather')")
    if name == "cast" and keys.get("to", "f16") == "bf16" and dist.is_initialized() \
            and dist.get_backend() == "gloo":
        raise ValueError("transport='allreduce' with cast:to=bf16 needs a backend that sums "
                         "bf16 (NCCL); gloo does not: use cast:to=f16")
    if name == "topk" and "count" in keys:
        raise ValueError("transport='allreduce' with topk takes density=D, not count=K")


def kept_count(n, density):
    """The codecs' k for a density: ceil(D·n) rounded to 12 significant digits, in [1, n]."""
    if n == 0:
        return 0
    product = float(f"{density * n:.12g}")
    return min(n, max(1, math.ceil(product)))


def shared_seed(base, step, bucket):
    """The seed every rank uses for a bucket's step: the same on all ranks, new every step."""
    return (base * 1_000_003 + step * 65_537 + bucket) & (2**63 - 1)


def _allreduce(tensor, counter, group, world, op=dist.ReduceOp.SUM):
    started = time.perf_counter()
    dist.all_reduce(tensor, op=op, group=group)
    counter.collective_seconds += time.perf_counter() - started
    counter.ring_allreduce(tensor.numel() * tensor.element_size(), world)
    return tensor


def _broadcast(tensor, counter, group, world, rank, root):
    started = time.perf_counter()
    source = dist.get_global_rank(group, root) if group is not None else root
    dist.broadcast(tensor, src=source, group=group)
    counter.collective_seconds += time.perf_counter() - started
    counter.broadcast(tensor.numel() * tensor.element_size(), world, rank, root)


def sum_at_positions(values, positions, counter, group, world, scale=1.0):
    """Every rank's values at the same positions, all-reduced: (average, sent)."""
    index = torch.from_numpy(positions.astype(np.int64))
    kept = values[index] * scale if scale != 1.0 else values[index].clone()
    sent = torch.zeros_like(values)
    sent[index] = kept
    _allreduce(kept, counter, group, world)
    average = torch.zeros_like(values)
    average[index] = kept.div_(world)
    return average, sent


def randomk(values, keys, step, bucket, counter, group, world):
    n = values.numel()
    k = kept_count(n, float(keys.get("density", "0.01")))
    seed = shared_seed(int(keys.get("seed", "0")), step, bucket)
    positions = gradcodec.random_positions(n, k, seed)
    scale = n / k if keys.get("scale", "none") == "unbiased" and k else 1.0
    return sum_at_positions(values, positions, counter, group, world, scale)


def leader_positions(spec, values):
    """The positions the codec keeps of `values` (its own selection, values sent in f32)."""
    name, keys = spec_parts(spec)
    keys["values"] = "f32"
    keys.pop("bits", None)
    codec = gradcodec.Codec(name + ":" + ",".join(f"{k}={v}" for k, v in keys.items()))
    decoded = gradcodec.decode(codec.encode(values.numpy()))
    return np.flatnonzero(decoded).astype(np.uint64)


def leader_topk(spec, values, step, counter, group, world, rank):
    """ScaleCom's cyclic local top-k: the leader's positions, everyone's values there."""
    n = values.numel()
    leader = step % world
    if rank == leader:
        section = gradcodec.encode_positions(leader_positions(spec, values), n)
        length = torch.tensor([len(section)], dtype=torch.int64)
    else:
        length = torch.zeros(1, dtype=torch.int64)
    _broadcast(length, counter, group, world, rank, leader)
    payload = torch.empty(int(length.item()), dtype=torch.uint8)
    if rank == leader:
        payload.copy_(torch.frombuffer(bytearray(section), dtype=torch.uint8))
    _broadcast(payload, counter, group, world, rank, leader)
    positions = gradcodec.decode_positions(payload.numpy().tobytes(), n)
    return sum_at_positions(values, positions, counter, group, world)


def _levels_and_scale(name, keys):
    """(levels s, scale kind, block size or 0 for the whole bucket) of a quantiser's spec."""
    if name == "rangeq":
        return 2 ** (int(keys.get("bits", "8")) - 1) - 1, "max", 0
    if name == "qsgd":
        return int(keys.get("levels", "16")), "l2", int(keys.get("bucket", "512"))
    return 1, "max", int(keys.get("bucket", "0"))  # terngrad


def integer_lane(levels, world):
    """The narrowest type the backends sum exactly that holds every partial sum of N codes of
    magnitude at most s: int8 up to 127; then f16, whose integers are exact up to 2048 (gloo and
    NCCL sum no int16); int32 beyond."""
    most = levels * world
    return torch.int8 if most <= 127 else torch.float16 if most <= 2048 else torch.int32


def shared_scale(name, keys, values, step, bucket, counter, group, world, rank):
    levels, kind, block = _levels_and_scale(name, keys)
    n = values.numel()
    block = block if 0 < block < n else max(n, 1)
    blocks = (n + block - 1) // block
    padded = torch.zeros(blocks * block, dtype=torch.float32)
    padded[:n] = values
    rows = padded.view(blocks, block)
    scales = rows.abs().amax(dim=1) if kind == "max" else rows.norm(dim=1)
    _allreduce(scales, counter, group, world, op=dist.ReduceOp.MAX)
    # Stochastic rounding of |x|/scale·s to a neighbouring integer; the coin is this rank's
    # own generator, seeded by (seed, step, bucket, rank), so each rank rounds independently.
    safe = torch.where(scales > 0, scales, torch.ones_like(scales)).unsqueeze(1)
    r = (rows.abs() / safe * levels).clamp_(max=levels)
    low = r.floor()
    generator = torch.Generator().manual_seed(
        shared_seed(int(keys.get("seed", "0")), step, bucket) * 4099 + rank & (2**63 - 1))
    up = torch.rand(r.shape, generator=generator) < (r - low)
    magnitude = low + up.to(low.dtype)
    codes = (torch.sign(rows) * magnitude).to(integer_lane(levels, world)).view(-1)[:n].contiguous()
    step_value = (scales / levels).repeat_interleave(block)[:n]
    sent = codes.to(torch.float32) * step_value
    _allreduce(codes, counter, group, world)
    average = codes.to(torch.float32) * step_value / world
    return average, sent


def cast(keys, values, counter, group, world):
    narrow = torch.float16
    sent = values.to(narrow).to(torch.float32)
    summed = values.div(world).to(narrow)
    _allreduce(summed, counter, group, world)
    return summed.to(torch.float32), sent


class LowRankState:
    """PowerSGD's Q per parameter, kept across steps (warm start), keyed by parameter."""

    def __init__(self, rank, seed):
        self.rank = rank
        self.seed = seed
        self.q = {}

    def start(self, key, cols):
        q = self.q.get(key)
        if q is None or q.shape != (cols, self.rank):
            generator = torch.Generator().manual_seed(self.seed + len(self.q))
            q = torch.rand(cols, self.rank, generator=generator) * 2 - 1
            self.q[key] = q
        return q


def orthonormalise(p):
    """Gram-Schmidt on P's columns (the same computation on every rank, so the same bits)."""
    for c in range(p.shape[1]):
        column = p[:, c]
        for d in range(c):
            column -= (column @ p[:, d]) * p[:, d]
        norm = column.norm()
        p[:, c] = column / norm if norm > 0 else 0.0
    return p


def lowrank(state, values, pieces, counter, group, world):
    """PowerSGD over the bucket's parameters. pieces: (key, offset, shape) per parameter."""
    matrices, vectors = [], []
    for key, offset, shape in pieces:
        count = math.prod(shape)
        rows = shape[0] if len(shape) >= 2 else 0
        cols = count // rows if rows else 0
        if rows and state.rank * (rows + cols) < rows * cols:
            matrices.append((key, offset, rows, cols))
        else:
            vectors.append((offset, count))
    average = torch.empty_like(values)
    if vectors:
        dense = torch.cat([values[o:o + c] for o, c in vectors])
        _allreduce(dense, counter, group, world)
        dense.div_(world)
        at = 0
        for o, c in vectors:
            average[o:o + c] = dense[at:at + c]
            at += c
    if matrices:
        ms = [values[o:o + r * c].view(r, c) for _, o, r, c in matrices]
        qs = [state.start(key, c) for key, _, _, c in matrices]
        ps = [m @ q for m, q in zip(ms, qs)]
        flat_p = torch.cat([p.reshape(-1) for p in ps])
        _allreduce(flat_p, counter, group, world)
        at = 0
        for i, p in enumerate(ps):
            ps[i] = orthonormalise(flat_p[at:at + p.numel()].view_as(p).clone())
            at += p.numel()
        qs = [m.t() @ p for m, p in zip(ms, ps)]
        flat_q = torch.cat([q.reshape(-1) for q in qs])
        _allreduce(flat_q, counter, group, world)
        flat_q.div_(world)
        at = 0
        for (key, o, r, c), p, q in zip(matrices, ps, qs):
            q = flat_q[at:at + q.numel()].view_as(q).clone()
            at += q.numel()
            state.q[key] = q
            average[o:o + r * c] = (p @ q.t()).reshape(-1)
    return average, average


def average(spec, values, step, bucket, counter, group, lowrank_state=None, pieces=None):
    """The all-reduce transport's (average, sent) for one bucket's compensated values."""
    world = dist.get_world_size(group)
    rank = dist.get_rank(group)
    counter.dense(values.numel(), world)
    name, keys = spec_parts(spec)
    if name == "randomk":
        return randomk(values, keys, step, bucket, counter, group, world)
    if name in ("topk", "dgc", "sidco"):
        return leader_topk(spec, values, step, counter, group, world, rank)
    if name in ("rangeq", "qsgd", "terngrad"):
        return shared_scale(name, keys, values, step, bucket, counter, group, world, rank)
    if name == "lowrank":
        return lowrank(lowrank_state, values, pieces, counter, group, world)
    if name == "cast":
        return cast(keys, values, counter, group, world)
    raise ValueError(f"codec '{name}' has no summable form")
