"""The DDP hook's state saved with a checkpoint: on 2 gloo ranks, a run resumed from
state_dict() after three steps takes the same fourth step as the run that went on, to the bit
and to the byte; a run resumed without it does not."""
import io

import numpy as np
import pytest
import torch

import gradcodec.torch as gctorch
from gloo_ranks import progress, run_ranks

STEPS_BEFORE = 3
# (name, comm_hook arguments): each keeps state of another kind across steps. Each encodes per
# parameter: a resumed DDP's first step has its buckets in the parameters' order (its rebuild
# comes after it), the run that went on in the order of their gradients, so a whole-bucket
# codec would see the same values in another order in that one step.
SCENARIOS = [
    # each parameter's residual and the hook's momentum
    ("topk+momentum per tensor", dict(spec="topk:density=0.05", momentum=0.9, per_tensor=True)),
    # a density schedule that follows the step
    ("dgc warm-up per tensor", dict(spec="dgc:density=0.01", per_tensor=True,
                                    density=gctorch.dgc_warmup(1, 0.01, stages=5))),
    # PowerSGD's warm-started Q per parameter, on the all-reduce transport
    ("lowrank all-reduce", dict(spec="lowrank:rank=2,seed=1", transport="allreduce")),
    # dense steps until the checkpoint, compressed from the step after it: the resumed run must
    # know it is past them (a run without the hook's state would start dense again)
    ("dense start, then top-k", dict(spec="topk:density=0.05", per_tensor=True, dense_steps=STEPS_BEFORE)),
]


def batch(rank, step):
    generator = torch.Generator().manual_seed(1000 * rank + step)
    return torch.randn(16, 20, generator=generator), torch.randint(0, 3, (16,), generator=generator)


def build(arguments, checkpoint=None, load_hook=True):
    """Model, optimizer, DDP and hook, from the checkpoint where one is given (the model's
    weights before DDP wraps it, as DDP broadcasts them then)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if checkpoint is not None:
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    state, hook = gctorch.comm_hook(**arguments)
    if checkpoint is not None and load_hook:
        state.load_state_dict(checkpoint["hook"])
    ddp.register_comm_hook(state, hook)
    return model, optimizer, ddp, state


def train_step(rank, step, model, optimizer, ddp, state):
    """One step: the averaged gradients it applied and the bytes the hook sent for them."""
    optimizer.zero_grad()
    x, y = batch(rank, step)
    sent, frames = state.bytes_sent, state.bytes_frames
    torch.nn.functional.cross_entropy(ddp(x), y).backward()
    grads = [p.grad.detach().clone().numpy() for p in model.parameters()]
    optimizer.step()
    return grads, state.bytes_sent - sent, state.bytes_frames - frames


def saved_state(state):
    """The hook's state_dict as NumPy, keys as strings, for comparing across processes."""
    out = {}
    for table in ("residuals", "velocities", "lowrank_q"):
        for key, value in (state.state_dict()[table] or {}).items():
            out[f"{table}{key}"] = value.numpy().copy()
    return out


def resume(rank, world):
    results = {}
    for name, arguments in SCENARIOS:
        model, optimizer, ddp, state = build(arguments)
        for step in range(STEPS_BEFORE):
            train_step(rank, step, model, optimizer, ddp, state)
        buffer = io.BytesIO()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "hook": state.state_dict()}, buffer)
        went_on = train_step(rank, STEPS_BEFORE, model, optimizer, ddp, state)
        went_on_state = saved_state(state)

        checkpoint = torch.load(io.BytesIO(buffer.getvalue()))
        resumed_parts = build(arguments, checkpoint)
        resumed = train_step(rank, STEPS_BEFORE, *resumed_parts)
        resumed_state = saved_state(resumed_parts[3])

        forgot = train_step(rank, STEPS_BEFORE, *build(arguments, checkpoint, load_hook=False))
        results[name] = (went_on, went_on_state, resumed, resumed_state, forgot)
        progress(rank, f"{name} done")
    return results


@pytest.fixture(scope="module")
def resumed_runs():
    return run_ranks(resume, 2)


@pytest.mark.parametrize("name", [name for name, _ in SCENARIOS])
def test_a_run_resumed_from_the_hooks_state_dict_takes_the_next_step_of_the_run_that_went_on(name, resumed_runs):
    for rank in range(2):
        (grads, sent, frames), state, (resumed_grads, resumed_sent, resumed_frames), resumed_state, _ = \
            resumed_runs[rank][name]
        for grad, resumed_grad in zip(grads, resumed_grads):
            np.testing.assert_array_equal(resumed_grad, grad)
        assert (resumed_sent, resumed_frames) == (sent, frames) and sent > 0
        assert resumed_state.keys() == state.keys() and state
        for key in state:
            np.testing.assert_array_equal(resumed_state[key], state[key], err_msg=key)


@pytest.mark.parametrize("name", [name for name, _ in SCENARIOS])
def test_without_the_hooks_state_the_next_step_differs(name, resumed_runs):
    (grads, _, _), _, _, _, (forgot_grads, _, _) = resumed_runs[0][name]
    assert any(not np.array_equal(a, b) for a, b in zip(grads, forgot_grads))


def test_a_state_dict_is_refused_by_a_hook_of_another_spec_or_options():
    state, _ = gctorch.comm_hook("topk:density=0.05", momentum=0.9)
    saved = state.state_dict()
    assert saved["steps"] == {} and saved["residuals"] == {} and saved["fingerprint"] == state.fingerprint
    gctorch.comm_hook("topk:density=0.05", momentum=0.9)[0].load_state_dict(saved)
    with pytest.raises(ValueError, match="saved by a hook of spec"):
        gctorch.comm_hook("topk:density=0.1", momentum=0.9)[0].load_state_dict(saved)
    with pytest.raises(ValueError, match="other options"):
        gctorch.comm_hook("topk:density=0.05")[0].load_state_dict(saved)
    with pytest.raises(ValueError, match="version"):
        gctorch.comm_hook("topk:density=0.05", momentum=0.9)[0].load_state_dict({**saved, "version": 99})


class Bucket:
    """GradBucket's methods the hook uses, one parameter per bucket."""

    def __init__(self, parameter):
        self._parameter = parameter
        self._buffer = torch.ones(parameter.numel())

    def buffer(self):
        return self._buffer

    def index(self):
        return 0

    def gradients(self):
        return [self._buffer]

    def parameters(self):
        return [self._parameter]


def mismatched_model(rank, world):
    state, hook = gctorch.comm_hook("topk:density=0.5")
    hook(state, Bucket(torch.nn.Parameter(torch.zeros(10)))).wait()
    outcomes = []
    try:
        state.load_state_dict(state.state_dict())
    except RuntimeError as error:
        outcomes.append(str(error))
    other, other_hook = gctorch.comm_hook("topk:density=0.5")
    other.load_state_dict(state.state_dict())
    try:
        other_hook(other, Bucket(torch.nn.Parameter(torch.zeros(12)))).wait()
    except RuntimeError as error:
        outcomes.append(str(error))
    return outcomes


def test_loading_after_the_first_step_or_into_another_model_raises_saying_why():
    (outcomes,) = run_ranks(mismatched_model, 1)
    assert len(outcomes) == 2
    assert "before the hook's first step" in outcomes[0]
    assert "parameter 0" in outcomes[1] and "12 values" in outcomes[1] and "10" in outcomes[1]
