package rxt

// The C side: rxt.h from this source tree (abi/include), librxt from the linker's path.
// CGO_CFLAGS and CGO_LDFLAGS add to these (the ctest registration passes the build's
// -L<lib dir> and an rpath; against an installation, its include and lib directories).

// #cgo CFLAGS: -I${SRCDIR}/../include
// #cgo LDFLAGS: -lrxt
import "C"
