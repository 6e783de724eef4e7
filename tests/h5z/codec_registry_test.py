"""Every codec the registry declares appears everywhere a front end offers codecs.

For each row of gradcodec.codec_catalog(): in `gradcodec encode --help` (name, summary and
stated defaults), in Python (list_codecs() and h5filter's id table, where the row's filter_ok
says it runs per chunk), in the HDF5 filter (a dataset written and read back through the
plugin; refused at creation where filter_ok is false, as lowrank, fft and dct are by design),
and in `encode --target` where the row has a knob (accepted), refused where it has none.

Run with HDF5_PLUGIN_PATH naming the directory of libH5Zgradcodec.so, PYTHONPATH naming the
built python/ and GRADCODEC_CLI the gradcodec executable (ctest sets all three).
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

import gradcodec
from gradcodec.h5filter import FILTER_ID, LAYOUT_VERSION, _CODEC_IDS

CLI = os.environ["GRADCODEC_CLI"]
SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "cnn_digits.h5")
WORK = tempfile.mkdtemp()
CATALOG = gradcodec.codec_catalog()
failures = []


def check(condition, what):
    if condition:
        print("ok:", what)
    else:
        print("FAIL:", what, file=sys.stderr)
        failures.append(what)


def run(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def raw_filter_opts(codec_id, spec):
    """The filter's parameters for any id, including the ones h5filter refuses to pack."""
    data = spec.encode()
    padded = data + b"\0" * (-len(data) % 4)
    words = [LAYOUT_VERSION, codec_id, 0, 0, 0, 0, len(data)]
    return tuple(words + [int.from_bytes(padded[i : i + 4], "little") for i in range(0, len(padded), 4)])


check(len(CATALOG) == len(gradcodec.list_codecs()) >= 16, "the catalog lists every codec (%d)" % len(CATALOG))
help_text = run("encode", "--help").stdout
names = {entry["name"] for entry in gradcodec.list_codecs()}
values = np.random.default_rng(5).laplace(size=(16, 64)).astype(np.float32)

for row in CATALOG:
    name = row["name"]
    spec = name if name != "threshold" else "threshold:value=0.5"  # its one key without a default
    check(("  %s: %s" % (name, row["summary"])) in help_text, "%s: in encode --help with its summary" % name)
    if row["defaults"]:
        check(("defaults " + row["defaults"]) in help_text, "%s: encode --help states its defaults" % name)
    check(name in names, "%s: in gradcodec.list_codecs()" % name)

    # The HDF5 filter: h5filter's table holds exactly the rows that run per chunk.
    if row["filter_ok"]:
        check(_CODEC_IDS.get(name) == row["id"], "%s: h5filter packs id %d" % (name, row["id"]))
        file = os.path.join(WORK, name + ".h5")
        with h5py.File(file, "w") as f:
            f.create_dataset("x", data=values, chunks=(8, 64), **gradcodec.h5filter(spec))
        with h5py.File(file, "r") as f:
            back = f["x"][...]
            filter_id = f["x"].id.get_create_plist().get_filter(0)[0]
        check(back.shape == values.shape and filter_id == FILTER_ID,
              "%s: written and read back through the plugin, chunk by chunk" % name)
    else:
        check(name not in _CODEC_IDS, "%s: h5filter refuses it (not per chunk)" % name)
        try:
            with h5py.File(os.path.join(WORK, name + ".h5"), "w") as f:
                f.create_dataset("x", data=values, chunks=(8, 64), compression=FILTER_ID,
                                 compression_opts=raw_filter_opts(row["id"], name))
            refused = False
        except Exception:  # h5py raises what the plugin's set_local refused
            refused = True
        check(refused, "%s: the plugin refuses it per chunk, as its row says" % name)

    # --target: accepted with the row's knob, refused without one.
    knob = row["knob"]
    rate = run("encode", SAMPLE, "-o", os.path.join(WORK, "t.gcs"), "--force", "--quiet",
               "--select", "step_00000/fc.weight", "--codec", spec, "--target", "bits=4")
    if knob["kind"] in ("density", "ladder"):
        check(rate.returncode == 0, "%s: --target bits=4 turns %s (%s)" % (name, knob["key"], rate.stderr.strip()))
        check(("%s (%s)" % (name, knob["key"])) in run("encode", SAMPLE, "-o", "x", "--codec", "lossless",
                                                       "--target", "bits=4").stderr,
              "%s: named among the codecs --target bits= applies to" % name)
    else:
        check(rate.returncode == 2 and "has no knob" in rate.stderr, "%s: --target bits=4 refused, no knob" % name)
    bound = run("encode", SAMPLE, "-o", os.path.join(WORK, "a.gcs"), "--force", "--quiet",
                "--select", "step_00000/fc.weight", "--codec", spec, "--target", "abs=0.01")
    if knob["pointwise"]:
        check(bound.returncode == 0, "%s: --target abs=0.01 met per value" % name)
    else:
        check(bound.returncode == 2, "%s: --target abs=0.01 refused" % name)

if failures:
    sys.exit("%d failure(s)" % len(failures))
print("all passed")
