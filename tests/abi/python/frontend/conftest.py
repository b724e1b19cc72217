# The torch.fx importer's tests need torch (Debian's python3-torch): without it they skip, saying so.
# The real models are the ONNX importer's fixtures (tests/importers/onnx/export_models.py).
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] / "abi" / "python"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "importers" / "onnx"))
pytest.importorskip("torch", reason="torch (Debian's python3-torch) is not installed for /usr/bin/python3")
