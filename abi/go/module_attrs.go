//go:build !rxt_runtime

package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

import "unsafe"

// Module attributes (param_num, state_num, ...): getters are NotFound for a missing attribute
// and InvalidArgument for one of another kind.

// AttrNames lists the attributes in module order.
func (m *Module) AttrNames() ([]string, error) {
	var names []string
	err := m.read(func(h *C.rxt_module_t) error {
		var count C.size_t
		if err := statusError(C.rxt_module_attr_count(h, &count)); err != nil {
			return err
		}
		for i := C.size_t(0); i < count; i++ {
			var name *C.char
			if err := statusError(C.rxt_module_attr_name(h, i, &name)); err != nil {
				return err
			}
			names = append(names, takeString(name))
		}
		return nil
	})
	return names, err
}

// AttrInt reads an integer attribute.
func (m *Module) AttrInt(name string) (int64, error) {
	var value C.int64_t
	err := withName(name, func(n *C.char) error {
		return m.read(func(h *C.rxt_module_t) error { return statusError(C.rxt_module_attr_get_int(h, n, &value)) })
	})
	return int64(value), err
}

// AttrFloat reads a float attribute.
func (m *Module) AttrFloat(name string) (float64, error) {
	var value C.double
	err := withName(name, func(n *C.char) error {
		return m.read(func(h *C.rxt_module_t) error { return statusError(C.rxt_module_attr_get_float(h, n, &value)) })
	})
	return float64(value), err
}

// AttrString reads a string attribute.
func (m *Module) AttrString(name string) (string, error) {
	var value string
	err := withName(name, func(n *C.char) error {
		return m.read(func(h *C.rxt_module_t) error {
			var out *C.char
			if err := statusError(C.rxt_module_attr_get_string(h, n, &out)); err != nil {
				return err
			}
			value = takeString(out)
			return nil
		})
	})
	return value, err
}

// SetAttrInt adds or replaces an integer attribute.
func (m *Module) SetAttrInt(name string, value int64) error {
	return withName(name, func(n *C.char) error {
		return m.write(func(h *C.rxt_module_t) error {
			return statusError(C.rxt_module_attr_set_int(h, n, C.int64_t(value)))
		})
	})
}

// SetAttrFloat adds or replaces a float attribute.
func (m *Module) SetAttrFloat(name string, value float64) error {
	return withName(name, func(n *C.char) error {
		return m.write(func(h *C.rxt_module_t) error {
			return statusError(C.rxt_module_attr_set_float(h, n, C.double(value)))
		})
	})
}

// SetAttrString adds or replaces a string attribute.
func (m *Module) SetAttrString(name, value string) error {
	cvalue := C.CString(value)
	defer C.free(unsafe.Pointer(cvalue))
	return withName(name, func(n *C.char) error {
		return m.write(func(h *C.rxt_module_t) error { return statusError(C.rxt_module_attr_set_string(h, n, cvalue)) })
	})
}
