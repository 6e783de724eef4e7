"""StreamWriter publishes its file atomically and safely: it never follows a name planted in
its way, never replaces an existing file unless overwrite=True, never loses a committed file
to a second writer, and leaves nothing behind when it fails."""
import os
import signal
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gradcodec
from conftest import gradient_like


def write_stream(path, values, **kwargs):
    with gradcodec.StreamWriter(path, **kwargs) as writer:
        writer.write("x", values)


def read_back(path):
    return [(name, values) for name, values, _ in gradcodec.read_stream(path)]


def test_a_symlink_planted_at_the_old_temporary_name_is_not_followed(tmp_path, rng):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    path = tmp_path / "dump.gcs"
    planted = tmp_path / f"dump.gcs.tmp-gradcodec-{os.getpid()}"
    planted.symlink_to(victim)
    x = gradient_like(rng, 100)
    write_stream(path, x)
    assert victim.read_bytes() == b"precious"
    assert planted.is_symlink() and os.readlink(planted) == str(victim)
    assert not path.is_symlink()
    [(name, back)] = read_back(path)
    np.testing.assert_array_equal(back, x)


def test_an_existing_file_is_refused_without_overwrite_and_replaced_with_it(tmp_path, rng):
    path = tmp_path / "dump.gcs"
    path.write_bytes(b"old contents")
    os.chmod(path, 0o640)
    with pytest.raises(gradcodec.UsageError, match="already exists.*overwrite=True"):
        write_stream(path, gradient_like(rng, 10))
    assert path.read_bytes() == b"old contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dump.gcs"]

    x = gradient_like(rng, 10)
    write_stream(path, x, overwrite=True)
    [(name, back)] = read_back(path)
    np.testing.assert_array_equal(back, x)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # the replaced file's mode is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dump.gcs"]


def test_a_non_regular_file_is_never_replaced_even_with_overwrite(tmp_path, rng):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    link = tmp_path / "link.gcs"
    link.symlink_to(victim)
    fifo = tmp_path / "pipe.gcs"
    os.mkfifo(fifo)
    for target in (link, fifo, tmp_path):
        with pytest.raises(gradcodec.UsageError):
            write_stream(target, gradient_like(rng, 10), overwrite=True)
    assert link.is_symlink() and victim.read_bytes() == b"precious"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.gcs", "pipe.gcs", "victim.txt"]


def test_two_writers_to_one_path_never_lose_the_first_writers_file(tmp_path, rng):
    path = tmp_path / "dump.gcs"
    first, second = gradient_like(rng, 1000), gradient_like(rng, 3000)
    a = gradcodec.StreamWriter(path)
    b = gradcodec.StreamWriter(path)
    a.write("a", first)
    b.write("b", second)
    a.close()
    with pytest.raises(gradcodec.UsageError, match="already exists"):
        b.close()
    [(name, back)] = read_back(path)
    assert name == "a"
    np.testing.assert_array_equal(back, first)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dump.gcs"]


def test_two_writers_with_overwrite_replace_the_file_whole(tmp_path, rng):
    path = tmp_path / "dump.gcs"
    first, second = gradient_like(rng, 1000), gradient_like(rng, 3000)
    a = gradcodec.StreamWriter(path, overwrite=True)
    b = gradcodec.StreamWriter(path, overwrite=True)
    a.write("a", first)
    b.write("b", second)
    a.close()
    b.close()
    [(name, back)] = read_back(path)
    assert name == "b"
    np.testing.assert_array_equal(back, second)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dump.gcs"]


def test_a_writer_killed_mid_stream_leaves_no_temporary_file(tmp_path):
    script = textwrap.dedent(f"""
        import os, signal, sys
        import numpy as np
        import gradcodec
        writer = gradcodec.StreamWriter({str(tmp_path / "dump.gcs")!r})
        writer.write("x", np.ones(1 << 16, dtype=np.float32))
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", script], env=os.environ.copy())
    assert done.returncode == -signal.SIGKILL
    assert list(tmp_path.iterdir()) == []


def test_a_failed_commit_leaves_no_temporary_file(tmp_path, rng):
    path = tmp_path / "dump.gcs"
    writer = gradcodec.StreamWriter(path)
    writer.write("x", gradient_like(rng, 100))
    path.write_bytes(b"appeared meanwhile")
    with pytest.raises(gradcodec.UsageError, match="already exists"):
        writer.close()
    assert path.read_bytes() == b"appeared meanwhile"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dump.gcs"]
