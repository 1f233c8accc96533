"""Inputs and outputs of every kind the package takes, as byte views without a copy where the
memory is on the host: objects with the buffer protocol (bytes, bytearray, memoryview, NumPy
arrays), DLPack tensors (``__dlpack__``) and CUDA arrays (``__cuda_array_interface__``), whose
device memory is copied to and from the host around the call."""

from __future__ import annotations

import ctypes
from typing import Any

from . import _warpzip

# DLPack device types.
_KDL_CPU = 1
_KDL_CUDA = 2
_KDL_CUDA_HOST = 3
_KDL_CUDA_MANAGED = 13

# The legacy default stream, as the CUDA array interface and DLPack name it.
_LEGACY_STREAM = 1

_FORMATS = {
    # struct format character -> (kind, signed)
    "b": "i", "h": "i", "i": "i", "l": "i", "q": "i", "n": "i",
    "B": "u", "H": "u", "I": "u", "L": "u", "Q": "u", "N": "u", "?": "u", "c": "u",
    "e": "f", "f": "f", "d": "f",
}


def dtype_name(kind: str, itemsize: int) -> str | None:
    """warpzip's element type (u8 ... f64) for a kind (u, i, f, b) and item size."""
    if kind == "b":
        kind = "u"
    if kind not in "uif" or itemsize not in (1, 2, 4, 8):
        return None
    if kind == "f" and itemsize not in (4, 8):
        return None
    return f"{kind}{itemsize * 8}"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class DeviceArray:
    """Where an array's bytes lie: address, size, device, dtype and shape."""

    def __init__(self, ptr: int, nbytes: int, device_type: int, device_id: int,
                 dtype: str | None, shape: tuple, stream: int | None, keep: Any) -> None:
        self.ptr = ptr
        self.nbytes = nbytes
        self.device_type = device_type
        self.device_id = device_id
        self.dtype = dtype
        self.shape = shape
        self.stream = stream
        self.keep = keep  # keeps the producer's memory alive

    @property
    def on_host(self) -> bool:
        return self.device_type in (_KDL_CPU, _KDL_CUDA_HOST)

    def host_view(self) -> memoryview:
        """The bytes in place (host memory only)."""
        if self.nbytes == 0:
            return memoryview(bytearray())
        return memoryview((ctypes.c_ubyte * self.nbytes).from_address(self.ptr)).cast("B")


def _c_contiguous(shape: tuple, strides: tuple | None, itemsize: int) -> bool:
    if strides is None:
        return True
    expected = itemsize
    for dim, stride in zip(reversed(shape), reversed(strides)):
        if dim != 1 and stride != expected:
            return False
        expected *= dim
    return True


def from_dlpack(obj: Any, stream: int | None = None) -> DeviceArray:
    """The tensor `obj` exports through DLPack (version 0 capsules, which every producer gives
    when no ``max_version`` is asked for)."""
    device_type, device_id = obj.__dlpack_device__()
    kwargs = {}
    if device_type in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        kwargs["stream"] = _LEGACY_STREAM if stream is None else stream
    capsule = obj.__dlpack__(**kwargs)
    address = _capsule_get_pointer(capsule, b"dltensor")
    managed = DLManagedTensor.from_address(address)
    t = managed.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    itemsize = (t.dtype.bits * t.dtype.lanes) // 8
    strides = None if not t.strides else tuple(t.strides[i] * itemsize for i in range(t.ndim))
    if not _c_contiguous(shape, strides, itemsize):
        raise ValueError("the DLPack tensor is not C-contiguous")
    count = 1
    for d in shape:
        count *= d
    kind = {0: "i", 1: "u", 2: "f", 6: "b"}.get(t.dtype.code, "?")
    # The capsule, kept alive with the view, frees the tensor through its deleter when it is
    # collected (it is never renamed "used_dltensor": the producer keeps ownership).
    return DeviceArray((t.data or 0) + t.byte_offset, count * itemsize, t.device.device_type,
                       t.device.device_id, dtype_name(kind, itemsize), shape, None,
                       (obj, capsule))


def from_cuda_array_interface(obj: Any) -> DeviceArray:
    cai = obj.__cuda_array_interface__
    shape = tuple(cai["shape"])
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    if not _c_contiguous(shape, cai.get("strides"), itemsize):
        raise ValueError("the CUDA array is not C-contiguous")
    count = 1
    for d in shape:
        count *= d
    ptr = cai["data"][0] or 0
    return DeviceArray(ptr, count * itemsize, _KDL_CUDA, _cuda_ordinal(ptr),
                       dtype_name(typestr[1], itemsize), shape, cai.get("stream"), obj)


def _cuda_ordinal(ptr: int) -> int:
    """The GPU a device pointer belongs to (0 where the driver cannot tell)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        ordinal = ctypes.c_int(0)
        # CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
        if cuda.cuPointerGetAttribute(ctypes.byref(ordinal), 9, ctypes.c_uint64(ptr)) == 0:
            return ordinal.value
    except OSError:
        pass
    return 0


class Input:
    """A byte view of an input, its element type and shape where it has them."""

    def __init__(self, view: memoryview, dtype: str | None, shape: tuple | None) -> None:
        self.view = view
        self.dtype = dtype
        self.shape = shape


def as_input(obj: Any, stream: int | None = None) -> Input:
    """`obj`'s bytes for reading: in place on the host, copied from a device."""
    if isinstance(obj, (bytes, bytearray)):
        return Input(memoryview(obj), None, None)
    if hasattr(obj, "__cuda_array_interface__") and not _has_buffer(obj):
        return _device_input(from_cuda_array_interface(obj), stream)
    if _has_buffer(obj):
        mv = memoryview(obj)
        if not mv.c_contiguous:
            raise ValueError("the input is not C-contiguous (numpy.ascontiguousarray copies it)")
        fmt = mv.format.lstrip("@=<")
        dtype = None
        if fmt in _FORMATS and not (fmt == "B" and type(obj) is memoryview):
            dtype = dtype_name(_FORMATS[fmt], mv.itemsize)
        numpy_dtype = getattr(obj, "dtype", None)
        if numpy_dtype is not None:
            if getattr(numpy_dtype, "byteorder", "=") == ">":
                raise ValueError("big-endian arrays are not taken: convert with "
                                 "arr.astype(arr.dtype.newbyteorder('<'))")
            dtype = dtype_name(numpy_dtype.kind, numpy_dtype.itemsize)
        shape = tuple(mv.shape) if mv.ndim else ()
        if mv.ndim != 1 or mv.format != "B":
            mv = mv.cast("B") if mv.nbytes else memoryview(b"")
        return Input(mv, dtype, shape)
    if hasattr(obj, "__dlpack__"):
        return _device_input(from_dlpack(obj, stream), stream)
    raise TypeError(
        f"expected bytes, a buffer, a DLPack or a CUDA array, not {type(obj).__name__}"
    )


def _device_input(arr: DeviceArray, stream: int | None) -> Input:
    if arr.on_host:
        return Input(arr.host_view(), arr.dtype, arr.shape)
    host = bytearray(arr.nbytes)
    if arr.nbytes:
        _warpzip.device_to_host(arr.ptr, host, arr.device_id,
                                arr.stream if stream is None else stream)
    return Input(memoryview(host), arr.dtype, arr.shape)


def _has_buffer(obj: Any) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


class Output:
    """Where decompressed bytes go: a writable host view, copied to a device after the call
    when the target lives there."""

    def __init__(self, target: Any, stream: int | None = None) -> None:
        self.target = target
        self.device: DeviceArray | None = None
        self.stream = stream
        if _has_buffer(target) and not hasattr(target, "__cuda_array_interface__"):
            mv = memoryview(target)
            if mv.readonly:
                raise ValueError("out= is read-only")
            if not mv.c_contiguous:
                raise ValueError("out= is not C-contiguous")
            self.view = mv.cast("B") if (mv.ndim != 1 or mv.format != "B") and mv.nbytes else mv
            return
        if hasattr(target, "__cuda_array_interface__"):
            arr = from_cuda_array_interface(target)
        elif hasattr(target, "__dlpack__"):
            arr = from_dlpack(target, stream)
        else:
            raise TypeError(f"out= must be a writable buffer or array, not {type(target).__name__}")
        if arr.on_host:
            self.view = arr.host_view()
            self.keep = arr
        else:
            self.device = arr
            self.view = memoryview(bytearray(arr.nbytes))

    def finish(self) -> None:
        if self.device is not None and self.device.nbytes:
            _warpzip.host_to_device(self.view, self.device.ptr, self.device.device_id,
                                    self.device.stream if self.stream is None else self.stream)
