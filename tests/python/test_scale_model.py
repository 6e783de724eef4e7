"""scripts/scale-study's byte model against the hook's counters: at N = 2 and 4 gloo ranks, a
tiny MLP through DDP for 2 steps per transport, every rank's bytes sent and received per call
must equal the model's exactly (given the run's bucket layout and its two data-dependent sizes:
the leader's position section, the longest all-gathered frame), and every rank must end with
bit-identical parameters."""
import functools
import importlib.machinery
import importlib.util

import pytest

from conftest import SOURCE_DIR
from gloo_ranks import run_ranks

STEPS = 2


def load_study():
    path = SOURCE_DIR / "scripts" / "scale-study"
    loader = importlib.machinery.SourceFileLoader("scale_study", str(path))
    spec = importlib.util.spec_from_loader("scale_study", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def measured_rank(rank, world):
    study = load_study()
    return study.measure_rank(rank, world, study.MEASURED_CONFIGS, STEPS, tiny=True)


@pytest.mark.parametrize("world", [2, 4])
def test_model_bytes_equal_the_hook_counters(world):
    study = load_study()
    ranks = run_ranks(functools.partial(measured_rank), world)
    for transport, spec in study.MEASURED_CONFIGS:
        name = study.config_name(transport, spec)
        runs = [r[name] for r in ranks]
        assert all(r["params"] == runs[0]["params"] for r in runs), f"{name}: ranks differ at N={world}"
        if spec is None:
            continue
        calls = [r["calls"] for r in runs]
        assert all(len(c) >= STEPS for c in calls), name
        assert study.check_exact(transport, spec, world, calls) == []


def test_model_scales_as_the_algorithms_say():
    study = load_study()
    n = 1_000_000
    ring = lambda world: study.counted(study.collectives("dense", None, n, [(n,)], world), world, 0)[1]
    assert ring(8) / ring(2) == 1.75
    gather = lambda world: study.counted(
        study.collectives("allgather", "topk:density=0.01", n, [(n,)], world, longest=1000), world, 0)[1]
    assert gather(8) / gather(2) == 7
    # The quantisers' codes widen from int8 to f16 once levels·N exceeds 127, to int32 past 2048.
    codes = lambda world: study.collectives("allreduce", "qsgd:levels=4", n, [(n,)], world)[-1][1]
    assert codes(31) == n and codes(32) == 2 * n and codes(512) == 2 * n and codes(513) == 4 * n
