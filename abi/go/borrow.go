package rxt

import (
	"fmt"
	"unsafe"
)

// Arg is a tensor a call takes: a Borrowed Go slice or a *Tensor that rxt returned.
type Arg interface{ isArg() }

// Borrowed is a Go slice described as a tensor, which rxt reads in place during a call (see
// the package documentation for when a copy is made instead). Make it with Borrow.
type Borrowed struct {
	data  unsafe.Pointer // the slice's first element; nil when empty (also keeps it alive)
	count int
	dtype DType
	shape []int64
}

func (Borrowed) isArg() {}

// Borrow describes |data| as a tensor of |shape| (row-major; no shape: a scalar). It copies
// nothing; a call using it fails with InvalidArgument if len(data) does not fill the shape.
// The slice may be changed again as soon as the call returns: rxt keeps nothing.
func Borrow[T Element](data []T, shape ...int64) Borrowed {
	b := Borrowed{count: len(data), dtype: dtypeOf[T](), shape: append([]int64(nil), shape...)}
	if len(data) > 0 {
		b.data = unsafe.Pointer(&data[0])
	}
	return b
}

// check returns why the slice does not fill its shape, or nil.
func (b Borrowed) check(what fmt.Stringer) error {
	count := int64(1)
	for _, d := range b.shape {
		if d < 0 {
			return errorf(InvalidArgument, "%s: negative dim in shape %s", what, shapeText(b.shape))
		}
		count *= d
	}
	if count != int64(b.count) {
		return errorf(InvalidArgument, "%s: %d elements do not fill shape %s (%d elements)", what, b.count,
			shapeText(b.shape), count)
	}
	return nil
}

// bytes is the size of the data.
func (b Borrowed) bytes() uintptr { return uintptr(b.count) * uintptr(b.dtype.Bits/8) }
