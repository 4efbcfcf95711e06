# pytest set-up for sortbench's Python face (issue 39 item 4): GPU tests carry the `gpu` mark
# and are skipped, with the reason, where no CUDA device or no GPU array library answers.
import pytest

import sortbench


def _gpu_missing():
    why = sortbench._sortbench.cuda_unavailable_reason()
    if why is not None:
        return f"no GPU: {why}"
    return None


def pytest_collection_modifyitems(config, items):
    why = _gpu_missing()
    if why is None:
        return
    skip = pytest.mark.skip(reason=why)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
