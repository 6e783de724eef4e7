"""The all-reduce transports on 2 and 4 gloo processes: every rank ends each step with the same
average, that average is the documented reference computation from all ranks' values, the
residual identity holds, and the byte counters are what the collectives move."""
import functools
import math

import numpy as np
import pytest
import torch

import gradcodec
from gloo_ranks import run_ranks

SIZE = 3000
STEPS = 3
# A bucket of three parameters: a 40 x 50 matrix, a vector, a 20 x 45 matrix.
PIECES = [("w1", 0, (40, 50)), ("b1", 2000, (100,)), ("w2", 2100, (20, 45))]
SPECS = ["randomk:density=0.05,seed=3", "topk:density=0.05", "dgc:density=0.05",
         "qsgd:levels=4,bucket=256,seed=5", "qsgd:levels=100,bucket=256,seed=6",
         "terngrad:seed=7", "rangeq:bits=4",
         "lowrank:rank=2,seed=1", "cast"]


def gradient(rank, step):
    rng = np.random.default_rng(1000 * rank + step)
    return torch.from_numpy((rng.standard_normal(SIZE) * rng.exponential(1.0, SIZE)).astype(np.float32))


def transport_steps(spec, rank, world):
    """STEPS steps of the transport with error feedback on this rank's gradients."""
    import gradcodec.transport as transport
    state = transport.LowRankState(2, 1)
    residual = torch.zeros(SIZE)
    steps = []
    for step in range(STEPS):
        values = gradient(rank, step) + residual
        counter = transport.WireCounter()
        average, sent = transport.average(spec, values.clone(), step, 0, counter, None,
                                          lowrank_state=state, pieces=PIECES)
        residual = values - sent
        steps.append({"values": values.numpy().copy(), "average": average.numpy().copy(),
                      "sent": sent.numpy().copy(), "residual": residual.numpy().copy(),
                      **counter.as_dict()})
    return steps


def run_transport(spec):
    return functools.partial(transport_steps, spec)


def reference(spec, values, step, world):
    """The documented computation, from every rank's compensated values (list by rank)."""
    import gradcodec.transport as transport
    name, keys = transport.spec_parts(spec)
    if name in ("randomk", "topk", "dgc"):
        if name == "randomk":
            k = transport.kept_count(SIZE, float(keys["density"]))
            positions = gradcodec.random_positions(SIZE, k, transport.shared_seed(int(keys["seed"]), step, 0))
        else:
            positions = transport.leader_positions(spec, torch.from_numpy(values[step % world]))
        out = np.zeros(SIZE, np.float32)
        total = np.zeros(len(positions), np.float32)
        for v in values:
            total += v[positions.astype(np.int64)]
        out[positions.astype(np.int64)] = total / np.float32(world)
        return out
    if name in ("qsgd", "terngrad", "rangeq"):
        levels, kind, block = transport._levels_and_scale(name, keys)
        block = block if 0 < block < SIZE else SIZE
        blocks = math.ceil(SIZE / block)
        rows = [np.pad(v, (0, blocks * block - SIZE)).reshape(blocks, block) for v in values]
        local = [np.abs(r).max(axis=1) if kind == "max" else
                 torch.from_numpy(r).norm(dim=1).numpy() for r in rows]
        scale = np.max(local, axis=0).astype(np.float32)
        total = np.zeros((blocks, block), np.int64)
        for rank, r in enumerate(rows):
            ratio = (torch.from_numpy(np.abs(r)) / torch.from_numpy(np.where(scale > 0, scale, 1))[:, None]
                     * levels).clamp_(max=levels)
            low = ratio.floor()
            generator = torch.Generator().manual_seed(
                transport.shared_seed(int(keys.get("seed", "0")), step, 0) * 4099 + rank & (2**63 - 1))
            up = torch.rand(ratio.shape, generator=generator) < (ratio - low)
            total += (np.sign(r) * (low + up.to(low.dtype)).numpy()).astype(np.int64)
        step_value = torch.from_numpy(scale / np.float32(levels)).repeat_interleave(block)[:SIZE]
        return (torch.from_numpy(total.reshape(-1)[:SIZE]).to(torch.float32) * step_value / world).numpy()
    if name == "cast":
        total = torch.zeros(SIZE, dtype=torch.float16)
        for v in values:
            total += torch.from_numpy(v).div(world).to(torch.float16)
        return total.to(torch.float32).numpy()
    raise AssertionError(name)


@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("spec", SPECS)
def test_every_rank_ends_with_the_reference_average(spec, world):
    results = run_transport(spec)
    ranks = run_ranks(results, world)
    for step in range(STEPS):
        averages = [r[step]["average"] for r in ranks]
        for other in averages[1:]:
            np.testing.assert_array_equal(other, averages[0])  # bit-identical on every rank
        for r in ranks:  # error feedback keeps exactly what was not sent
            np.testing.assert_array_equal(r[step]["residual"], r[step]["values"] - r[step]["sent"])
        if spec.startswith("lowrank"):
            continue  # checked against PowerSGD's algebra below
        expected = reference(spec, [r[step]["values"] for r in ranks], step, world)
        if world == 2 or spec.split(":")[0] in ("qsgd", "terngrad", "rangeq"):
            # Two addends sum the same in any order; integer codes sum exactly.
            np.testing.assert_array_equal(averages[0], expected)
        elif spec == "cast":
            # Four f16 addends in gloo's order: each of the three additions rounds by at most
            # half an f16 unit of a partial sum, bounded by the sum of the magnitudes.
            magnitudes = sum(np.abs(r[step]["values"] / np.float32(world)) for r in ranks)
            assert np.all(np.abs(averages[0] - expected) <= 3 * 2.0**-11 * magnitudes + 2.0**-24)
        else:
            # gloo's ring fixes no order for four f32 addends: one rounding per addition.
            np.testing.assert_allclose(averages[0], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("world", [2, 4])
def test_lowrank_is_powersgd_on_the_summed_matrices(world):
    ranks = run_ranks(run_transport("lowrank:rank=2,seed=1"), world)
    for step in range(STEPS):
        average = ranks[0][step]["average"]
        total = sum(r[step]["values"].astype(np.float64) for r in ranks) / world
        # Vectors are averaged exactly as they are.
        np.testing.assert_allclose(average[2000:2100], total[2000:2100], rtol=1e-6, atol=1e-7)
        for _, offset, (rows, cols) in (p for p in PIECES if len(p[2]) == 2):
            exact = total[offset:offset + rows * cols].reshape(rows, cols)
            approx = average[offset:offset + rows * cols].reshape(rows, cols)
            # P·Qᵀ is the projection of the mean matrix onto P's columns: a rank-2 matrix whose
            # residual is orthogonal to P, and no better than the truncated SVD.
            assert np.linalg.matrix_rank(approx, tol=1e-4 * np.abs(approx).max()) <= 2
            singular = np.linalg.svd(exact, compute_uv=False)
            optimal = np.sqrt((singular[2:] ** 2).sum())
            assert np.linalg.norm(exact - approx) >= optimal * (1 - 1e-6)


@pytest.mark.parametrize("spec", SPECS)
def test_bytes_per_rank_stay_flat_from_2_to_4_ranks(spec):
    # Step 0: rank 0 leads at any N and its values do not depend on N, so the same message
    # crosses the wire at N = 2 and 4, and only the algorithm's factor may differ.
    received = {}
    for world in (2, 4):
        ranks = run_ranks(run_transport(spec), world)
        received[world] = max(r[0]["bytes_received"] for r in ranks)
        dense = ranks[0][0]["bytes_dense"]
        assert dense == pytest.approx(2 * (world - 1) / world * 4 * SIZE)
    # A ring all-reduce moves 2(N-1)/N of its message: 1.5 times as much at 4 as at 2 ranks,
    # against 3 times for an all-gather of the same frames.
    assert received[4] <= 1.5 * received[2] + 1e-9, received


def test_codes_travel_in_the_narrowest_lane_that_sums_them_exactly():
    import gradcodec.transport as transport
    assert transport.integer_lane(4, 31) == torch.int8
    assert transport.integer_lane(4, 32) == torch.float16  # 128: past int8
    assert transport.integer_lane(4, 512) == torch.float16  # 2048: f16's last exact integer
    assert transport.integer_lane(4, 513) == torch.int32
    # Every integer up to 2048 survives f16, and 2049 does not: the bound is exact.
    exact = torch.arange(-2048, 2049, dtype=torch.float32)
    assert torch.equal(exact.to(torch.float16).to(torch.float32), exact)
    assert torch.tensor(2049.0).to(torch.float16).item() != 2049.0


def test_a_codec_without_a_summable_form_is_refused():
    import gradcodec.torch as gctorch
    for spec in ("sign", "fft:density=0.1", "natural", "lossless"):
        with pytest.raises(ValueError, match="no summable form"):
            gctorch.comm_hook(spec, transport="allreduce")
    with pytest.raises(ValueError, match="transport must be"):
        gctorch.comm_hook("topk", transport="ring")
    with pytest.raises(ValueError, match="per_tensor"):
        gctorch.comm_hook("topk", transport="allreduce", per_tensor=True)


def ddp_training(spec, rank, world):
    """Five DDP steps of a small model through the hook's all-reduce transport."""
    from torch.nn.parallel import DistributedDataParallel

    import gradcodec.torch as gctorch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(30, 40), torch.nn.ReLU(), torch.nn.Linear(40, 10))
    ddp = DistributedDataParallel(model, bucket_cap_mb=0.002)
    state, hook = gctorch.comm_hook(spec, transport="allreduce")
    ddp.register_comm_hook(state, hook)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(rank)
    for _ in range(5):
        x = torch.randn(16, 30, generator=generator)
        loss = ddp(x).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return {"parameters": [p.detach().numpy().copy() for p in model.parameters()],
            "bytes_received": state.bytes_received, "bytes_dense": state.bytes_dense,
            "calls": state.calls}


@pytest.mark.parametrize("spec", ["randomk:density=0.1", "topk:density=0.1", "qsgd:levels=4",
                                  "lowrank:rank=2", "cast"])
def test_ddp_through_the_allreduce_transport_keeps_every_rank_identical(spec):
    ranks = run_ranks(functools.partial(ddp_training, spec), 2)
    for mine, theirs in zip(ranks[0]["parameters"], ranks[1]["parameters"]):
        np.testing.assert_array_equal(mine, theirs)
    assert ranks[0]["calls"] >= 5
    assert 0 < ranks[0]["bytes_received"] < ranks[0]["bytes_dense"]
