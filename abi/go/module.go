//go:build !rxt_runtime

package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Module is an IR module (rxt_module_t): functions and attributes such as param_num. Reading
// it from several goroutines at once is safe; SetAttr* waits for readers (rxt allows no change
// while another thread uses it).
type Module struct {
	mu     sync.RWMutex // readers share it; setters and Close take it exclusively
	handle *C.rxt_module_t
}

// Param is a function parameter: its name and struct info in the text format.
type Param struct{ Name, StructInfo string }

func newModule(handle *C.rxt_module_t) *Module {
	m := &Module{handle: handle}
	runtime.SetFinalizer(m, (*Module).Close)
	return m
}

// ParseModule parses the text form (.rxt). |fileName| names it in diagnostics: a syntax error
// is InvalidArgument with a message starting "file:line:col: error:".
func ParseModule(text, fileName string) (*Module, error) {
	ctext := C.CString(text) // the text is copied: rxt.h takes a C pointer, and Go strings are not NUL-terminated
	defer C.free(unsafe.Pointer(ctext))
	cname := C.CString(fileName)
	defer C.free(unsafe.Pointer(cname))
	var handle *C.rxt_module_t
	if err := statusError(C.rxt_module_parse(ctext, C.size_t(len(text)), cname, &handle)); err != nil {
		return nil, err
	}
	return newModule(handle), nil
}

// Close releases the module (trainers made from it do not need it). Closing again does nothing.
func (m *Module) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.handle != nil {
		C.rxt_module_release(m.handle)
		m.handle = nil
		runtime.SetFinalizer(m, nil)
	}
	return nil
}

// read runs |f| with the live handle, shared with other readers.
func (m *Module) read(f func(*C.rxt_module_t) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.handle == nil {
		return closedError("module")
	}
	return f(m.handle)
}

// write runs |f| with the live handle, alone.
func (m *Module) write(f func(*C.rxt_module_t) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.handle == nil {
		return closedError("module")
	}
	return f(m.handle)
}

// Print is the module's text form.
func (m *Module) Print() (string, error) {
	var text string
	err := m.read(func(h *C.rxt_module_t) error {
		var out *C.char
		if err := statusError(C.rxt_module_print(h, &out)); err != nil {
			return err
		}
		text = takeString(out)
		return nil
	})
	return text, err
}

// Verify checks that the module is well formed; the error lists every diagnostic.
func (m *Module) Verify() error {
	return m.read(func(h *C.rxt_module_t) error { return statusError(C.rxt_module_verify(h)) })
}

// FunctionParams lists the parameters of |function| (NotFound if there is none).
func (m *Module) FunctionParams(function string) ([]Param, error) {
	cfunction := C.CString(function)
	defer C.free(unsafe.Pointer(cfunction))
	var params []Param
	err := m.read(func(h *C.rxt_module_t) error {
		found, err := pairs(func(handle C.uintptr_t) C.rxt_status_t {
			return C.rxt_go_function_params(h, cfunction, handle)
		})
		for _, p := range found {
			params = append(params, Param{Name: p[0], StructInfo: p[1]})
		}
		return err
	})
	return params, err
}

// RunPasses runs passes by name (with their options, as `rxt show --passes` takes them) on a
// copy of the module and returns the copy.
func (m *Module) RunPasses(names ...string) (*Module, error) {
	cnames := make([]*C.char, len(names))
	for i, n := range names {
		cnames[i] = C.CString(n)
		defer C.free(unsafe.Pointer(cnames[i]))
	}
	// The names array must be C memory: it holds pointers, and Go memory passed to C may not.
	array := (**C.char)(C.calloc(C.size_t(len(names)+1), C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(array))
	copy(unsafe.Slice(array, len(names)+1), cnames)
	var out *C.rxt_module_t
	err := m.read(func(h *C.rxt_module_t) error {
		return statusError(C.rxt_module_run_passes(h, array, C.size_t(len(names)), nil, &out))
	})
	if err != nil {
		return nil, err
	}
	return newModule(out), nil
}
