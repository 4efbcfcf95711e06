# Type hints of sortbench's Python face (issue 39 item 1: type hints, `.pyi`).
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Tuple, Union

__version__: str

ArrayLike = Any  # numpy.ndarray, cupy.ndarray, torch.Tensor, pyarrow.Array/ChunkedArray, a DLPack producer

def sort(
    x: ArrayLike,
    algo: str = "auto",
    values: Optional[ArrayLike] = None,
    argsort: bool = False,
    backend: Optional[str] = None,
    out: Optional[ArrayLike] = None,
    verify: bool = True,
    gpu_memory_limit: Optional[Union[int, str]] = None,
) -> Union[ArrayLike, Tuple[ArrayLike, ArrayLike]]: ...
def argsort(x: ArrayLike, algo: str = "auto", backend: Optional[str] = None) -> ArrayLike: ...
def last_sort() -> dict: ...

class Rows(list):
    context: dict
    schema_version: int
    def __init__(self, rows: Iterable[dict], context: dict, schema_version: int) -> None: ...
    def document(self) -> dict: ...
    def write_json(self, path: str) -> None: ...

def benchmark(
    x: ArrayLike,
    algo: Union[str, Sequence[str]] = ("all",),
    reps: int = 10,
    max_noise: float = 1.0,
    range: str = "measured",
    values: Optional[ArrayLike] = None,
    others: Optional[Mapping[str, Callable[[Any], Any]]] = None,
    backend: Optional[str] = None,
    warmup: int = 1,
    budget: float = 2.0,
    flush_l2: bool = True,
    gpu_memory_limit: Optional[Union[int, str]] = None,
) -> Rows: ...
def generate(
    n: Optional[int] = None,
    delta: Optional[float] = None,
    sigma: Optional[float] = None,
    len: Optional[int] = None,
    min_val: Optional[int] = None,
    max_val: Optional[int] = None,
    dist: str = "uniform",
    key: str = "u32",
    seed: int = 1,
    entropy: Optional[float] = None,
    device: str = "cuda",
) -> ArrayLike: ...
def algorithms() -> list[dict]: ...
def to_pandas(rows: Iterable[dict]) -> Any: ...
