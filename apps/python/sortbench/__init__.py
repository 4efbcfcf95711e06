"""sortbench from Python: sort and benchmark the arrays you already hold.

Follows issue 39 (the Python face) and docs/architecture.md ("Python": a thin face over the same
library as the CLI). This file converts what the caller passes (NumPy, CuPy, PyTorch, pyarrow,
any DLPack producer), allocates outputs in the caller's framework, and calls the native module,
which runs the same Session pipeline as ``sortbench sort`` and ``sortbench run --input``.

    >>> import numpy as np, sortbench
    >>> sortbench.sort(np.array([3, 1, 2], dtype=np.uint32))
    array([1, 2, 3], dtype=uint32)
"""

from __future__ import annotations

import json
import warnings

from . import _arrays
from . import _others
from . import _sortbench

__version__: str = _sortbench.__version__
__all__ = ["sort", "argsort", "benchmark", "generate", "algorithms", "to_pandas", "last_sort", "Rows",
           "__version__"]

_last_sort: dict = {}


def _gpu_present() -> bool:
    return _sortbench.cuda_unavailable_reason() is None


def _backend(backend, column) -> str:
    if backend is not None:
        return backend
    # The GPU when there is one (a device array always sorts on its own GPU), else the CPU.
    return "gpu" if column.device >= 0 or _gpu_present() else "cpu"


def _memory_limit(gpu_memory_limit):
    """gpu_memory_limit as the CLI's --gpu-memory-limit text: bytes (int) or a size ("8G")."""
    if gpu_memory_limit is None:
        return None
    if isinstance(gpu_memory_limit, bool) or not isinstance(gpu_memory_limit, (int, str)):
        raise TypeError(f"gpu_memory_limit={gpu_memory_limit!r} is a {type(gpu_memory_limit).__name__}; give bytes "
                        "(an int) or a size such as '8G'")
    return str(gpu_memory_limit)


def sort(x, algo="auto", values=None, argsort=False, backend=None, out=None, verify=True, gpu_memory_limit=None):
    """Sort x (1-D) and return the result in x's kind of array, on x's device.

    Returns the sorted keys; (keys, values) when ``values`` rides along; the permutation
    (int64, as ``numpy.argsort(kind="stable")``) when ``argsort`` is true. ``algo="auto"``
    chooses as ``sortbench sort --algo auto`` does. ``out=x`` writes the keys into x itself;
    for an array on a GPU that is a sort in place, x's own memory being the sort's input and
    output (zero copy). ``verify=False`` skips the check of the result and, on the GPU, the copy
    of the input it needs. ``gpu_memory_limit`` (bytes, or a size such as ``"8G"``; a host
    array only): the GPU memory the sort may use; an array that needs more, or more than the GPU
    has, streams through the GPU in chunks, as ``sortbench sort --gpu-memory-limit`` does a file
    (``last_sort()["placement"] == "host"``). ``last_sort()`` tells what ran and what it allocated.
    Raises TypeError for an unsupported dtype, ValueError for a non-1-D array, NaN keys, nulls,
    a read-only or non-contiguous ``out``, MemoryError when the GPU or pinned host memory lacks room.
    """
    column = _arrays.column(x, "x")
    value_column = _arrays.column(values, "values") if values is not None else None
    if out is not None and argsort:
        raise ValueError("out receives sorted keys but argsort returns positions; drop one of them")
    limit = _memory_limit(gpu_memory_limit)
    if column.device >= 0 and backend in (None, "gpu"):
        if limit is not None:
            raise ValueError("gpu_memory_limit is for a host array (x is on a GPU already, sorted where it lies); "
                             "drop gpu_memory_limit")
        return _sort_on_device(column, value_column, bool(argsort), algo, out, bool(verify))
    if not verify:
        raise ValueError("verify=False is taken for arrays on a GPU only (a host array's check needs no copy on "
                         "the GPU); drop verify")
    out_keys = None
    if not argsort:
        out_keys = _arrays.writable_like(out, column) if out is not None else column.empty_like()
    out_values = None
    if argsort:
        out_values = column.empty_positions()
    elif value_column is not None:
        out_values = value_column.empty_like()
    report = _sortbench.sort_arrays(
        column.data, column.dtype, value_column.data if value_column else None,
        value_column.dtype if value_column else "", bool(argsort), algo, _backend(backend, column),
        out_keys.data if out_keys is not None else None, out_values.data if out_values is not None else None,
        column.producer_stream(), limit)
    _remember(report)
    if argsort:
        return out_values.result()
    if value_column is not None:
        return out_keys.result(), out_values.result()
    return out_keys.result()


def _sort_on_device(column, value_column, argsort, algo, out, verify):
    """An array on a GPU sorted there, in memory of its own framework (issue 39, zero copy):
    the keys are sorted in out's memory when out is given (x copied into it first unless out is
    x), else in a new array of x's kind holding a copy of x, so x stays as numpy.sort leaves it;
    values likewise in a copy; argsort sorts a copy of the keys and returns int64 positions made
    on the device. Nothing passes through host memory."""
    if value_column is not None and value_column.device != column.device:
        raise ValueError("values and x live on different devices; move them to the same one")
    extra = 0  # bytes this function allocates on the device beside the caller's arrays
    positions = None
    if argsort:
        keys = column.copy()
        positions = column.empty_positions()
        extra += _nbytes(keys.data) + _nbytes(positions.data)
    elif out is not None:
        keys = _arrays.writable_like(out, column)
        if _arrays.data_ptr(keys.data, column.framework) != column.data_ptr():
            _arrays.copy_into(keys.data, column)
    else:
        keys = column.copy()
        extra += _nbytes(keys.data)
    vals = None
    if value_column is not None:
        vals = value_column.copy()
        extra += _nbytes(vals.data)
    # After the copies, which were queued on the producer's stream: the sort waits for them too.
    stream = column.producer_stream()
    report = _sortbench.sort_device_arrays(
        keys.data, column.dtype, vals.data if vals is not None else None,
        value_column.dtype if value_column is not None else "", positions.data if positions is not None else None,
        algo, verify, stream)
    report["memory"]["result_arrays_bytes"] = extra
    _remember(report)
    if argsort:
        return positions.result()
    if vals is not None:
        return keys.result(), vals.result()
    return keys.result()


def _nbytes(data) -> int:
    return int(data.nbytes) if hasattr(data, "nbytes") else int(data.numel() * data.element_size())


def _remember(report) -> None:
    _last_sort.clear()
    _last_sort.update(report)


def last_sort() -> dict:
    """What the last ``sort`` (or ``argsort``) did: ``algorithm`` and ``why`` it was chosen,
    ``verified_on`` ("gpu", "host" or "none"), ``path`` ("device": sorted in the caller's GPU
    memory, nothing through host memory; "host": the result came back through host memory), and
    for the device path ``result_copy`` ("none", "keys" or "keys,values": what was copied back,
    device to device, from the scratch column the algorithm left its result in) and ``memory``
    (bytes on the GPU: ``workspace_bytes`` the algorithm's, ``buffer_bytes`` the scratch
    column and the verifier's copy, ``peak_bytes`` measured above what was in use before,
    ``result_arrays_bytes`` the arrays allocated in x's framework)."""
    return dict(_last_sort)


def argsort(x, algo="auto", backend=None):
    """The stable sorting permutation of x as int64 indices, like ``numpy.argsort(kind="stable")``."""
    return sort(x, algo=algo, argsort=True, backend=backend)


class Rows(list):
    """Result rows (dicts of docs/schema.md's JSON schema) with the run's context."""

    def __init__(self, rows, context, schema_version):
        super().__init__(rows)
        self.context = context
        self.schema_version = schema_version

    def document(self) -> dict:
        """The rows as ``sortbench run --json`` writes them: schema version, context, results."""
        return {"schema_version": self.schema_version, "context": self.context, "results": list(self)}

    def write_json(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.document(), f, indent=2)
            f.write("\n")


# benchmark()'s names before they took the CLI's spellings (issue 49 item 2): still accepted, with
# a DeprecationWarning naming the new one.
_OLD_BENCHMARK_NAMES = {"algos": "algo", "max_noise_pct": "max_noise", "budget_s": "budget"}


def benchmark(x, algo=("all",), reps=10, max_noise=1.0, range="measured", values=None, others=None,
              backend=None, warmup=1, budget=2.0, flush_l2=True, gpu_memory_limit=None, **old_names) -> Rows:
    """Time algorithms on x as ``sortbench run --input`` does, and return the rows.

    The options are the CLI's, spelled for Python: ``algo`` names or prefixes (``"hp*"``) or
    ``"all"``, one string (comma list) or a list; ``reps``, ``warmup``; ``max_noise`` (percent)
    and ``budget`` (seconds) as ``--max-noise`` and ``--budget``; ``gpu_memory_limit`` as
    ``--gpu-memory-limit`` (an array that needs more streams through the GPU). ``others``:
    ``{"name": callable}`` sorts of your own, each called on an array of its framework (a
    ``torch`` callable gets a tensor, a ``cupy`` one a CuPy array, else x's kind) and timed under
    the same method: input restored untimed, L2 flushed, CUDA events, the same stop rule. A
    callable returning a new array pays for one copy of it back into the run's buffer, timed.
    Every row carries ``details["interface"] == "python"``. The old names ``algos``,
    ``max_noise_pct`` and ``budget_s`` still work and warn.
    """
    given = {"algo": algo, "max_noise": max_noise, "budget": budget}
    defaults = {"algo": ("all",), "max_noise": 1.0, "budget": 2.0}
    for old, value in old_names.items():
        if old not in _OLD_BENCHMARK_NAMES:
            raise TypeError(f"benchmark() got an unexpected keyword argument '{old}'")
        new = _OLD_BENCHMARK_NAMES[old]
        warnings.warn(f"benchmark({old}=...) is now {new}=..., as the CLI spells it; {old} will go",
                      DeprecationWarning, stacklevel=2)
        if given[new] is not defaults[new] and given[new] != defaults[new]:
            raise TypeError(f"benchmark() got both {old} and {new}; give {new} alone")
        given[new] = value
    algo, max_noise, budget = given["algo"], given["max_noise"], given["budget"]
    column = _arrays.column(x, "x")
    value_column = _arrays.column(values, "values") if values is not None else None
    settings = _sortbench.BenchmarkSettings()
    settings.algos = ",".join(algo) if not isinstance(algo, str) else algo
    settings.backend = _backend(backend, column)
    settings.range = range
    settings.reps = int(reps)
    settings.warmup = int(warmup)
    settings.max_noise_pct = float(max_noise)
    settings.budget_s = float(budget)
    settings.gpu_memory_limit = _memory_limit(gpu_memory_limit)
    settings.flush_l2 = bool(flush_l2)
    callables = [(str(name), fn) for name, fn in (others or {}).items()]
    for name, fn in callables:
        if not callable(fn):
            raise TypeError(f"others['{name}'] is not callable; give a function that sorts an array")
    document = json.loads(_sortbench.benchmark_arrays(
        column.data, column.dtype, value_column.data if value_column else None,
        value_column.dtype if value_column else "", settings, callables,
        _others.runner(column.framework), column.producer_stream()))
    for row in document["results"]:
        if column.notes:
            row["details"]["input_note"] = "; ".join(column.notes)
    return Rows(document["results"], document["context"], document["schema_version"])


def generate(n=None, delta=None, sigma=None, len=None, min_val=None, max_val=None, dist="uniform", key="u32",
             seed=1, entropy=None, device="cuda"):
    """The suite's generator (docs/inputs.md): keys on the GPU (CuPy, else PyTorch) or, with
    ``device="cpu"``, a NumPy array. The same parameters give the same keys as ``sortbench gen``."""
    request = dict(n=n, delta=delta, sigma=sigma, len=len, min_val=min_val, max_val=max_val, dist=dist, key=key,
                   seed=seed, entropy=entropy)
    count, key_type = _sortbench.generated_shape(request)
    if device == "cpu":
        out = _arrays.host_empty(count, key_type)
    elif device == "cuda":
        why = _sortbench.cuda_unavailable_reason()
        if why is not None:
            raise RuntimeError(f"{why}; give device='cpu' to generate into a NumPy array")
        out = _arrays.device_empty(count, key_type)
    else:
        raise ValueError(f"device '{device}' is neither 'cuda' nor 'cpu'; give one of them")
    _sortbench.generate_into(request, out)
    return out


def algorithms() -> list:
    """What ``sortbench list --details`` shows: one dict per registered algorithm."""
    return _sortbench.algorithms()


def to_pandas(rows):
    """The rows as a pandas DataFrame, nested fields flattened (``timing.median_ms``)."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("to_pandas needs pandas; pip install pandas") from e
    return pandas.json_normalize(list(rows))
