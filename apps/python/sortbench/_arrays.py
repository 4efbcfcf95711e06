"""The caller's arrays as columns the native module takes (issue 39 item 1, "conversion and
errors in"): which framework holds them, on which device, made 1-D contiguous where a copy is
allowed, outputs allocated in the same framework. Messages are the CLI's one-line kind."""

from __future__ import annotations

import numpy

SUPPORTED = ("int32", "uint32", "int64", "uint64", "float32", "float64")
_KEY_DTYPES = {"u32": "uint32", "i32": "int32", "u64": "uint64", "i64": "int64", "f32": "float32", "f64": "float64"}


def _framework(x) -> str:
    module = type(x).__module__.split(".")[0]
    if module in ("numpy", "cupy", "torch", "pyarrow"):
        return module
    if module in ("jax", "jaxlib"):
        return "jax"
    if hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__"):
        return "dlpack"
    return "python"  # a list or tuple: made a NumPy array


def _jax_on_cpu(x) -> bool:
    try:
        return all(d.platform == "cpu" for d in x.devices())
    except (AttributeError, TypeError):
        return False


def _dtype_name(x, framework: str) -> str:
    if framework == "torch":
        return str(x.dtype).rsplit(".", 1)[-1]
    return numpy.dtype(x.dtype).name if hasattr(x, "dtype") else "unknown"


def _refuse_dtype(dtype: str, role: str):
    # The native module says the same for a producer this file does not know.
    what = "keys" if role == "x" else role
    raise TypeError(f"{what} of dtype {dtype} cannot be sorted; give one of {', '.join(SUPPORTED)}")


class Column:
    """One 1-D array as the native module takes it, and how to give results back in its kind."""

    def __init__(self, data, framework: str, device: int, original_kind: str, notes=()):
        self.data = data
        self.framework = framework
        self.device = device
        self.original_kind = original_kind
        self.notes = list(notes)

    @property
    def dtype(self) -> str:
        return _dtype_name(self.data, self.framework)

    def __len__(self):
        return int(self.data.shape[0])

    def _empty(self, dtype):
        n = len(self)
        if self.framework == "numpy":
            return numpy.empty(n, dtype=dtype)
        if self.framework == "cupy":
            import cupy
            with cupy.cuda.Device(self.device):
                return cupy.empty(n, dtype=dtype)
        if self.framework == "torch":
            import torch
            return torch.empty(n, dtype=getattr(torch, numpy.dtype(dtype).name), device=self.data.device)
        raise AssertionError(self.framework)

    def empty_like(self) -> "Output":
        return Output(self._empty(self.dtype), self)

    def empty_positions(self) -> "Output":
        return Output(self._empty("int64"), self)

    def copy(self) -> "Output":
        """A new array of x's kind on x's device holding x (one device-to-device copy, queued on
        the producer's current stream): what a sort that must leave x unchanged works in."""
        out = self.empty_like()
        copy_into(out.data, self)
        return out

    def data_ptr(self) -> int:
        return data_ptr(self.data, self.framework)

    def producer_stream(self) -> int:
        # The producer's queued work must be done before the sort reads the array: the native
        # source waits for this stream with an event, and the legacy default stream (0) is
        # synchronized here, since an event on it says nothing to a non-blocking stream.
        if self.framework == "cupy":
            import cupy
            stream = cupy.cuda.get_current_stream()
            if stream.ptr == 0:
                stream.synchronize()
            return int(stream.ptr)
        if self.framework == "torch" and self.device >= 0:
            import torch
            stream = torch.cuda.current_stream(self.data.device)
            if stream.cuda_stream == 0:
                stream.synchronize()
            return int(stream.cuda_stream)
        return 0


class Output:
    """An output array and how to hand it back in the caller's kind."""

    def __init__(self, data, like: Column):
        self.data = data
        self.like = like

    def result(self):
        kind = self.like.original_kind
        if kind == "torch-cpu":
            import torch
            return torch.from_numpy(self.data)
        if kind == "pyarrow":
            import pyarrow
            return pyarrow.array(self.data)
        if kind == "pyarrow-chunked":
            # The same kind as the input (issue 47 item 6): a ChunkedArray, of one chunk.
            import pyarrow
            return pyarrow.chunked_array([pyarrow.array(self.data)])
        if kind == "jax":
            import jax.numpy
            # A GPU result leaves CuPy by DLPack, without a copy; a host one is copied into JAX.
            return jax.numpy.from_dlpack(self.data) if self.like.framework == "cupy" else jax.numpy.asarray(self.data)
        return self.data


def _from_arrow(x, role: str):
    import pyarrow
    if isinstance(x, pyarrow.ChunkedArray):
        if x.null_count:
            raise ValueError(f"{role} holds {x.null_count} nulls, which have no place in an order; drop them "
                             "(pyarrow.compute.drop_null) or fill them")
        x = x.combine_chunks() if x.num_chunks != 1 else x.chunk(0)
    if x.null_count:
        raise ValueError(f"{role} holds {x.null_count} nulls, which have no place in an order; drop them "
                         "(pyarrow.compute.drop_null) or fill them")
    if not pyarrow.types.is_integer(x.type) and not pyarrow.types.is_floating(x.type):
        _refuse_dtype(str(x.type), role)
    return x.to_numpy(zero_copy_only=False)


def _refuse_device_nans(x, role: str):
    nan = x != x
    if bool(nan.any()):
        count = int(nan.sum())
        # argmax of the flags as small integers (CuPy's and PyTorch's argmax do not all take bool).
        first = int((nan.int() if hasattr(nan, "int") else nan.astype("int8")).argmax())
        raise ValueError(f"{role}: {count} NaN keys, the first at position {first}; NaN has no place in an order: "
                         "remove them or replace them")


def column(x, role: str) -> Column:
    """x as a 1-D contiguous column: a strided array is copied once (noted), others refused."""
    framework = _framework(x)
    kind = framework
    if framework == "pyarrow":
        import pyarrow
        kind = "pyarrow-chunked" if isinstance(x, pyarrow.ChunkedArray) else "pyarrow"
        x, framework = _from_arrow(x, role), "numpy"
    elif framework == "python":
        x, framework, kind = numpy.asarray(x), "numpy", "numpy"
    elif framework == "torch" and not x.is_cuda:
        x, framework, kind = x.detach().numpy(), "numpy", "torch-cpu"
    elif framework == "jax" and _jax_on_cpu(x):
        # A JAX array in host memory: NumPy's view of it, the result handed back as a JAX array.
        x, framework, kind = numpy.asarray(x), "numpy", "jax"
    elif framework in ("jax", "dlpack"):
        # Any DLPack producer: read through CuPy, which takes DLPack and __cuda_array_interface__
        # without a copy (JAX's results are handed back as JAX arrays).
        try:
            import cupy
        except ImportError as e:
            raise TypeError(f"{role} is a {type(x).__name__}, which sortbench reads through CuPy; pip install "
                            "cupy, or pass a NumPy array") from e
        x = cupy.from_dlpack(x) if hasattr(x, "__dlpack__") else cupy.asarray(x)
        kind = "jax" if framework == "jax" else "cupy"
        framework = "cupy"
    notes = []
    if x.ndim != 1:
        raise ValueError(f"{role} must be a 1-D array, not {x.ndim}-D; pass a column (e.g. x.ravel() or x[:, k])")
    dtype = _dtype_name(x, framework)
    if dtype not in SUPPORTED and role == "x":
        _refuse_dtype(dtype, role)
    device = -1
    if framework == "numpy":
        if not x.dtype.isnative:
            x, notes = x.astype(x.dtype.newbyteorder("=")), ["byte-swapped once to native order"]
        if not x.flags.c_contiguous:
            x, notes = numpy.ascontiguousarray(x), notes + ["strided: copied once"]
    elif framework == "cupy":
        import cupy
        device = int(x.device.id)
        if not x.flags.c_contiguous:
            x, notes = cupy.ascontiguousarray(x), ["strided: copied once"]
    elif framework == "torch":
        x = x.detach()  # DLPack refuses a tensor that requires grad; the sort is no part of a graph
        device = int(x.device.index if x.device.index is not None else 0)
        if not x.is_contiguous():
            x, notes = x.contiguous(), ["strided: copied once"]
    if device >= 0 and role == "x" and dtype.startswith("float"):
        _refuse_device_nans(x, role)
    return Column(x, framework, device, kind, notes)


def writable_like(out, like: Column) -> Output:
    """out as the destination of sorted keys: x's kind, length, dtype and device, writable and
    contiguous (in place cannot copy)."""
    framework = _framework(out)
    if framework == "jax":
        raise ValueError("out is a JAX array, which is immutable; leave out= unset and use the returned array")
    if framework == "torch" and not out.is_cuda:
        data = out.detach().numpy()
    else:
        data = out
    if _framework(data) != like.framework:
        raise ValueError(f"out is a {type(out).__name__} but x is a {type(like.data).__name__}; give out of x's kind")
    if int(data.shape[0]) != len(like) or data.ndim != 1 or _dtype_name(data, like.framework) != like.dtype:
        raise ValueError(f"out must be 1-D with x's length ({len(like)}) and dtype ({like.dtype})")
    if like.framework == "numpy":
        if not data.flags.writeable:
            raise ValueError("out is read-only; pass a writable array (or drop out= to get a new one)")
        if not data.flags.c_contiguous:
            raise ValueError("out is not contiguous, so it cannot be written in place; drop out= or pass a "
                             "contiguous array")
    elif like.framework == "cupy" and not data.flags.c_contiguous or like.framework == "torch" and \
            not data.is_contiguous():
        raise ValueError("out is not contiguous, so it cannot be written in place; drop out= or pass a "
                         "contiguous array")
    result = Output(data, like)
    if framework == "torch" and not out.is_cuda:
        result.result = lambda: out
    return result


def data_ptr(data, framework: str) -> int:
    if framework == "cupy":
        return int(data.data.ptr)
    if framework == "torch":
        return int(data.data_ptr())
    return int(data.ctypes.data)


def copy_into(target, source: Column) -> None:
    """source's elements into target (same kind, length and device), by its own framework."""
    if source.framework == "cupy":
        import cupy
        with cupy.cuda.Device(source.device):
            cupy.copyto(target, source.data)
    elif source.framework == "torch":
        target.copy_(source.data)
    else:
        numpy.copyto(target, source.data)


def host_empty(n: int, key: str):
    return numpy.empty(n, dtype=_KEY_DTYPES[key])


def device_empty(n: int, key: str):
    try:
        import cupy
        return cupy.empty(n, dtype=_KEY_DTYPES[key])
    except ImportError:
        pass
    try:
        import torch
        return torch.empty(n, dtype=getattr(torch, _KEY_DTYPES[key]), device="cuda")
    except ImportError as e:
        raise RuntimeError("device='cuda' returns a CuPy array or a PyTorch tensor, and neither is installed; "
                           "pip install cupy, or give device='cpu'") from e
