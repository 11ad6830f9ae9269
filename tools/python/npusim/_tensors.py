"""Tensors in and out of the extension: (dtype name, C-contiguous numpy storage) pairs.

numpy arrays and torch tensors are accepted. bf16 travels as its uint16 bits, int4 as one int8 per value
in [-8, 7] (FIA also takes torch_npu's int4 packing, eight values per int32, as int32 tensors). Outputs come
back as the kind that went in: torch tensors (bf16 as torch.bfloat16) when any input was a torch tensor, else
numpy arrays (bf16 as float32, exactly: numpy has no bfloat16).
"""
import numpy as np

from . import _npusim

try:  # torch is optional: only the torch paths need it
    import torch
except ImportError:  # pragma: no cover - exercised where torch is absent
    torch = None

_NUMPY_DTYPES = {
    np.dtype("float16"): "float16",
    np.dtype("float32"): "float32",
    np.dtype("int8"): "int8",
    np.dtype("uint8"): "uint8",
    np.dtype("int32"): "int32",
    np.dtype("int64"): "int64",
    np.dtype("bool"): "bool",
    np.dtype("uint16"): "uint16",
    np.dtype("uint64"): "uint64",
}


class Tensor:
    """A tensor with an explicit npusim dtype, for what numpy cannot say: Tensor("bfloat16", uint16_bits),
    Tensor("int4", int8_values_in_-8..7), Tensor("int4_packed", int32_words) (eight int4 per int32, low nibble
    first, as torch_npu packs them)."""

    def __init__(self, dtype, data):
        self.dtype = dtype
        self.data = data

    def __repr__(self):
        return f"npusim.Tensor({self.dtype!r}, shape={tuple(np.shape(self.data))})"


def is_torch(x):
    return torch is not None and isinstance(x, torch.Tensor)


def unpack_int4(words):
    """int32 words holding eight int4 values each (low nibble first) -> int8 values, last dim x 8."""
    w = np.ascontiguousarray(words, dtype=np.int32).view(np.uint32)
    if w.ndim == 0:
        raise TypeError("int4_packed: expected at least one dimension of int32 words")
    nibbles = ((w[..., None] >> (np.arange(8, dtype=np.uint32) * 4)) & 0xF).astype(np.int8)
    vals = np.where(nibbles > 7, nibbles - 16, nibbles).astype(np.int8)
    return vals.reshape(*w.shape[:-1], w.shape[-1] * 8)


def _torch_storage(name, t):
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return "bfloat16", t.view(torch.int16).numpy().view(np.uint16)
    names = {torch.float16: "float16", torch.float32: "float32", torch.int8: "int8", torch.uint8: "uint8",
             torch.int32: "int32", torch.int64: "int64", torch.bool: "bool"}
    if t.dtype not in names:
        raise TypeError(f"{name}: torch dtype {t.dtype} is not one npusim takes "
                        "(float16, bfloat16, float32, int8, uint8, int32, int64, bool; int4 packed in int32)")
    return names[t.dtype], t.numpy()


def to_storage(name, x):
    """One tensor -> (dtype name, contiguous numpy storage)."""
    if isinstance(x, Tensor):
        if x.dtype == "int4_packed":
            return "int4", unpack_int4(x.data.numpy() if is_torch(x.data) else x.data)
        data = x.data.detach().cpu().numpy() if is_torch(x.data) else np.asarray(x.data)
        storage = np.dtype(_npusim.storage_dtype(x.dtype))
        if x.dtype == "bfloat16" and data.dtype == np.int16:
            data = data.view(np.uint16)
        if data.dtype != storage:
            raise TypeError(f"{name}: npusim.Tensor({x.dtype!r}) needs {storage} data, got {data.dtype}")
        return x.dtype, np.ascontiguousarray(data)
    if is_torch(x):
        return _torch_storage(name, x)
    if isinstance(x, np.ndarray):
        if x.dtype not in _NUMPY_DTYPES:
            takes = ", ".join(_NUMPY_DTYPES.values())
            raise TypeError(f"{name}: numpy dtype {x.dtype} is not one npusim takes ({takes}; "
                            "bf16 / int4 through npusim.Tensor)")
        return _NUMPY_DTYPES[x.dtype], np.ascontiguousarray(x)
    raise TypeError(f"{name}: expected a torch tensor, a numpy array or npusim.Tensor, got {type(x).__name__}")


def from_storage(dtype, a, as_torch):
    """(dtype name, numpy storage) from the extension -> torch tensor or numpy array."""
    if dtype == "bfloat16":
        if as_torch:
            return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
        return (a.astype(np.uint32) << 16).view(np.float32)
    return torch.from_numpy(a) if as_torch else a
