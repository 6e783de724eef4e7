"""gradcodec: lossy and lossless codecs for deep-learning gradients."""
from .h5filter import FILTER_ID, h5filter

__all__ = ["FILTER_ID", "h5filter"]
