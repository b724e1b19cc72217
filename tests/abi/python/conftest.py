# The package from the source tree (abi/python) and librxt from the build (RXT_LIBRARY, set by
# the CTest test abi.python; tests/abi/CMakeLists.txt).
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "abi" / "python"))
