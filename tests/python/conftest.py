"""pytest set-up for the npusim Python module tests (registered in ctest by tests/CMakeLists.txt, which sets
PYTHONPATH to build/python and NPUSIM_CLI to the npusim binary). Run by hand:
    PYTHONPATH=build/python NPUSIM_CLI=build/tools/npusim python3 -m pytest tests/python
"""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def cli():
    path = os.environ.get("NPUSIM_CLI", str(ROOT / "build" / "tools" / "npusim"))
    if not os.path.exists(path):
        pytest.fail(f"NPUSIM_CLI={path}: the npusim binary is not built (tools/build.sh release)")
    return path
