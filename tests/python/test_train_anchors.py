"""A few steps of scripts/train-compressed with PyTorch's fp16 hook as an anchor and gradcodec's
lowrank codec: both learn, the anchor's bytes are counted as 2 per value, lowrank runs per tensor."""
import json
import os
import subprocess
import sys

from conftest import SOURCE_DIR


def test_short_training_with_the_torch_anchor_and_lowrank_counts_their_bytes(tmp_path):
    out = tmp_path / "results.json"
    subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "train-compressed", "--quick",
                    "--runs", "torch-fp16,lowrank2-ef", "--json", out], check=True, env=dict(os.environ))
    results = json.loads(out.read_text())["digits"]
    for run in results.values():
        assert sum(run["losses"][-10:]) < sum(run["losses"][:10])
        assert run["diverged_at_step"] is None
    fp16, lowrank = results["torch-fp16"], results["lowrank2-ef"]
    assert fp16["bytes_sent_per_step"] == fp16["bytes_dense_per_step"] / 2
    assert lowrank["per_tensor"]
    assert 0 < lowrank["bytes_sent_per_step"] < lowrank["bytes_dense_per_step"] / 20


def test_dense_steps_send_the_first_steps_uncompressed(tmp_path):
    # 60 quick steps, the first 30 dense: half the steps at the dense ring's bytes (plus the
    # hook's 24-byte agreement), half at lowrank's PowerSGD factors.
    out = tmp_path / "results.json"
    subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "train-compressed", "--quick", "--dense-steps", "30",
                    "--runs", "lowrank2-ef-ar", "--json", out], check=True, env=dict(os.environ))
    run = json.loads(out.read_text())["digits"]["lowrank2-ef-ar"]
    assert run["dense_steps"] == 30 and run["steps"] == 60
    dense = run["bytes_dense_per_step"]
    compressed_share = run["bytes_sent_per_step"] - (dense + 24) / 2
    assert 0 < compressed_share < dense / 40
