//go:build !rxt_runtime

package rxt

// #include "rxt_go.h"
import "C"

import (
	"runtime/cgo"
)

// Listings call a C visitor once per item; rxt_go.c's visitors call these with a cgo.Handle of
// the Go function that collects the items (no Go pointer goes to C).

type pluginVisitor func(info *C.rxt_plugin_info_t)
type pairVisitor func(first, second string)

//export rxtGoVisitPlugin
func rxtGoVisitPlugin(handle C.uintptr_t, info *C.rxt_plugin_info_t) C.int {
	cgo.Handle(handle).Value().(pluginVisitor)(info)
	return 0
}

//export rxtGoVisitPair
func rxtGoVisitPair(handle C.uintptr_t, first, second *C.char) C.int {
	cgo.Handle(handle).Value().(pairVisitor)(C.GoString(first), C.GoString(second))
	return 0
}

// pairs runs a listing of (name, text) pairs.
func pairs(list func(handle C.uintptr_t) C.rxt_status_t) ([][2]string, error) {
	var out [][2]string
	handle := cgo.NewHandle(pairVisitor(func(first, second string) { out = append(out, [2]string{first, second}) }))
	defer handle.Delete()
	if err := statusError(list(C.uintptr_t(handle))); err != nil {
		return nil, err
	}
	return out, nil
}

// infoField reports whether the library's rxt_plugin_info_t (of size struct_size) holds the
// field that ends at |end|: structs passed out of rxt are read only as far as they reach.
func infoField(info *C.rxt_plugin_info_t, end uintptr) bool { return uintptr(info.struct_size) >= end }
