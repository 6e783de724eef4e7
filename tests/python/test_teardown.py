"""Multi-rank runs end: a 4-rank DDP run through the hook, ending as docs/python.md's teardown
recipe says, exits cleanly 20 times in a row, each within a minute (a hang at exit fails the
run)."""
import os
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).with_name("teardown_four_ranks.py")


def test_twenty_four_rank_runs_exit_cleanly():
    for run in range(20):
        try:
            done = subprocess.run([sys.executable, str(SCRIPT), "4"], env=dict(os.environ),
                                  capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"run {run} did not exit within 60 s") from None
        assert done.returncode == 0, f"run {run}: exit {done.returncode}\n{done.stderr[-2000:]}"
