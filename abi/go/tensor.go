package rxt

// #include "rxt_go.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Tensor is a tensor that rxt returned (a DLManagedTensor: a parameter snapshot, a prediction).
// Its data is rxt's memory, viewed without a copy by Data and Bytes until Close, which calls
// the tensor's deleter (a finalizer does it for a Tensor that becomes unreachable). A Tensor is
// also an Arg: rxt reads it in place.
type Tensor struct {
	mu      sync.RWMutex // readers use the memory; Close takes it exclusively
	managed *C.DLManagedTensor
	dtype   DType
	shape   []int64
	count   int
	compact bool
}

func (*Tensor) isArg() {}

// newTensor takes ownership of |managed|.
func newTensor(managed *C.DLManagedTensor) *Tensor {
	dl := &managed.dl_tensor
	t := &Tensor{managed: managed, count: 1, compact: true,
		dtype: DType{Code: uint8(dl.dtype.code), Bits: uint8(dl.dtype.bits), Lanes: uint16(dl.dtype.lanes)}}
	ndim := int(dl.ndim)
	if ndim > 0 {
		t.shape = make([]int64, ndim)
		copy(t.shape, unsafe.Slice((*int64)(unsafe.Pointer(dl.shape)), ndim))
	}
	for _, d := range t.shape {
		t.count *= int(d)
	}
	if dl.strides != nil && ndim > 0 { // NULL strides mean compact row-major
		strides := unsafe.Slice((*int64)(unsafe.Pointer(dl.strides)), ndim)
		expected := int64(1)
		for i := ndim - 1; i >= 0; i-- {
			if t.shape[i] != 1 && strides[i] != expected {
				t.compact = false
			}
			expected *= t.shape[i]
		}
	}
	runtime.SetFinalizer(t, (*Tensor).Close)
	return t
}

// DType is the element type; it stays readable after Close.
func (t *Tensor) DType() DType { return t.dtype }

// Shape is a copy of the shape; it stays readable after Close.
func (t *Tensor) Shape() []int64 { return append([]int64(nil), t.shape...) }

// Len is the number of elements.
func (t *Tensor) Len() int { return t.count }

// Close calls the tensor's deleter; views from Data and Bytes must not be used after it.
// Closing again does nothing.
func (t *Tensor) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.managed != nil {
		C.rxt_go_delete(t.managed)
		t.managed = nil
		runtime.SetFinalizer(t, nil)
	}
	return nil
}

// first is the address of the first element; the caller holds t.mu.
func (t *Tensor) first() unsafe.Pointer {
	dl := &t.managed.dl_tensor
	return unsafe.Add(dl.data, uintptr(dl.byte_offset))
}

// view checks that the memory can be read as a Go slice of |dtype|; the caller holds t.mu.
func (t *Tensor) view(dtype *DType) error {
	if t.managed == nil {
		return closedError("tensor")
	}
	if dtype != nil && *dtype != t.dtype {
		return errorf(InvalidArgument, "the tensor holds %s, not %s", t.dtype, *dtype)
	}
	if !t.compact {
		return errorf(Unimplemented, "the tensor of shape %s is not compact row-major", shapeText(t.shape))
	}
	return nil
}

// Data views the tensor's memory as a []T without a copy. The slice is valid until the Tensor
// is closed (or, left to the finalizer, unreachable: keep the Tensor alive while using it, e.g.
// with `defer t.Close()`). InvalidArgument if T is not the tensor's dtype.
func Data[T Element](t *Tensor) ([]T, error) {
	dtype := dtypeOf[T]()
	t.mu.RLock()
	defer t.mu.RUnlock()
	if err := t.view(&dtype); err != nil {
		return nil, err
	}
	if t.count == 0 {
		return []T{}, nil
	}
	return unsafe.Slice((*T)(t.first()), t.count), nil
}

// Copy is a copy of the tensor's elements in Go memory, usable after Close.
func Copy[T Element](t *Tensor) ([]T, error) {
	dtype := dtypeOf[T]()
	t.mu.RLock()
	defer t.mu.RUnlock()
	if err := t.view(&dtype); err != nil {
		return nil, err
	}
	out := make([]T, t.count)
	if t.count > 0 {
		copy(out, unsafe.Slice((*T)(t.first()), t.count))
	}
	return out, nil
}

// Bytes views the tensor's memory as bytes (any dtype), valid as long as Data's views.
func (t *Tensor) Bytes() ([]byte, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if err := t.view(nil); err != nil {
		return nil, err
	}
	size := t.count * int(t.dtype.Bits) / 8 * int(t.dtype.Lanes)
	if size == 0 {
		return []byte{}, nil
	}
	return unsafe.Slice((*byte)(t.first()), size), nil
}
