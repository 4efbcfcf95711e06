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
    rows = sortbench.benchmark(x, algos=["hp-auto", "cub-radix-bits"], reps=3, budget_s=0.2,
                               others={"cupy.sort": cupy.sort, "torch.sort": torch.sort})
    assert [r["algorithm"] for r in rows] == ["hp-auto", "cub-radix-bits", "cupy.sort", "torch.sort"]
    for row in rows:
        assert row["status"] == "ok" and row["verification"] == "passed", row
        assert row["range_mode"] == "measured" and row["details"]["interface"] == "python"
