"""lowrank against the truncated SVD of the same rank, on real gradient matrices: the sample
dump's conv and linear weight gradients, every step, ranks 1 to 8 (wherever the factors are
smaller than the matrix)."""
import h5py
import numpy as np
import pytest

import gradcodec
from conftest import SOURCE_DIR


def weight_gradients():
    with h5py.File(SOURCE_DIR / "samples" / "cnn_digits.h5", "r") as f:
        for step in f:
            for name, dataset in f[step].items():
                if dataset.ndim >= 2:
                    yield f"{step}/{name}", dataset[()]


def relative_error(approximation, exact):
    return np.linalg.norm(approximation.astype(np.float64) - exact) / np.linalg.norm(exact)


@pytest.mark.parametrize("values", ["f16", "f32"])
def test_lowrank_is_within_one_percent_of_the_truncated_svd(values):
    compared = 0
    for name, w in weight_gradients():
        matrix = w.reshape(w.shape[0], -1).astype(np.float64)
        singular = np.linalg.svd(matrix, compute_uv=False)
        for rank in (1, 2, 4, 8):
            if rank * sum(matrix.shape) >= matrix.size:
                continue
            optimal = np.sqrt((singular[rank:] ** 2).sum() / (singular ** 2).sum())
            codec = gradcodec.Codec(f"lowrank:rank={rank},values={values}")
            frame = codec.encode(w)
            error = relative_error(gradcodec.decode(frame), w)
            # An exactly low-rank matrix leaves the SVD only rounding: compare absolutely there.
            assert error <= 1.01 * optimal + 1e-3, (name, rank, error, optimal)
            compared += 1
    assert compared >= 40


def test_lowrank_stream_holds_r_times_n_plus_m_values_and_a_header():
    w = next(g for name, g in weight_gradients() if name.endswith("c2.weight"))
    n, m = w.shape[0], w.size // w.shape[0]
    for rank, width in ((2, 2), (4, 2)):
        frame = gradcodec.Codec(f"lowrank:rank={rank},values=f16").encode(w)
        payload = gradcodec.frame_info(frame)["payload_size"]
        # form, rank, seed, iterations; two value sections of a format byte and the values.
        assert payload == 1 + 4 + 8 + 1 + 2 * 1 + width * rank * (n + m)
