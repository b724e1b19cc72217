//go:build !rxt_runtime

package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// Listing plugins and what they provide: librxt only (librxt_runtime loads plugins for their
// extern functions and lists nothing).

// PluginInfo describes a loaded plugin (rxt_plugin_info_t).
type PluginInfo struct {
	Name, Version, Path string
	ABIVersion          uint32 // the plugin ABI version it speaks
	NumOptimizers       int
	NumLosses           int
	NumGradients        int
	NumBackends         int
}

// PluginItemKind is what plugins provide.
type PluginItemKind int

const (
	PluginOptimizer PluginItemKind = C.RXT_PLUGIN_OPTIMIZER
	PluginLoss      PluginItemKind = C.RXT_PLUGIN_LOSS
	PluginGradient  PluginItemKind = C.RXT_PLUGIN_GRADIENT
	PluginBackend   PluginItemKind = C.RXT_PLUGIN_BACKEND
)

// NamedItem is an item of a listing: a name and its one-line summary.
type NamedItem struct{ Name, Summary string }

// LoadSearchPath loads every plugin on the search path (RXT_PLUGIN_PATH, then the
// installation's plugin directory); the error lists every plugin that failed.
func LoadSearchPath() error { return statusError(C.rxt_plugins_load_search_path()) }

// Plugins lists the plugins loaded into this context, in load order.
func (c *Context) Plugins() ([]PluginInfo, error) {
	var out []PluginInfo
	err := c.use(func(h *C.rxt_context_t) error {
		var err error
		if h == nil {
			h = C.rxt_context_default()
		}
		out, err = listPlugins(h)
		return err
	})
	return out, err
}

// Plugins lists the default context's plugins, in load order.
func Plugins() ([]PluginInfo, error) { return listPlugins(nil) }

// PluginItems lists every registered item of |kind| (e.g. the optimizers), sorted by name.
func PluginItems(kind PluginItemKind) ([]NamedItem, error) {
	found, err := pairs(func(handle C.uintptr_t) C.rxt_status_t {
		return C.rxt_go_plugin_items_list(C.rxt_plugin_item_kind_t(kind), handle)
	})
	items := make([]NamedItem, len(found))
	for i, p := range found {
		items[i] = NamedItem{Name: p[0], Summary: p[1]}
	}
	return items, err
}

func listPlugins(context *C.rxt_context_t) ([]PluginInfo, error) {
	var out []PluginInfo
	handle := cgo.NewHandle(pluginVisitor(func(info *C.rxt_plugin_info_t) {
		var p PluginInfo
		var probe C.rxt_plugin_info_t
		end := func(offset, size uintptr) uintptr { return offset + size }
		if infoField(info, end(unsafe.Offsetof(probe.path), unsafe.Sizeof(probe.path))) {
			p.Name, p.Version, p.Path = C.GoString(info.name), C.GoString(info.version), C.GoString(info.path)
		}
		if infoField(info, end(unsafe.Offsetof(probe.abi_version), unsafe.Sizeof(probe.abi_version))) {
			p.ABIVersion = uint32(info.abi_version)
		}
		if infoField(info, end(unsafe.Offsetof(probe.num_backends), unsafe.Sizeof(probe.num_backends))) {
			p.NumOptimizers, p.NumLosses = int(info.num_optimizers), int(info.num_losses)
			p.NumGradients, p.NumBackends = int(info.num_gradients), int(info.num_backends)
		}
		out = append(out, p)
	}))
	defer handle.Delete()
	if err := statusError(C.rxt_go_plugins_list(context, C.uintptr_t(handle))); err != nil {
		return nil, err
	}
	return out, nil
}
