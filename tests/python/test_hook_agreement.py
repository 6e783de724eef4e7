"""The hook's agreement between ranks and its per-parameter state, on 2 gloo processes:
a non-finite bucket on one rank, ranks configured differently, and DDP's rebuild of its
buckets with the parameters in another order."""
import functools

import numpy as np
import torch

from gloo_ranks import run_ranks

SIZE = 400


class Bucket:
    """GradBucket's methods the hook uses: a flat buffer, its gradients as views of pieces in
    the order of `order`, and a parameter object per piece (what keys the hook's state)."""

    def __init__(self, buffer, pieces, parameters, order=None, index=0):
        self._buffer, self._index = buffer, index
        order = order or list(range(len(pieces)))
        self._pieces = [pieces[i] for i in order]
        self._parameters = [parameters[i] for i in order]

    def buffer(self):
        return self._buffer

    def index(self):
        return self._index

    def gradients(self):
        return [self._buffer[offset:offset + count] for offset, count in self._pieces]

    def parameters(self):
        return self._parameters


def values(rank, step):
    rng = np.random.default_rng(10 * rank + step)
    return torch.from_numpy(rng.standard_normal(SIZE).astype(np.float32))


def outcome(call):
    try:
        return ("ok", call())
    except RuntimeError as error:
        return ("raised", str(error))


def nonfinite_steps(allow, rank, world):
    import gradcodec.torch as gctorch
    state, hook = gctorch.comm_hook("topk:density=0.1", allow_nonfinite=allow)
    parameters = [torch.nn.Parameter(torch.zeros(SIZE))]
    results = []
    for step in range(3):
        grad = values(rank, step)
        if step == 1 and rank == 1:
            grad[7] = float("inf")
        bucket = Bucket(grad, [(0, SIZE)], parameters)
        before = state.bucket_state(state.residuals, 0)
        result = outcome(lambda: hook(state, bucket).wait().numpy().copy())
        after = state.bucket_state(state.residuals, 0)
        results.append((result, None if before is None else before.numpy().copy(),
                        None if after is None else after.numpy().copy()))
        if result[0] == "raised":
            break
    return results


def test_a_nonfinite_step_enters_no_residual_and_the_next_trains_on():
    ranks = run_ranks(functools.partial(nonfinite_steps, True), 2)
    for rank in ranks:
        (first, _, after_first), (second, before, after), (third, _, _) = rank
        assert first[0] == second[0] == third[0] == "ok"
        assert not np.isfinite(second[1]).all()  # the step GradScaler will skip
        np.testing.assert_array_equal(after, before)  # its values never reached the residual
        assert np.isfinite(third[1]).all() and np.isfinite(after_first).all()
    np.testing.assert_array_equal(ranks[0][2][0][1], ranks[1][2][0][1])


def test_a_nonfinite_step_raises_on_every_rank_by_default():
    ranks = run_ranks(functools.partial(nonfinite_steps, False), 2)
    for rank in ranks:
        assert len(rank) == 2 and rank[1][0][0] == "raised"
        assert "NaN or infinity" in rank[1][0][1] and "step 1" in rank[1][0][1]


def mismatched_specs(rank, world):
    import gradcodec.torch as gctorch
    spec = "topk:density=0.1" if rank == 0 else "topk:density=0.2"
    state, hook = gctorch.comm_hook(spec)
    bucket = Bucket(values(rank, 0), [(0, SIZE)], [torch.nn.Parameter(torch.zeros(SIZE))])
    return outcome(lambda: hook(state, bucket).wait())


def test_ranks_with_different_specs_all_raise_on_the_first_step():
    for result in run_ranks(mismatched_specs, 2):
        assert result[0] == "raised" and "different codec specs" in result[1]


def rebuilt_buckets(rank, world):
    """Three steps through one bucket whose parameters change places after step 0, as DDP's
    rebuild does, on one rank (the average is then this rank's own decoded frame): per
    parameter, the summed gradient, what was sent in total and what is left."""
    import gradcodec.torch as gctorch
    state, hook = gctorch.comm_hook("topk:density=0.05")
    sizes = (300, 100)
    parameters = [torch.nn.Parameter(torch.zeros(n)) for n in sizes]
    sent = [np.zeros(n, np.float64) for n in sizes]
    gradients = [np.zeros(n, np.float64) for n in sizes]
    for step, order in enumerate(([0, 1], [1, 0], [1, 0])):
        grad = values(rank, step)
        pieces, at = {}, 0
        for p in order:
            pieces[p] = (at, sizes[p])
            at += sizes[p]
        average = hook(state, Bucket(grad, [pieces[0], pieces[1]], parameters, order=order)).wait()
        for p in (0, 1):
            offset, count = pieces[p]
            gradients[p] += grad[offset:offset + count].numpy()
            sent[p] += average[offset:offset + count].numpy()
    left = [state.residuals[state.parameter_key(parameter)].numpy().astype(np.float64) for parameter in parameters]
    return gradients, sent, left


def test_error_feedback_follows_each_parameter_across_a_rebuild():
    (gradients, sent, left), = run_ranks(rebuilt_buckets, 1)
    for p in (0, 1):
        # Everything a parameter's gradients held was sent or is still in its own residual.
        np.testing.assert_allclose(sent[p] + left[p], gradients[p], rtol=0, atol=1e-5)
