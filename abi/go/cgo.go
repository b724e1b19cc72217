package rxt

// The C side: rxt.h from this source tree (abi/include), the library from the linker's path.
// CGO_CFLAGS and CGO_LDFLAGS add to these (the ctest registration passes the build's
// -L<lib dir> and an rpath; against an installation, its include and lib directories).
//
// The build tag rxt_runtime links librxt_runtime (the runtime alone: docs/deploy.md) instead
// of librxt, and leaves out every file that calls a C function the runtime does not export
// (those carry //go:build !rxt_runtime): a program that only trains from trainer files then
// needs neither the compiler nor LLVM where it runs. runtime_list_test.go checks the runtime
// build against abi/rxt_runtime.list.

// #cgo CFLAGS: -I${SRCDIR}/../include
// #cgo !rxt_runtime LDFLAGS: -lrxt
// #cgo rxt_runtime LDFLAGS: -lrxt_runtime
import "C"
