"""The caller's own sorts, timed by sortbench (issue 39 item 1, ``benchmark(others=...)``).

The native module runs each callable as one more algorithm of the run, so it is timed by the
same loop as sortbench's own (input restored untimed, L2 flushed, CUDA events, the same stop
rule). It calls the runner below with the run's buffers as addresses; the runner wraps them as
arrays of the callable's framework, calls it on the run's stream, and puts the result where the
verifier reads it."""

from __future__ import annotations

import numpy

_KEY_DTYPES = {"u32": "<u4", "i32": "<i4", "u64": "<u8", "i64": "<i8", "f32": "<f4", "f64": "<f8"}


class _DeviceBuffer:
    """A run's device buffer, as __cuda_array_interface__ (v3) describes it to CuPy and PyTorch."""

    def __init__(self, address: int, n: int, typestr: str):
        # stream None: the caller orders the work (the runner makes the run's stream current).
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (address, False),
                                         "version": 3, "strides": None, "stream": None}


def _host_view(address: int, n: int, typestr: str):
    dtype = numpy.dtype(typestr)
    if n == 0:
        return numpy.empty(0, dtype=dtype)
    import ctypes
    raw = (ctypes.c_char * (n * dtype.itemsize)).from_address(address)
    return numpy.frombuffer(raw, dtype=dtype)


def _framework_of(fn, default: str) -> str:
    module = (getattr(fn, "__module__", None) or "").split(".")[0]
    if module in ("torch", "cupy", "cupyx", "numpy"):
        return "cupy" if module == "cupyx" else module
    return default


def _first(result):
    # torch.sort returns (values, indices): the keys are what the verifier reads.
    return result[0] if isinstance(result, tuple) else result


def _run_cupy(fn, source, scratch, device: int, stream: int):
    import cupy
    with cupy.cuda.Device(device), cupy.cuda.ExternalStream(stream):
        keys = cupy.asarray(source)
        result = _first(fn(keys))
        if result is None or result.data.ptr == keys.data.ptr:
            return 0  # sorted in place
        cupy.asarray(scratch)[...] = result
    return 1


def _run_torch(fn, source, scratch, device: int, stream: int):
    import torch
    where = torch.device("cuda", device)
    with torch.cuda.device(where), torch.cuda.stream(torch.cuda.ExternalStream(stream, device=where)):
        keys = torch.as_tensor(source, device=where)
        result = _first(fn(keys))
        if result is None or result.data_ptr() == keys.data_ptr():
            return 0
        torch.as_tensor(scratch, device=where).copy_(result)
    return 1


def runner(default_framework: str):
    """The function the native module calls for each sample of a callable."""
    device_default = default_framework if default_framework in ("cupy", "torch") else "cupy"

    def run(fn, address: int, scratch: int, n: int, key: str, stream: int, device: int) -> int:
        typestr = _KEY_DTYPES[key]
        if device < 0:
            keys = _host_view(address, n, typestr)
            result = _first(fn(keys))
            if result is not None and result is not keys:
                numpy.copyto(keys, result)
            return 0
        source, target = _DeviceBuffer(address, n, typestr), _DeviceBuffer(scratch, n, typestr)
        if _framework_of(fn, device_default) == "torch":
            return _run_torch(fn, source, target, device, stream)
        return _run_cupy(fn, source, target, device, stream)

    return run
