"""Reading and writing {name: array} as a .safetensors file (an 8-byte little-endian header length, a JSON
header of each tensor's dtype, shape and byte range, then the bytes), for the passes that read
values from a file (BindParams)."""
import json
import struct

_DTYPES = {"float16": "F16", "float32": "F32", "float64": "F64", "bfloat16": "BF16", "int8": "I8", "int16": "I16",
           "int32": "I32", "int64": "I64", "uint8": "U8", "bool": "BOOL"}


def _numpy(value):
    import numpy as np
    if hasattr(value, "detach"):  # a torch tensor (maybe requiring grad)
        value = value.detach().cpu().numpy()
    elif not isinstance(value, np.ndarray) and hasattr(value, "__dlpack__"):
        value = np.from_dlpack(value)
    return np.require(np.asarray(value), requirements="C")


def write(path, values):
    header, chunks, offset = {}, [], 0
    for name, value in values.items():
        array = _numpy(value)
        if array.dtype.name not in _DTYPES:
            raise ValueError(f"rxt: value '{name}' has dtype {array.dtype}, which rxt has no tensors of")
        data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _DTYPES[array.dtype.name], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for chunk in chunks:
            f.write(chunk)


def read(path):
    """{name: NumPy array} of the file, in its order (rxt writes parameters in the backbone's)."""
    import numpy as np
    names = {v: k for k, v in _DTYPES.items()}
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: not a safetensors file (too short)")
    (size,) = struct.unpack("<Q", data[:8])
    if size > len(data) - 8:
        raise ValueError(f"{path}: not a safetensors file (a header of {size} bytes in {len(data)})")
    header = json.loads(data[8:8 + size])
    header.pop("__metadata__", None)
    body = memoryview(data)[8 + size:]
    entries = sorted(header.items(), key=lambda item: item[1]["data_offsets"][0])
    out = {}
    for name, entry in entries:
        dtype = np.dtype(names[entry["dtype"]]).newbyteorder("<") if entry["dtype"] != "BF16" else None
        if dtype is None:
            raise ValueError(f"{path}: '{name}' is bfloat16, which NumPy has no dtype for")
        begin, end = entry["data_offsets"]
        out[name] = np.frombuffer(body[begin:end], dtype=dtype).reshape(entry["shape"]).astype(dtype.newbyteorder("="))
    return out
