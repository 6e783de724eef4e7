"""Points the HDF5 library that h5py uses at the filter plugin inside this package.

`import gradcodec` calls watch_h5py(): where h5py is imported already, the package's _plugins/
directory is prepended to HDF5's plugin search path at once (h5py.h5pl.prepend); otherwise a
finder on sys.meta_path does it right after h5py's first import, so importing gradcodec never
imports h5py itself. HDF5 then loads libH5Zgradcodec.so from there the first time it meets a
dataset filtered by gradcodec, with no HDF5_PLUGIN_PATH set. The package's plugin comes before
the directories of HDF5_PLUGIN_PATH.
"""

import importlib.abc
import os
import sys
import warnings

PLUGIN_NAME = "libH5Zgradcodec.so"
_PLUGIN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_plugins")


def plugin_dir():
    """The directory of the package's libH5Zgradcodec.so, or None where it has none (a build
    without the HDF5 filter, GRADCODEC_H5Z=OFF)."""
    return _PLUGIN_DIR if os.path.isfile(os.path.join(_PLUGIN_DIR, PLUGIN_NAME)) else None


def register(h5py):
    """Prepends plugin_dir() to the plugin path of h5py's HDF5 unless it is there already.
    Returns whether the path now holds it (False where the package has no plugin)."""
    directory = plugin_dir()
    if directory is None:
        return False
    from h5py import h5pl

    encoded = os.fsencode(directory)
    if encoded not in (h5pl.get(index) for index in range(h5pl.size())):
        h5pl.prepend(encoded)
    return True


def _register_quietly(h5py):
    # A failure here must not fail the user's `import h5py`: it becomes a warning that says
    # how to do by hand what could not be done.
    try:
        register(h5py)
    except Exception as error:  # noqa: BLE001 (h5py raises RuntimeError, ValueError, ...)
        warnings.warn(f"gradcodec: could not add {_PLUGIN_DIR} to the HDF5 plugin path of h5py ({error}); "
                      f"set HDF5_PLUGIN_PATH={_PLUGIN_DIR} to read gradcodec-filtered datasets",
                      RuntimeWarning, stacklevel=2)


class _RegisterAfter(importlib.abc.Loader):
    """h5py's own loader, which registers the plugin once h5py's module has run."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # h5py's spec gets its own loader back before anything else sees it.
        module.__spec__.loader = module.__loader__ = self._loader
        self._loader.exec_module(module)
        _register_quietly(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _H5pyFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: on the first import of h5py it takes h5py's spec from the finders
    after it, wraps the loader, and leaves sys.meta_path."""

    def find_spec(self, name, path=None, target=None):
        if name != "h5py":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _RegisterAfter(spec.loader)
                return spec
        return None


def watch_h5py():
    """Registers the plugin with h5py now if h5py is imported, else right after its import."""
    if plugin_dir() is None:
        return
    h5py = sys.modules.get("h5py")
    if h5py is not None:
        _register_quietly(h5py)
    elif not any(isinstance(finder, _H5pyFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _H5pyFinder())
