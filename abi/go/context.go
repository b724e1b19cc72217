package rxt

// #include <stdlib.h>
// #include "rxt_go.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Context holds what the trainers made in it use: its own plugins and kernel threads
// (rxt_context_t). It is safe for concurrent use; the trainers made in it keep it alive, so it
// may be closed before them. The log and allocator hooks of rxt_context_options_t are not
// offered (they would call into Go from rxt's kernel threads).
type Context struct {
	mu       sync.RWMutex // users read it; Close takes it exclusively
	handle   *C.rxt_context_t
	borrowed bool // the default context: never released
}

// ContextOptions are rxt_context_options_t's fields; the zero value is rxt's defaults.
type ContextOptions struct {
	NumThreads   int      // kernel threads, the caller's included; 0: the process pool
	NoSearchPath bool     // never load the plugin search path (only Plugins and LoadPlugin)
	Plugins      []string // plugin files loaded at creation; one that fails fails NewContext
}

// NewContext makes a context (rxt_context_create). It fails, making nothing, if a plugin does
// not load (the message names the file) or NumThreads is negative.
func NewContext(options ContextOptions) (*Context, error) {
	var o C.rxt_context_options_t
	C.rxt_context_options_init(&o)
	o.num_threads = C.int32_t(options.NumThreads)
	if options.NoSearchPath {
		o.search_path = 0
	}
	if len(options.Plugins) > 0 {
		// rxt_context_options_t is Go memory here, so its plugin list must be C memory.
		paths := (**C.char)(C.calloc(C.size_t(len(options.Plugins)), C.size_t(unsafe.Sizeof(uintptr(0)))))
		list := unsafe.Slice(paths, len(options.Plugins))
		for i, p := range options.Plugins {
			list[i] = C.CString(p)
		}
		defer func() {
			for _, p := range list {
				C.free(unsafe.Pointer(p))
			}
			C.free(unsafe.Pointer(paths))
		}()
		o.plugins = paths
		o.num_plugins = C.size_t(len(options.Plugins))
	}
	var handle *C.rxt_context_t
	if err := statusError(C.rxt_context_create(&o, &handle)); err != nil {
		return nil, err
	}
	c := &Context{handle: handle}
	runtime.SetFinalizer(c, (*Context).Close)
	return c, nil
}

// DefaultContext is the process's context: the plugins LoadPlugin loads, RXT_NUM_THREADS
// threads. Closing it does nothing.
func DefaultContext() *Context { return &Context{handle: C.rxt_context_default(), borrowed: true} }

// Close drops this reference; trainers made in the context keep it alive. Closing again does
// nothing.
func (c *Context) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handle != nil && !c.borrowed {
		C.rxt_context_release(c.handle)
		runtime.SetFinalizer(c, nil)
	}
	c.handle = nil
	return nil
}

// use runs |f| with the live handle (read-locked: Close waits); a closed context is an error.
// A nil *Context is the default context.
func (c *Context) use(f func(*C.rxt_context_t) error) error {
	if c == nil {
		return f(nil)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.handle == nil {
		return closedError("context")
	}
	return f(c.handle)
}

// LoadPlugin loads a plugin into this context (rxt_context_load_plugin).
func (c *Context) LoadPlugin(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return c.use(func(h *C.rxt_context_t) error {
		if h == nil {
			h = C.rxt_context_default()
		}
		return statusError(C.rxt_context_load_plugin(h, cpath))
	})
}

// NumThreads is how many threads the context's kernels use.
func (c *Context) NumThreads() (int, error) {
	var n C.int32_t
	err := c.use(func(h *C.rxt_context_t) error {
		if h == nil {
			h = C.rxt_context_default()
		}
		return statusError(C.rxt_context_num_threads(h, &n))
	})
	return int(n), err
}

// LoadPlugin loads the plugin library at |path| into the default context (rxt_plugin_load).
// Loading a file already loaded does nothing; a failure (missing file, wrong plugin ABI, a
// name already taken) leaves nothing of it registered and names the file. Linked with
// librxt_runtime (the rxt_runtime build tag), only the plugin's extern functions are taken (what
// kernels compiled ahead of time call); the rest is for the compiler.
func LoadPlugin(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return statusError(C.rxt_plugin_load(cpath))
}
