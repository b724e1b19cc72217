"""rxt.Module: parsed from text and printed back; errors raise rxt.Error with rxt's message."""
import pathlib

import pytest

import rxt

SOURCE = pathlib.Path(__file__).resolve().parents[3]


def test_parse_print_round_trip():
    text = (SOURCE / "examples" / "mlp.rxt").read_text()
    module = rxt.Module.parse(text, "mlp.rxt")
    module.verify()
    printed = str(module)
    assert "def @" in printed
    assert str(rxt.Module.parse(printed)) == printed


def test_load_reads_a_file():
    assert str(rxt.Module.load(SOURCE / "examples" / "mlp.rxt")) == str(
        rxt.Module.parse((SOURCE / "examples" / "mlp.rxt").read_text()))


def test_bad_text_names_file_line_and_column():
    with pytest.raises(rxt.Error) as e:
        rxt.Module.parse("def @main(%x: Tensor((2,), float32)) -> Tensor((2,), float32) {\n  return %y\n}\n", "bad.rxt")
    assert e.value.code == "invalid argument"
    assert str(e.value).startswith("bad.rxt:2:")


def test_versions():
    assert rxt.__version__ and rxt.abi_version >= 1
