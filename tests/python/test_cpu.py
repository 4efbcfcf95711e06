# The Python face on the CPU backend (issue 39, the CPU bar): sort / argsort / values / benchmark
# on NumPy arrays of the six key dtypes agree with NumPy, and every error a caller can make is
# one line of the documented exception type.
import numpy as np
import pytest

import sortbench

DTYPES = ["int32", "uint32", "int64", "uint64", "float32", "float64"]


def keys_of(dtype, n=5000, seed=7):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x = rng.integers(-300, 300, n).astype(dtype) / 4
        x[:4] = [-0.0, 0.0, np.inf, -np.inf]
        return x
    info = np.iinfo(dtype)
    x = rng.integers(0, 400, n).astype(dtype)  # duplicates, a small range (the H-P sorts apply)
    x[:2] = [info.min, info.max]
    return x


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_agrees_with_numpy(dtype):
    x = keys_of(dtype)
    before = x.copy()
    got = sortbench.sort(x, backend="cpu")
    assert got.dtype == x.dtype and isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, np.sort(x, kind="stable"))
    np.testing.assert_array_equal(x, before)  # the input is left as it was


@pytest.mark.parametrize("dtype", DTYPES)
def test_argsort_is_numpys_stable_argsort(dtype):
    x = keys_of(dtype)
    got = sortbench.argsort(x, backend="cpu")
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(sortbench.sort(x, argsort=True, backend="cpu"), got)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value_dtype", ["int32", "float64"])
def test_values_ride_along_in_stable_order(dtype, value_dtype):
    x = keys_of(dtype)
    v = np.arange(len(x)).astype(value_dtype) * 3
    keys, values = sortbench.sort(x, values=v, backend="cpu")
    order = np.argsort(x, kind="stable")
    np.testing.assert_array_equal(keys, x[order])
    np.testing.assert_array_equal(values, v[order])
    assert values.dtype == v.dtype


@pytest.mark.parametrize("algo", ["cpu-hp", "cpu-parallel-sort", "cpu-stable-sort"])
def test_named_algorithms(algo):
    x = keys_of("uint32")[2:]  # without the dtype's extremes: a range cpu-hp takes
    np.testing.assert_array_equal(sortbench.sort(x, algo=algo, backend="cpu"), np.sort(x))


def test_sizes_zero_and_one_and_lists():
    assert sortbench.sort(np.array([], dtype=np.int64), backend="cpu").size == 0
    np.testing.assert_array_equal(sortbench.sort(np.array([5], dtype=np.float32), backend="cpu"), [5])
    np.testing.assert_array_equal(sortbench.argsort(np.array([], dtype=np.uint32), backend="cpu"), [])
    np.testing.assert_array_equal(sortbench.sort([3, 1, 2], backend="cpu"), [1, 2, 3])


def test_in_place_with_out():
    x = keys_of("int32")
    expected = np.sort(x)
    result = sortbench.sort(x, out=x, backend="cpu")
    assert result is x
    np.testing.assert_array_equal(x, expected)


def test_strided_input_is_copied_once_and_big_endian_read():
    x = keys_of("int64", n=2000)
    np.testing.assert_array_equal(sortbench.sort(x[::2], backend="cpu"), np.sort(x[::2]))
    big = x.astype(">i8")
    np.testing.assert_array_equal(sortbench.sort(big, backend="cpu"), np.sort(x))
    rows = sortbench.benchmark(x[::2], algo="cpu-stable-sort", reps=2, budget=0.1, backend="cpu")
    assert "copied once" in rows[0]["details"]["input_note"]


@pytest.mark.parametrize("dtype", ["float16", "bool", "complex64", "object", "int8", "uint16"])
def test_unsupported_dtypes_are_type_errors(dtype):
    x = np.zeros(4, dtype=dtype)
    with pytest.raises(TypeError) as e:
        sortbench.sort(x, backend="cpu")
    message = str(e.value)
    assert f"dtype {dtype}" in message and "int32, uint32, int64, uint64, float32, float64" in message
    assert "\n" not in message


def one_line(excinfo):
    message = str(excinfo.value)
    assert "\n" not in message and ".cpp" not in message and ".py" not in message, message
    return message


def test_value_errors_are_one_line():
    with pytest.raises(ValueError) as e:
        sortbench.sort(np.zeros((3, 2), dtype=np.int32), backend="cpu")
    assert "1-D" in one_line(e)
    with pytest.raises(ValueError) as e:
        sortbench.sort(np.array([1.0, np.nan, 2.0, np.nan]), backend="cpu")
    assert "2 NaN keys, the first at position 1" in one_line(e)
    x = keys_of("uint32")
    frozen = x.copy()
    frozen.setflags(write=False)
    with pytest.raises(ValueError) as e:
        sortbench.sort(frozen, out=frozen, backend="cpu")
    assert "read-only" in one_line(e)
    strided = np.zeros(2 * len(x), dtype=x.dtype)[::2]
    with pytest.raises(ValueError) as e:
        sortbench.sort(x, out=strided, backend="cpu")
    assert "not contiguous" in one_line(e)
    with pytest.raises(ValueError) as e:
        sortbench.sort(x, algo="no-such-sort", backend="cpu")
    assert "not an algorithm" in one_line(e)
    with pytest.raises(ValueError) as e:
        sortbench.sort(x, values=np.arange(3, dtype=np.int32), backend="cpu")
    assert "values has 3 elements" in one_line(e)
    with pytest.raises(ValueError) as e:
        sortbench.sort(x, backend="tpu")
    assert "backend 'tpu'" in one_line(e)
    with pytest.raises(ValueError) as e:
        sortbench.sort(keys_of("float64"), algo="cpu-hp", backend="cpu")
    assert "cannot sort this input" in one_line(e)


def test_benchmark_takes_the_clis_spellings_and_warns_on_the_old_names():
    x = keys_of("int32", n=3000)
    rows = sortbench.benchmark(x, algo="cpu-stable-sort", reps=2, max_noise=50.0, budget=0.1, backend="cpu")
    assert [r["algorithm"] for r in rows] == ["cpu-stable-sort"]
    with pytest.warns(DeprecationWarning, match=r"benchmark\(algos=\.\.\.\) is now algo="):
        old = sortbench.benchmark(x, algos="cpu-stable-sort", reps=2, budget_s=0.1, backend="cpu")
    assert [r["algorithm"] for r in old] == ["cpu-stable-sort"]
    with pytest.raises(TypeError, match="got both budget_s and budget"):
        sortbench.benchmark(x, algo="cpu-stable-sort", budget=0.2, budget_s=0.1, backend="cpu")
    with pytest.raises(TypeError, match="unexpected keyword argument 'algoz'"):
        sortbench.benchmark(x, algoz="cpu-stable-sort", backend="cpu")


def test_gpu_memory_limit_is_read_as_the_clis_and_refused_one_line():
    x = keys_of("uint32", n=100)
    with pytest.raises(ValueError) as e:
        sortbench.sort(x, backend="cpu", gpu_memory_limit=0)
    assert "gpu_memory_limit=0 leaves no GPU memory" in one_line(e)
    with pytest.raises(ValueError) as e:
        sortbench.sort(x, backend="cpu", gpu_memory_limit="lots")
    assert "gpu_memory_limit" in one_line(e)
    with pytest.raises(TypeError) as e:
        sortbench.sort(x, backend="cpu", gpu_memory_limit=1.5)
    assert "gpu_memory_limit=1.5 is a float" in one_line(e)
    with pytest.raises(ValueError) as e:
        sortbench.benchmark(x, algo="cpu-stable-sort", backend="cpu", gpu_memory_limit=0)
    assert "gpu_memory_limit=0" in one_line(e)
    # A size the CPU sort never reaches changes nothing there.
    np.testing.assert_array_equal(sortbench.sort(x, backend="cpu", gpu_memory_limit="8G"), np.sort(x))


def test_algorithms_and_version():
    names = {a["name"]: a for a in sortbench.algorithms()}
    assert {"cpu-hp", "cpu-stable-sort", "hp-auto", "cub-radix"} <= set(names)
    assert names["cpu-stable-sort"]["stable"] and names["hp-auto"]["backend"] == "gpu"
    assert sortbench.__version__.count(".") == 2


def test_generate_on_the_cpu_is_the_suites_generator():
    x = sortbench.generate(n=1 << 12, delta=4, key="i32", device="cpu", seed=3)
    assert x.dtype == np.int32 and x.shape == (1 << 12,)
    np.testing.assert_array_equal(x, sortbench.generate(n=1 << 12, delta=4, key="i32", device="cpu", seed=3))
    assert len(np.unique(x)) == (1 << 12) // 4  # range n/delta, every value drawn (len = min(n, range))
    with pytest.raises(ValueError):
        sortbench.generate(n=16, delta=-1, device="cpu")
    with pytest.raises(ValueError):
        sortbench.generate(n=16, key="u128", device="cpu")


def test_generate_takes_the_documented_domain_and_says_valueerror_otherwise():
    # Issue 47 item 6: these raised RuntimeError: std::bad_cast.
    top = sortbench.generate(n=1000, min_val=2**64 - 2**20, max_val=2**64, key="u64", device="cpu")
    assert top.dtype == np.uint64 and int(top.min()) >= 2**64 - 2**20
    assert sortbench.generate(n=100, min_val=-2**63, max_val=2**63, key="i64", device="cpu").dtype == np.int64
    assert sortbench.generate(n="4K", key="u32", device="cpu").shape == (4096,)  # the CLI's spelling
    assert sortbench.generate(n=np.int64(16), key="u32", device="cpu").shape == (16,)
    for bad in (dict(n=-1), dict(n=1.5), dict(n=True), dict(n="lots"), dict(n=16, delta="wide"),
                dict(n=16, max_val=2**64 + 1, key="u64"), dict(n=16, seed=-3)):
        with pytest.raises(ValueError) as e:
            sortbench.generate(device="cpu", **bad)
        assert "\n" not in str(e.value), str(e.value)


def test_benchmark_rows_of_different_arrays_are_different_inputs():
    # Issue 47 item 2: rows of a caller's array carry a fingerprint of its keys.
    a = sortbench.generate(n=1 << 12, key="u32", device="cpu", seed=1)
    b = sortbench.generate(n=1 << 12, key="u32", device="cpu", seed=2)
    fingerprint = lambda x: sortbench.benchmark(x, algo="cpu-std-sort", reps=2, budget=0.05,
                                                backend="cpu")[0]["input"]["source"]["fingerprint"]
    assert fingerprint(a) == fingerprint(a.copy())
    assert fingerprint(a) != fingerprint(b)


def test_benchmark_rows_are_the_json_schemas():
    x = sortbench.generate(n=1 << 14, delta=50, sigma=50, key="u32", device="cpu")
    rows = sortbench.benchmark(x, algo=["cpu-hp", "cpu-stable-sort"], reps=3, budget=0.2, backend="cpu",
                               others={"numpy.sort": np.sort, "ndarray.sort": lambda a: a.sort()})
    assert [r["algorithm"] for r in rows] == ["cpu-hp", "cpu-stable-sort", "numpy.sort", "ndarray.sort"]
    for row in rows:
        assert row["status"] == "ok", row
        assert row["verification"] == "passed"
        assert row["details"]["interface"] == "python"
        assert row["range_mode"] == "measured"
        assert row["time_ms"]["samples"] >= 3
    assert rows.context["sortbench_version"] == sortbench.__version__
    assert rows.document()["results"][0] == rows[0]


def test_benchmark_an_others_callable_that_sorts_wrongly_fails_verification():
    x = keys_of("int64")
    rows = sortbench.benchmark(x, algo=[], reps=2, budget=0.1, backend="cpu",
                               others={"reversed": lambda a: np.sort(a)[::-1]})
    assert rows[0]["status"] == "verify_failed"


def test_to_pandas():
    pandas = pytest.importorskip("pandas")
    rows = sortbench.benchmark(keys_of("int32"), algo="cpu-stable-sort", reps=2, budget=0.1, backend="cpu")
    frame = sortbench.to_pandas(rows)
    assert isinstance(frame, pandas.DataFrame) and frame.loc[0, "algorithm"] == "cpu-stable-sort"


def test_arrow_arrays_and_chunked_arrays():
    pa = pytest.importorskip("pyarrow")
    got = sortbench.sort(pa.array([3, 1, 2], type=pa.int64()), backend="cpu")
    assert isinstance(got, pa.Array) and got.to_pylist() == [1, 2, 3]
    chunked = pa.chunked_array([[5.5, 1.5], [3.5]])
    got = sortbench.sort(chunked, backend="cpu")
    assert isinstance(got, pa.ChunkedArray), f"a ChunkedArray came back as a {type(got)}"  # issue 47 item 6
    assert got.to_pylist() == [1.5, 3.5, 5.5]
    with pytest.raises(ValueError) as e:
        sortbench.sort(pa.array([1, None, 2]), backend="cpu")
    assert "1 nulls" in one_line(e)
    with pytest.raises(TypeError):
        sortbench.sort(pa.array(["a", "b"]), backend="cpu")


def test_jax_arrays_come_back_as_jax_arrays():
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.asarray(np.array([5, -3, 9, 0, -3], dtype=np.int32))
    y = sortbench.sort(x, backend="cpu")
    assert type(y).__module__.split(".")[0] in ("jax", "jaxlib"), f"sort of a JAX array returned a {type(y)}"
    np.testing.assert_array_equal(np.asarray(y), np.sort(np.asarray(x)))
    with pytest.raises(ValueError, match="immutable"):
        sortbench.sort(x, out=x, backend="cpu")


def test_last_sort_says_a_host_array_came_back_through_host_memory():
    x = np.array([3, 1, 2], dtype=np.uint32)
    before = sortbench._sortbench.host_drains()
    np.testing.assert_array_equal(sortbench.sort(x, backend="cpu"), [1, 2, 3])
    info = sortbench.last_sort()
    assert info["path"] == "host" and info["algorithm"].startswith("cpu-")
    assert sortbench._sortbench.host_drains() == before + 1


def test_verify_off_is_for_device_arrays_only():
    with pytest.raises(ValueError, match="verify=False"):
        sortbench.sort(np.array([2, 1], dtype=np.int32), backend="cpu", verify=False)


class FakeDeviceModule:
    """The native module's device sort stood in for by NumPy, to check on the CPU which buffers
    the Python side hands it (issue 39: the caller's memory is sorted, x is left unchanged)."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def sort_device_arrays(self, keys, keys_dtype, values, values_dtype, positions, algo, verify, producer):
        self.calls.append(dict(keys=keys, values=values, positions=positions, verify=verify))
        order = np.argsort(keys, kind="stable")
        if positions is not None:
            positions[:] = order
        if values is not None:
            values[:] = values[order]
        keys[:] = keys[order]
        return {"algorithm": "fake", "why": "", "verified_on": "gpu" if verify else "none", "path": "device",
                "adopted": "keys", "result_copy": "none", "memory": {}}


@pytest.fixture
def fake_device(monkeypatch):
    import sortbench._arrays as arrays
    fake = FakeDeviceModule(sortbench._sortbench)
    monkeypatch.setattr(sortbench, "_sortbench", fake)
    real_column = arrays.column

    def on_device_0(x, role):
        c = real_column(x, role)
        c.device = 0  # as if x lay on GPU 0
        return c

    monkeypatch.setattr(arrays, "column", on_device_0)
    return fake


def test_device_path_out_x_sorts_x_itself(fake_device):
    x = np.array([5, 3, 9, 1], dtype=np.int32)
    assert sortbench.sort(x, out=x) is x
    assert fake_device.calls[-1]["keys"] is x and x.tolist() == [1, 3, 5, 9]
    assert sortbench.last_sort()["memory"]["result_arrays_bytes"] == 0


def test_device_path_new_array_leaves_x_unchanged(fake_device):
    x = np.array([5, 3, 9, 1], dtype=np.int64)
    got = sortbench.sort(x)
    assert got is not x and got.tolist() == [1, 3, 5, 9] and x.tolist() == [5, 3, 9, 1]
    assert fake_device.calls[-1]["keys"] is got
    assert sortbench.last_sort()["memory"]["result_arrays_bytes"] == x.nbytes
    out = np.empty_like(x)
    assert sortbench.sort(x, out=out) is out and out.tolist() == [1, 3, 5, 9] and x.tolist() == [5, 3, 9, 1]


def test_device_path_values_and_argsort_use_copies(fake_device):
    x = np.array([2, 1, 2, 0], dtype=np.uint32)
    v = np.array([10.0, 11.0, 12.0, 13.0])
    keys, vals = sortbench.sort(x, values=v, verify=False)
    assert keys.tolist() == [0, 1, 2, 2] and vals.tolist() == [13.0, 11.0, 10.0, 12.0]
    assert x.tolist() == [2, 1, 2, 0] and v.tolist() == [10.0, 11.0, 12.0, 13.0]
    assert fake_device.calls[-1]["verify"] is False
    p = sortbench.argsort(x)
    assert p.dtype == np.int64 and p.tolist() == [3, 1, 0, 2] and x.tolist() == [2, 1, 2, 0]
    assert sortbench.last_sort()["memory"]["result_arrays_bytes"] == x.nbytes + 8 * x.size
