# The Python face on the GPU (issue 39 item 4): CuPy arrays and PyTorch tensors sorted where they
# lie and returned as the same kind of array, and benchmark(others=...) timing cupy.sort and
# torch.sort beside sortbench's own. Marked gpu: skipped, saying why, without a CUDA device
# (conftest.py) or without the array library a test needs.
import numpy as np
import pytest

import sortbench

pytestmark = pytest.mark.gpu

DTYPES = ["int32", "uint32", "int64", "uint64", "float32", "float64"]


def host_keys(dtype, n=1 << 16, seed=11):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.integers(-5000, 5000, n) / 8).astype(dtype)
    return rng.integers(0, n // 4, n).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_in_numpy_out_on_the_gpu(dtype):
    x = host_keys(dtype)
    np.testing.assert_array_equal(sortbench.sort(x, backend="gpu"), np.sort(x))
    np.testing.assert_array_equal(sortbench.argsort(x, backend="gpu"), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_arrays(dtype):
    cupy = pytest.importorskip("cupy")
    x = cupy.asarray(host_keys(dtype))
    got = sortbench.sort(x)
    assert isinstance(got, cupy.ndarray) and got.device.id == x.device.id
    cupy.testing.assert_array_equal(got, cupy.sort(x))
    cupy.testing.assert_array_equal(sortbench.argsort(x), cupy.asarray(np.argsort(x.get(), kind="stable")))
    v = cupy.arange(x.size, dtype=cupy.int64)
    keys, values = sortbench.sort(x, values=v)
    order = np.argsort(x.get(), kind="stable")
    cupy.testing.assert_array_equal(values, v[cupy.asarray(order)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_tensors(dtype):
    torch = pytest.importorskip("torch")
    if not hasattr(torch, dtype):
        pytest.skip(f"this PyTorch has no torch.{dtype}")
    x = torch.from_numpy(host_keys(dtype)).cuda()
    got = sortbench.sort(x)
    assert isinstance(got, torch.Tensor) and got.device == x.device
    np.testing.assert_array_equal(got.cpu().numpy(), np.sort(x.cpu().numpy()))


def test_in_place_on_the_device_and_strided_arrays():
    cupy = pytest.importorskip("cupy")
    x = cupy.asarray(host_keys("uint32"))
    expected = cupy.sort(x)
    assert sortbench.sort(x, out=x) is x
    cupy.testing.assert_array_equal(x, expected)
    y = cupy.asarray(host_keys("int64", n=1 << 12))
    cupy.testing.assert_array_equal(sortbench.sort(y[::2]), cupy.sort(y[::2]))
    with pytest.raises(ValueError):
        sortbench.sort(y, out=cupy.empty(2 * y.size, dtype=y.dtype)[::2])


def test_device_errors():
    cupy = pytest.importorskip("cupy")
    with pytest.raises(TypeError):
        sortbench.sort(cupy.zeros(4, dtype=cupy.float16))
    with pytest.raises(ValueError) as e:
        sortbench.sort(cupy.asarray([1.0, float("nan")]))
    assert "1 NaN keys, the first at position 1" in str(e.value)
    with pytest.raises(ValueError):
        sortbench.sort(cupy.zeros(4, dtype=cupy.int32), backend="cpu")


def test_generate_on_the_device_matches_the_cpu():
    pytest.importorskip("cupy")
    x = sortbench.generate(n=1 << 16, delta=50, sigma=50, key="u32")
    np.testing.assert_array_equal(x.get(), sortbench.generate(n=1 << 16, delta=50, sigma=50, key="u32", device="cpu"))


def test_benchmark_with_others():
    cupy = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    x = sortbench.generate(n=1 << 20, delta=50, sigma=50, key="i32")
    rows = sortbench.benchmark(x, algo=["hp-auto", "cub-radix-bits"], reps=3, budget=0.2,
                               others={"cupy.sort": cupy.sort, "torch.sort": torch.sort})
    assert [r["algorithm"] for r in rows] == ["hp-auto", "cub-radix-bits", "cupy.sort", "torch.sort"]
    for row in rows:
        assert row["status"] == "ok" and row["verification"] == "passed", row
        assert row["range_mode"] == "measured" and row["details"]["interface"] == "python"


# Zero copy (issue 39): a device array is sorted in its own GPU memory, on its producer's stream,
# and nothing comes back through host memory. sortbench.last_sort() says what ran and what it
# allocated; _sortbench.host_drains() counts results that came back through host memory.
def _no_host_drain(before):
    after = sortbench._sortbench.host_drains()
    assert after == before, f"the result came back through host memory ({after - before} drains); it must not"
    info = sortbench.last_sort()
    assert info["path"] == "device", info
    assert info["result_copy"] in ("none", "keys", "keys,values"), info
    return info


@pytest.mark.parametrize("algo", ["auto", "hp-auto", "cub-radix-bits"])
def test_cupy_in_place_keeps_the_pointer(algo):
    cupy = pytest.importorskip("cupy")
    x = cupy.asarray(host_keys("int32", n=1 << 20))
    expected = cupy.sort(x)
    ptr = x.data.ptr
    before = sortbench._sortbench.host_drains()
    assert sortbench.sort(x, algo=algo, out=x) is x
    assert x.data.ptr == ptr, "out=x must sort in x's own memory"
    cupy.testing.assert_array_equal(x, expected)
    info = _no_host_drain(before)
    assert info["memory"]["result_arrays_bytes"] == 0, info
    assert info["verified_on"] == "gpu", info


def test_torch_in_place_keeps_the_pointer_and_verify_off():
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(host_keys("int32", n=1 << 20)).cuda()
    expected = torch.sort(x).values
    ptr = x.data_ptr()
    before = sortbench._sortbench.host_drains()
    assert sortbench.sort(x, out=x, verify=False) is x
    assert x.data_ptr() == ptr, "out=x must sort in x's own memory"
    assert torch.equal(x, expected)
    info = _no_host_drain(before)
    assert info["verified_on"] == "none", info


@pytest.mark.parametrize("framework", ["cupy", "torch"])
def test_new_array_of_the_same_kind_and_x_unchanged(framework):
    lib = pytest.importorskip(framework)
    keys = host_keys("uint32" if framework == "cupy" else "int64", n=1 << 18)
    x = lib.asarray(keys) if framework == "cupy" else lib.from_numpy(keys).cuda()
    before = sortbench._sortbench.host_drains()
    got = sortbench.sort(x)
    assert type(got) is type(x) and got.device == x.device
    host = lambda a: a.get() if framework == "cupy" else a.cpu().numpy()
    np.testing.assert_array_equal(host(got), np.sort(keys))
    np.testing.assert_array_equal(host(x), keys, err_msg="sort(x) must leave x unchanged, as numpy.sort does")
    info = _no_host_drain(before)
    assert info["memory"]["result_arrays_bytes"] == keys.nbytes, info


def test_values_and_argsort_stay_on_the_device():
    cupy = pytest.importorskip("cupy")
    keys = host_keys("int32", n=1 << 18)
    x = cupy.asarray(keys)
    v = cupy.arange(x.size, dtype=cupy.float64) * 0.5
    order = np.argsort(keys, kind="stable")
    before = sortbench._sortbench.host_drains()
    k, vals = sortbench.sort(x, values=v)
    _no_host_drain(before)
    assert isinstance(vals, cupy.ndarray) and vals.dtype == v.dtype
    cupy.testing.assert_array_equal(k, cupy.asarray(keys[order]))
    cupy.testing.assert_array_equal(vals, v[cupy.asarray(order)])
    cupy.testing.assert_array_equal(x, cupy.asarray(keys))  # neither input changed
    cupy.testing.assert_array_equal(v, cupy.arange(x.size, dtype=cupy.float64) * 0.5)
    p = sortbench.argsort(x)
    _no_host_drain(before)
    assert isinstance(p, cupy.ndarray) and p.dtype == cupy.int64 and p.device == x.device
    cupy.testing.assert_array_equal(p, cupy.asarray(order))
    cupy.testing.assert_array_equal(x, cupy.asarray(keys))
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(keys).cuda()
    tp = sortbench.argsort(t)
    assert isinstance(tp, torch.Tensor) and tp.dtype == torch.int64 and tp.device == t.device
    np.testing.assert_array_equal(tp.cpu().numpy(), order)


def test_a_non_default_producer_stream_is_followed():
    cupy = pytest.importorskip("cupy")
    keys = host_keys("uint32", n=1 << 22)
    with cupy.cuda.Stream(non_blocking=True) as stream:
        x = cupy.asarray(keys)
        x += 1  # queued on the producer's stream: the sort must see it done
        sortbench.sort(x, out=x)
        y = x[::-1].copy()  # queued on the same stream: must see the sorted keys without a sync
        stream.synchronize()
    np.testing.assert_array_equal(x.get(), np.sort(keys + 1))
    np.testing.assert_array_equal(y.get(), np.sort(keys + 1)[::-1])
    torch = pytest.importorskip("torch")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_numpy(keys.astype(np.int64)).cuda()
        t += 1
        sortbench.sort(t, out=t)
        u = t.flip(0)
    s.synchronize()
    np.testing.assert_array_equal(u.cpu().numpy(), np.sort(keys.astype(np.int64) + 1)[::-1])


def test_an_array_on_a_second_gpu_is_sorted_there():
    cupy = pytest.importorskip("cupy")
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("one GPU: the second-GPU case needs two")
    keys = host_keys("int64", n=1 << 18)
    with cupy.cuda.Device(1):
        x = cupy.asarray(keys)
    got = sortbench.sort(x)
    assert got.device.id == 1, f"the result lies on GPU {got.device.id}; it must stay on x's GPU (1)"
    np.testing.assert_array_equal(got.get(), np.sort(keys))
    ptr = x.data.ptr
    sortbench.sort(x, out=x)
    assert x.data.ptr == ptr and x.device.id == 1
    np.testing.assert_array_equal(x.get(), np.sort(keys))


@pytest.mark.parametrize("dtype", ["uint32", "int64", "float64"])
def test_a_host_array_past_the_limit_streams_as_sort_streams_a_file(dtype):
    # Issue 49 item 2: one sort_once for the CLI and Python, so a host array that needs more GPU
    # memory than gpu_memory_limit streams through the GPU instead of raising MemoryError.
    x = host_keys(dtype, n=1 << 24)  # 64 or 128 MiB of keys: two copies are past a 96 MiB limit
    got = sortbench.sort(x, gpu_memory_limit="96M")
    np.testing.assert_array_equal(got, np.sort(x))
    assert sortbench.last_sort()["placement"] == "host", sortbench.last_sort()
    assert sortbench.last_sort()["algorithm"] in ("ooc-hp", "ooc-sort")
    np.testing.assert_array_equal(sortbench.argsort(x, backend="gpu"), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(sortbench.sort(x, gpu_memory_limit=1 << 40), np.sort(x))
    assert sortbench.last_sort()["placement"] == "gpu"
