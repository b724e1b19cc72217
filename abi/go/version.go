package rxt

// #include "rxt_go.h"
import "C"

// HeaderABIVersion is the RXT_ABI_VERSION of the rxt.h this package was compiled against.
const HeaderABIVersion = uint32(C.RXT_ABI_VERSION)

// Version is the "MAJOR.MINOR.PATCH" of the librxt actually loaded.
func Version() string { return C.GoString(C.rxt_version()) }

// ABIVersion is the RXT_ABI_VERSION of the librxt actually loaded; it differs from
// HeaderABIVersion only when the library is not the one the package was built for.
func ABIVersion() uint32 { return uint32(C.rxt_abi_version()) }
