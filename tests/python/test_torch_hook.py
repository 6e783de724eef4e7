"""The DDP hook on 2 gloo processes over loopback: its average and residuals, checked against
frames encoded here, and one real DistributedDataParallel step through it."""
import numpy as np
import pytest
import torch

import gradcodec
import gradcodec.torch as gctorch
from gloo_ranks import progress, run_ranks

SIZE = 5000
# Every call starts with the ranks' agreement: an all-reduce of three int64 (spec fingerprint,
# its negation, the non-finite flag), which a 2-rank ring moves once each way.
AGREEMENT_BYTES = 24


class Bucket:
    """The GradBucket methods the hook uses; gradients() as views of pieces of the buffer, each
    in its shape (shapes, one per piece; flat by default), as DDP's are in their parameter's."""

    def __init__(self, tensor, index=0, pieces=None, shapes=None):
        self._tensor, self._index = tensor, index
        self._pieces = pieces or [(0, tensor.numel())]
        self._shapes = shapes or [(count,) for _, count in self._pieces]

    def buffer(self):
        return self._tensor

    def index(self):
        return self._index

    def gradients(self):
        return [self._tensor[offset:offset + count].view(shape)
                for (offset, count), shape in zip(self._pieces, self._shapes)]


def bucket_of(rank, step):
    rng = np.random.default_rng(100 * rank + step)
    values = (rng.standard_normal(SIZE) * rng.exponential(1.0, SIZE)).astype(np.float32)
    offset, count = PIECES[1]
    values[offset:offset + count] *= np.float32(1e-3)
    return values




def all_steps(rank, world):
    """The hook scenarios, then the real DDP steps, in one process group (spawning ranks is
    slow, and one rendezvous is one less thing to wait for)."""
    return {"hook": hook_steps(rank, world), "ddp": ddp_step(rank, world),
            "dense_steps": dense_then_compressed(rank, world)}


@pytest.fixture(scope="module")
def gloo_ranks():
    return run_ranks(all_steps)


CLIP = 3.0  # the buckets' norms are about 100: clipping always acts
FALLING = [0.1, 0.03, None]  # a density schedule: step 0, step 1, then the spec's own
# Three "parameters" of the bucket, for per_tensor: the middle one has small values, which a
# selection across the whole bucket would leave out.
PIECES = [(0, 1000), (1000, 100), (1100, SIZE - 1100)]
# The pieces' shapes for lowrank: a matrix, a vector (no matrix: the fallback carries it) and a
# 3-D tensor (a 39 x 100 matrix to lowrank).
SHAPES = [(40, 25), (100,), (39, 10, 10)]
LOWRANK = "lowrank:rank=2,seed=5"

SCENARIOS = [  # (codec spec, error feedback, DGC momentum, clip_norm, density schedule, per tensor)
    ("topk:density=0.01,values=f32", True, None, None, None, False),
    ("dgc:density=0.01", True, None, None, None, False),
    ("rangeq:bits=8", True, None, None, None, False),
    ("topk:density=0.01", False, None, None, None, False),
    ("topk:density=0.01,values=f32", True, 0.9, None, None, False),
    ("topk:density=0.01,values=f32", True, 0.9, CLIP, None, False),
    ("topk:density=0.01,values=f32", True, None, None, "falling", False),
    ("topk:density=0.01,values=f32", True, None, None, None, True),
    ("dgc:density=0.01", True, 0.9, None, None, True),
    (LOWRANK, True, None, None, None, True),
    (LOWRANK, False, None, None, None, True),
]


def hook_steps(rank, world):
    """Three hook calls per scenario."""
    results = {}
    for scenario in SCENARIOS:
        spec, error_feedback, momentum, clip_norm, schedule, per_tensor = scenario
        density = (lambda step: FALLING[step]) if schedule == "falling" else None
        state, hook = gctorch.comm_hook(spec, error_feedback=error_feedback, momentum=momentum,
                                        clip_norm=clip_norm, density=density, per_tensor=per_tensor)
        steps = []
        for step in range(3):
            bucket = torch.from_numpy(bucket_of(rank, step))
            shapes = SHAPES if spec.startswith("lowrank") else None
            average = hook(state, Bucket(bucket, pieces=PIECES, shapes=shapes)).wait()
            # The hook hands back a new tensor on the bucket's device and leaves the bucket alone.
            assert average.device == bucket.device and average.dtype == bucket.dtype
            assert average.data_ptr() != bucket.data_ptr()
            np.testing.assert_array_equal(bucket.numpy(), bucket_of(rank, step))
            residual = state.bucket_state(state.residuals, 0)
            velocity = state.bucket_state(state.velocities, 0)
            steps.append((average.numpy().copy(), None if residual is None else residual.numpy().copy(),
                          None if velocity is None else velocity.numpy().copy()))
        results[scenario] = (steps, (state.calls, state.bytes_sent, state.bytes_frames, state.bytes_dense))
        progress(rank, f"hook scenario {scenario} done")
    return results


@pytest.fixture(scope="module")
def hook_results(gloo_ranks):
    ranks = [r["hook"] for r in gloo_ranks]
    return lambda *scenario, per_tensor=False: [ranks[rank][(*scenario, per_tensor)] for rank in range(2)]


@pytest.mark.parametrize("spec", ["topk:density=0.01,values=f32", "dgc:density=0.01", "rangeq:bits=8"])
def test_the_hook_averages_each_ranks_decoded_frame_and_keeps_what_was_left_out(spec, hook_results):
    results = hook_results(spec, True, None, None, None)
    codec = gradcodec.Codec(spec)
    residuals = [np.zeros(SIZE, np.float32) for _ in range(2)]
    total_sent = [0, 0]
    for step in range(3):
        decoded, frames = [], []
        for rank in range(2):
            compensated = bucket_of(rank, step) + residuals[rank]
            rest = np.empty_like(compensated)
            frames.append(codec.encode(compensated, residual=rest))
            decoded.append(gradcodec.decode(frames[-1]))
            np.testing.assert_array_equal(rest, compensated - decoded[-1])
            residuals[rank] = rest
        expected = (decoded[0] + decoded[1]) / np.float32(2)
        for rank in range(2):
            average, residual, _ = results[rank][0][step]
            np.testing.assert_array_equal(average, expected)
            np.testing.assert_array_equal(residual, residuals[rank])
            total_sent[rank] += AGREEMENT_BYTES + 8 + max(len(f) for f in frames)
    for rank in range(2):
        calls, sent, frames_bytes, dense = results[rank][1]
        assert calls == 3 and dense == 3 * 4 * SIZE and sent == total_sent[rank]
        assert frames_bytes <= sent


def test_without_error_feedback_the_hook_keeps_no_residual(hook_results):
    results = hook_results("topk:density=0.01", False, None, None, None)
    codec = gradcodec.Codec("topk:density=0.01")
    for step in range(3):
        decoded = [gradcodec.decode(codec.encode(bucket_of(rank, step))) for rank in range(2)]
        for rank in range(2):
            average, residual, _ = results[rank][0][step]
            assert residual is None
            np.testing.assert_array_equal(average, (decoded[0] + decoded[1]) / np.float32(2))


def test_momentum_correction_accumulates_velocity_and_masks_what_was_sent(hook_results):
    m = 0.9
    spec = "topk:density=0.01,values=f32"
    results = hook_results(spec, True, m, None, None)
    codec = gradcodec.Codec(spec)
    for rank in range(2):
        u = np.zeros(SIZE, np.float32)
        v = np.zeros(SIZE, np.float32)
        for step in range(3):
            u = np.float32(m) * u + bucket_of(rank, step)
            v = v + u
            sent = gradcodec.decode(codec.encode(v))
            v = v - sent
            u[sent != 0] = 0
            _, residual, velocity = results[rank][0][step]
            np.testing.assert_array_equal(residual, v)
            np.testing.assert_array_equal(velocity, u)
            # Factor masking: both u and v are zero wherever a value was sent.
            assert np.all(residual[sent != 0] == 0) and np.all(velocity[sent != 0] == 0)


def test_local_clipping_scales_each_ranks_gradient_to_its_limit_before_accumulating(hook_results):
    m = 0.9
    spec = "topk:density=0.01,values=f32"
    results = hook_results(spec, True, m, CLIP, None)
    codec = gradcodec.Codec(spec)
    limit = CLIP * np.sqrt(2)  # the mean of 2 independent buckets of this norm: about CLIP
    sent_by_rank = []
    for rank in range(2):
        u = np.zeros(SIZE, np.float32)
        v = np.zeros(SIZE, np.float32)
        sent_steps = []
        for step in range(3):
            g = bucket_of(rank, step)
            assert np.linalg.norm(g) > 10 * limit
            clipped = (torch.from_numpy(g) * (limit / float(np.linalg.norm(g.astype(np.float64))))).numpy()
            np.testing.assert_allclose(np.linalg.norm(clipped), limit, rtol=1e-5)
            u = np.float32(m) * u + clipped
            v = v + u
            sent = gradcodec.decode(codec.encode(v))
            v = v - sent
            u[sent != 0] = 0
            _, residual, velocity = results[rank][0][step]
            np.testing.assert_allclose(residual, v, rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(velocity, u, rtol=1e-5, atol=1e-7)
            sent_steps.append(sent)
        sent_by_rank.append(sent_steps)
    for step in range(3):
        average = results[0][0][step][0]
        np.testing.assert_allclose(average, (sent_by_rank[0][step] + sent_by_rank[1][step]) / 2, rtol=1e-5, atol=1e-7)


def test_a_density_schedule_changes_how_many_values_each_step_sends(hook_results):
    spec = "topk:density=0.01,values=f32"
    results = hook_results(spec, True, None, None, "falling")
    residuals = [np.zeros(SIZE, np.float32) for _ in range(2)]
    for step, density in enumerate(FALLING):
        codec = gradcodec.Codec(gctorch.with_density(spec, density))
        decoded = []
        for rank in range(2):
            compensated = bucket_of(rank, step) + residuals[rank]
            rest = np.empty_like(compensated)
            decoded.append(gradcodec.decode(codec.encode(compensated, residual=rest)))
            assert np.count_nonzero(decoded[-1]) == int(np.ceil((density or 0.01) * SIZE))
            residuals[rank] = rest
            np.testing.assert_array_equal(results[rank][0][step][1], rest)
        for rank in range(2):
            np.testing.assert_array_equal(results[rank][0][step][0], (decoded[0] + decoded[1]) / np.float32(2))


def encode_per_piece(codec, values):
    """(frames, decoded, residual) of values encoded piece by piece, as the hook's per_tensor."""
    frames, decoded, rest = [], np.empty_like(values), np.empty_like(values)
    for offset, count in PIECES:
        frames.append(codec.encode(values[offset:offset + count], residual=rest[offset:offset + count]))
        decoded[offset:offset + count] = gradcodec.decode(frames[-1])
    return frames, decoded, rest


def test_per_tensor_encoding_selects_within_every_parameter_and_sends_each_frame_with_its_size(hook_results):
    spec = "topk:density=0.01,values=f32"
    results = hook_results(spec, True, None, None, None, per_tensor=True)
    codec = gradcodec.Codec(spec)
    residuals = [np.zeros(SIZE, np.float32) for _ in range(2)]
    total_sent = 0
    for step in range(3):
        decoded, payload_sizes = [], []
        for rank in range(2):
            frames, sent, residuals[rank] = encode_per_piece(codec, bucket_of(rank, step) + residuals[rank])
            decoded.append(sent)
            payload_sizes.append(sum(len(f) for f in frames))
            for offset, count in PIECES:  # the small-valued piece gets its share too
                assert np.count_nonzero(sent[offset:offset + count]) == int(np.ceil(0.01 * count))
        total_sent += AGREEMENT_BYTES + 8 * len(PIECES) + max(payload_sizes)
        for rank in range(2):
            average, residual, _ = results[rank][0][step]
            np.testing.assert_array_equal(average, (decoded[0] + decoded[1]) / np.float32(2))
            np.testing.assert_array_equal(residual, residuals[rank])
    for rank in range(2):
        calls, sent, _, dense = results[rank][1]
        assert calls == 3 and dense == 3 * 4 * SIZE and sent == total_sent


def test_per_tensor_encoding_keeps_dgc_momentum_correction_over_the_whole_bucket(hook_results):
    m = 0.9
    spec = "dgc:density=0.01"
    results = hook_results(spec, True, m, None, None, per_tensor=True)
    codec = gradcodec.Codec(spec)
    for rank in range(2):
        u = np.zeros(SIZE, np.float32)
        v = np.zeros(SIZE, np.float32)
        for step in range(3):
            u = np.float32(m) * u + bucket_of(rank, step)
            _, sent, v = encode_per_piece(codec, v + u)
            u[sent != 0] = 0
            _, residual, velocity = results[rank][0][step]
            np.testing.assert_array_equal(residual, v)
            np.testing.assert_array_equal(velocity, u)


@pytest.mark.parametrize("error_feedback", [True, False])
def test_per_tensor_lowrank_factors_each_parameter_in_its_own_shape(error_feedback, hook_results):
    results = hook_results(LOWRANK, error_feedback, None, None, None, per_tensor=True)
    codec = gradcodec.Codec(LOWRANK)
    residuals = [np.zeros(SIZE, np.float32) for _ in range(2)]
    total_sent = 0
    for step in range(3):
        decoded, payload_sizes = [], []
        for rank in range(2):
            compensated = bucket_of(rank, step) + (residuals[rank] if error_feedback else 0)
            sent, rest, frames = np.empty_like(compensated), np.empty_like(compensated), []
            for (offset, count), shape in zip(PIECES, SHAPES):
                piece = compensated[offset:offset + count].reshape(shape)
                frames.append(codec.encode(piece, residual=rest[offset:offset + count]))
                assert gradcodec.frame_info(frames[-1])["shape"] == shape
                sent[offset:offset + count] = gradcodec.decode(frames[-1]).reshape(-1)
            # The matrices travel as rank-2 factors, smaller than their values and lossy; the
            # vector, no matrix, by the lossless fallback.
            for (offset, count), shape, frame in zip(PIECES, SHAPES, frames):
                if len(shape) > 1:
                    assert len(frame) < count
                    assert np.linalg.matrix_rank(sent[offset:offset + count].reshape(shape[0], -1)) <= 2
                else:
                    np.testing.assert_array_equal(sent[offset:offset + count], compensated[offset:offset + count])
            residuals[rank] = rest
            decoded.append(sent)
            payload_sizes.append(sum(len(f) for f in frames))
        total_sent += AGREEMENT_BYTES + 8 * len(PIECES) + max(payload_sizes)
        for rank in range(2):
            average, residual, _ = results[rank][0][step]
            np.testing.assert_array_equal(average, (decoded[0] + decoded[1]) / np.float32(2))
            if error_feedback:
                np.testing.assert_array_equal(residual, residuals[rank])
            else:
                assert residual is None
    for rank in range(2):
        calls, sent, _, dense = results[rank][1]
        assert calls == 3 and dense == 3 * 4 * SIZE and sent == total_sent


def test_lowrank_without_per_tensor_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="lowrank.*matrix.*per_tensor=True"):
        gctorch.comm_hook("lowrank:rank=2")
    with pytest.raises(ValueError, match="per_tensor=True"):
        gctorch.comm_hook("lowrank:rank=4,fallback=cast", per_tensor=False)
    gctorch.comm_hook("lowrank:rank=2", per_tensor=True)  # accepted


def test_a_bucket_whose_gradients_leave_a_gap_is_refused():
    buffer = torch.zeros(100)
    assert gctorch.tensor_spans(Bucket(buffer, pieces=[(0, 60), (60, 40)])) == [(0, 60), (60, 40)]
    with pytest.raises(RuntimeError, match="do not tile"):
        gctorch.tensor_spans(Bucket(buffer, pieces=[(0, 50), (60, 40)]))
    with pytest.raises(RuntimeError, match="do not tile"):
        gctorch.tensor_spans(Bucket(buffer, pieces=[(0, 90)]))


def test_with_density_rewrites_only_the_density_of_a_spec():
    assert gctorch.with_density("dgc:density=0.001", 0.25) == "dgc:density=0.25"
    assert gctorch.with_density("topk:count=7,values=f32", 0.5) == "topk:values=f32,density=0.5"
    assert gctorch.with_density("sidco:dist=gpareto,density=0.01", None) == "sidco:dist=gpareto,density=0.01"
    with pytest.raises(ValueError):
        gctorch.with_density("topk:density=0.01", 0.0)


def test_dgc_warmup_falls_exponentially_to_the_target_density():
    schedule = gctorch.dgc_warmup(10, 0.001, stages=4)
    levels = [schedule(step) for step in (0, 9, 10, 20, 30, 39, 40, 1000)]
    np.testing.assert_allclose(levels[:2], [0.25, 0.25])
    ratio = (0.001 / 0.25) ** 0.25
    np.testing.assert_allclose(levels[2:6], [0.25 * ratio, 0.25 * ratio ** 2, 0.25 * ratio ** 3, 0.25 * ratio ** 3])
    assert levels[6] == levels[7] == 0.001
    with pytest.raises(ValueError):
        gctorch.dgc_warmup(0, 0.001)


def test_bad_hook_options_are_refused_before_training():
    with pytest.raises(ValueError):
        gctorch.comm_hook("topk:density=0.01", clip_norm=0.0)
    with pytest.raises(ValueError):
        gctorch.comm_hook("topk:density=0.01", momentum=1.0)
    with pytest.raises(ValueError):
        gctorch.comm_hook("rangeq:bits=8", density=lambda step: 0.1)  # rangeq has no density


def ddp_step(rank, world):
    """One backward through the hook, whole-bucket and per-tensor: each parameter's gradient."""
    results = {}
    for per_tensor in (False, True, "lowrank"):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 3))
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        if per_tensor == "lowrank":
            state, hook = gctorch.comm_hook("lowrank:rank=2", per_tensor=True)
        else:
            state, hook = gctorch.comm_hook("topk:density=0.1,values=f32", per_tensor=per_tensor)
        ddp.register_comm_hook(state, hook)
        torch.manual_seed(1 + rank)
        x, y = torch.randn(16, 20), torch.randint(0, 3, (16,))
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        results[per_tensor] = ([p.grad.flatten().numpy().copy() for p in model.parameters()],
                               state.calls, state.bytes_dense)
        progress(rank, f"DDP step (per_tensor={per_tensor}) done")
    return results


@pytest.fixture(scope="module")
def ddp_results(gloo_ranks):
    return [r["ddp"] for r in gloo_ranks]


def test_a_real_ddp_backward_gives_every_rank_the_same_compressed_average(ddp_results):
    (g0, calls0, dense0), (g1, _, _) = (ranks[False] for ranks in ddp_results)
    np.testing.assert_array_equal(np.concatenate(g0), np.concatenate(g1))
    n = 20 * 64 + 64 + 64 * 3 + 3
    assert calls0 >= 1 and dense0 == 4 * n
    assert 0 < np.count_nonzero(np.concatenate(g0)) <= 2 * int(np.ceil(0.1 * n))


def test_a_real_ddp_backward_per_tensor_sends_a_share_of_every_parameters_gradient(ddp_results):
    (g0, calls0, dense0), (g1, _, _) = (ranks[True] for ranks in ddp_results)
    assert calls0 >= 1 and dense0 == 4 * (20 * 64 + 64 + 64 * 3 + 3)
    for grad0, grad1 in zip(g0, g1):
        np.testing.assert_array_equal(grad0, grad1)
        # Each rank sends ceil(10%) of this parameter's values; the average holds both ranks'.
        assert 0 < np.count_nonzero(grad0) <= 2 * int(np.ceil(0.1 * grad0.size))


def test_a_real_ddp_backward_per_tensor_lowrank_averages_rank_2_factors_of_each_weight(ddp_results):
    (g0, calls0, dense0), (g1, _, _) = (ranks["lowrank"] for ranks in ddp_results)
    assert calls0 >= 1 and dense0 == 4 * (20 * 64 + 64 + 64 * 3 + 3)
    shapes = [(64, 20), (64,), (3, 64), (3,)]
    for grad0, grad1, shape in zip(g0, g1, shapes):
        np.testing.assert_array_equal(grad0, grad1)
        if len(shape) == 2 and 2 * sum(shape) < shape[0] * shape[1]:
            # Each rank sends a rank-2 approximation of the weight's gradient: their mean has rank <= 4.
            assert np.linalg.matrix_rank(grad0.reshape(shape), tol=1e-6) <= 4


DENSE_STEPS = 2


def dense_then_compressed(rank, world):
    """Three calls of a hook told to send its first DENSE_STEPS steps dense, on each transport."""
    results = {}
    for transport in ("allgather", "allreduce"):
        state, hook = gctorch.comm_hook("topk:density=0.01,values=f32", clip_norm=CLIP, transport=transport,
                                        dense_steps=DENSE_STEPS)
        steps = []
        for step in range(3):
            average = hook(state, Bucket(torch.from_numpy(bucket_of(rank, step)))).wait()
            residual = state.bucket_state(state.residuals, 0)
            steps.append((average.numpy().copy(), residual is not None, state.bytes_sent, state.bytes_dense))
        results[transport] = steps
    progress(rank, "dense_steps done")
    return results


@pytest.mark.parametrize("transport", ["allgather", "allreduce"])
def test_dense_steps_average_the_clipped_gradients_before_compression_starts(transport, gloo_ranks):
    ranks = [r["dense_steps"][transport] for r in gloo_ranks]
    limit = CLIP * np.sqrt(2)
    dense_bytes = 4 * SIZE  # a 2-rank ring all-reduce moves the f32 bucket once each way
    for step in range(3):
        np.testing.assert_array_equal(ranks[0][step][0], ranks[1][step][0])
        average, has_residual, bytes_sent, bytes_dense = ranks[0][step]
        assert bytes_dense == (step + 1) * dense_bytes
        if step < DENSE_STEPS:
            clipped = [g * (limit / np.linalg.norm(g.astype(np.float64))) for g in
                       (bucket_of(rank, step) for rank in range(2))]
            np.testing.assert_allclose(average, (clipped[0] + clipped[1]) / 2, rtol=1e-5, atol=1e-7)
            assert not has_residual  # nothing was left out, so nothing is carried
            assert bytes_sent == (step + 1) * (AGREEMENT_BYTES + dense_bytes)
        else:
            # Compression starts: top-k 1% of each rank's bucket, the rest kept as residual.
            assert has_residual
            assert 0 < np.count_nonzero(average) <= 2 * int(np.ceil(0.01 * SIZE))
            assert bytes_sent - ranks[0][step - 1][2] < dense_bytes / 10


def test_dense_steps_must_be_a_whole_number_of_steps():
    for bad in (-1, 1.5, True, "10"):
        with pytest.raises(ValueError, match="dense_steps"):
            gctorch.comm_hook("topk:density=0.01", dense_steps=bad)
    state, _ = gctorch.comm_hook("topk:density=0.01", dense_steps=np.int64(3))
    assert state.dense_steps == 3 and type(state.dense_steps) is int
