"""A few steps of scripts/train-compressed on digits: loss falls and the hook counts bytes."""
import json
import os
import subprocess
import sys

from conftest import SOURCE_DIR


def test_short_compressed_training_learns_and_counts_bytes(tmp_path):
    out = tmp_path / "results.json"
    subprocess.run([sys.executable, SOURCE_DIR / "scripts" / "train-compressed", "--quick",
                    "--runs", "dense,topk-ef,dgc-ef", "--json", out], check=True, env=dict(os.environ))
    results = json.loads(out.read_text())["digits"]
    for run in results.values():
        assert sum(run["losses"][-10:]) < sum(run["losses"][:10])
    dense = results["dense"]["bytes_dense_per_step"]
    assert results["topk-ef"]["bytes_dense_per_step"] == dense
    assert 0 < results["topk-ef"]["bytes_sent_per_step"] < dense / 50
    assert 0 < results["dgc-ef"]["bytes_sent_per_step"] < results["topk-ef"]["bytes_sent_per_step"]
    # Ten digits, 360 test images: the most common digit is 37 of them, what a constant answer scores.
    for run in results.values():
        assert run["chance"] == 100.0 * 37 / 360
        assert run["no_better_than_chance"] is (run["final"] <= run["chance"])
    assert not results["dense"]["no_better_than_chance"]
