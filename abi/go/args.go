package rxt

// #include <stdlib.h>
// #include <string.h>
// #include "rxt_go.h"
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// argSlots is the C memory describing a call's tensors: the array of DLManagedTensor pointers
// rxt takes and one slot per Borrowed slice. It belongs to one Trainer and is used under its
// lock, so a call allocates nothing once the slots have grown to the largest call.
type argSlots struct {
	pointers **C.DLManagedTensor // C array of capacity entries
	slots    *C.rxt_go_slot_t    // C array of capacity entries, zeroed (cgo's advice for C memory Go writes)
	capacity int
}

// boundArgs is one call's arguments, bound to the slots until release.
type boundArgs struct {
	slots  *argSlots
	count  int
	data   [C.RXT_GO_DIRECT]unsafe.Pointer // Go pointers the helper attaches for the call (nil: none)
	copies []unsafe.Pointer                // C copies of Go data past RXT_GO_DIRECT, freed by release
	locked []*Tensor                       // Tensors read-locked so that no Close frees them mid-call
}

func (s *argSlots) grow(count int) error {
	if count <= s.capacity {
		return nil
	}
	s.free()
	pointers := (**C.DLManagedTensor)(C.calloc(C.size_t(count), C.size_t(unsafe.Sizeof(uintptr(0)))))
	slots := (*C.rxt_go_slot_t)(C.calloc(C.size_t(count), C.sizeof_rxt_go_slot_t))
	if pointers == nil || slots == nil {
		C.free(unsafe.Pointer(pointers))
		C.free(unsafe.Pointer(slots))
		return errorf(ResourceExhausted, "no C memory to describe %d tensors", count)
	}
	s.pointers, s.slots, s.capacity = pointers, slots, count
	return nil
}

func (s *argSlots) free() {
	for _, slot := range s.slotList() {
		C.free(unsafe.Pointer(slot.shape))
	}
	C.free(unsafe.Pointer(s.pointers))
	C.free(unsafe.Pointer(s.slots))
	s.pointers, s.slots, s.capacity = nil, nil, 0
}

func (s *argSlots) slotList() []C.rxt_go_slot_t {
	if s.slots == nil {
		return nil
	}
	return unsafe.Slice(s.slots, s.capacity)
}

// bind describes |groups| of tensors (inputs, then targets), named |names| in messages, in one
// C array. On error nothing stays bound.
func (s *argSlots) bind(names []string, groups ...[]Arg) (*boundArgs, error) {
	total := 0
	for _, g := range groups {
		total += len(g)
	}
	if err := s.grow(total); err != nil {
		return nil, err
	}
	b := &boundArgs{slots: s, count: total}
	i := 0
	for g, group := range groups {
		for j, arg := range group {
			if err := b.set(i, arg, argName{names[g], j}); err != nil {
				b.release()
				return nil, err
			}
			i++
		}
	}
	return b, nil
}

// argName names an argument in messages ("inputs 0"), formatted only for an error.
type argName struct {
	group string
	index int
}

func (n argName) String() string { return fmt.Sprintf("%s %d", n.group, n.index) }

func (b *boundArgs) set(i int, arg Arg, what argName) error {
	pointers := unsafe.Slice(b.slots.pointers, b.slots.capacity)
	switch a := arg.(type) {
	case *Tensor:
		if a == nil {
			return errorf(InvalidArgument, "%s is a nil *Tensor", what)
		}
		a.mu.RLock()
		if a.managed == nil {
			a.mu.RUnlock()
			return errorf(FailedPrecondition, "%s: the tensor is closed", what)
		}
		b.locked = append(b.locked, a)
		pointers[i] = a.managed
	case Borrowed:
		if err := a.check(what); err != nil {
			return err
		}
		slot := &b.slots.slotList()[i]
		if err := describe(slot, a); err != nil {
			return errorf(ResourceExhausted, "%s: %v", what, err)
		}
		if a.data != nil && i < C.RXT_GO_DIRECT {
			b.data[i] = a.data // attached by the C helper during the call: no copy
		} else if a.data != nil {
			// Go code may not store a Go pointer in C memory, and the helpers take only
			// RXT_GO_DIRECT pointers as arguments: the rest are copied to C memory.
			copied := C.malloc(C.size_t(a.bytes()))
			if copied == nil {
				return errorf(ResourceExhausted, "%s: no C memory for a copy of %d bytes", what, a.bytes())
			}
			C.memcpy(copied, a.data, C.size_t(a.bytes()))
			slot.managed.dl_tensor.data = copied
			b.copies = append(b.copies, copied)
		}
		pointers[i] = &slot.managed
	case *Borrowed:
		if a == nil {
			return errorf(InvalidArgument, "%s is a nil *Borrowed", what)
		}
		return b.set(i, *a, what)
	case nil:
		return errorf(InvalidArgument, "%s is nil", what)
	default: // Arg is sealed: only a new type of this package gets here
		return errorf(InvalidArgument, "%s: %T is not a tensor", what, arg)
	}
	return nil
}

// describe fills |slot| with |a|'s dtype and shape; its data stays NULL until a helper attaches it.
func describe(slot *C.rxt_go_slot_t, a Borrowed) error {
	ndim := len(a.shape)
	if ndim > int(slot.shape_capacity) {
		shape := (*C.int64_t)(C.calloc(C.size_t(ndim), C.sizeof_int64_t))
		if shape == nil {
			return fmt.Errorf("no C memory for a shape of %d dims", ndim)
		}
		C.free(unsafe.Pointer(slot.shape))
		slot.shape, slot.shape_capacity = shape, C.size_t(ndim)
	}
	if ndim > 0 {
		copy(unsafe.Slice((*int64)(unsafe.Pointer(slot.shape)), ndim), a.shape)
	}
	dl := &slot.managed.dl_tensor
	dl.data = nil
	dl.device.device_type = C.kDLCPU
	dl.device.device_id = 0
	dl.ndim = C.int(ndim)
	dl.dtype.code = C.uint8_t(a.dtype.Code)
	dl.dtype.bits = C.uint8_t(a.dtype.Bits)
	dl.dtype.lanes = C.uint16_t(a.dtype.Lanes)
	dl.shape = slot.shape
	dl.strides = nil
	dl.byte_offset = 0
	return nil
}

// args is the array the C call takes.
func (b *boundArgs) args() **C.DLManagedTensor { return b.slots.pointers }

// release frees the copies and unlocks the Tensors once the call has returned.
func (b *boundArgs) release() {
	for _, copied := range b.copies {
		C.free(copied)
	}
	slots := b.slots.slotList()
	for i := 0; i < b.count && i < len(slots); i++ {
		slots[i].managed.dl_tensor.data = nil
	}
	for _, t := range b.locked {
		t.mu.RUnlock()
	}
	runtime.KeepAlive(b.data)
}
