package rxt_test

import (
	"os"
	"strings"
	"testing"
)

// The build tag decides which library the process maps: librxt, or librxt_runtime and nothing
// of the compiler (no librxt, no LLVM, no backend plugin), as train_from_file.c's --no-compiler
// checks for C. A wrong #cgo LDFLAGS line in cgo.go fails here.
func TestLinkedLibrary(t *testing.T) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	mapped := func(name string) bool { return strings.Contains(string(maps), name) }
	if runtimeOnly {
		for _, name := range []string{"/librxt.so", "libLLVM", "rxt_backend_"} {
			if mapped(name) {
				t.Errorf("built with -tags rxt_runtime, the process maps %s", name)
			}
		}
		if !mapped("/librxt_runtime.so") {
			t.Errorf("built with -tags rxt_runtime, the process does not map librxt_runtime.so")
		}
		return
	}
	if !mapped("/librxt.so") || mapped("/librxt_runtime.so") {
		t.Errorf("built without -tags rxt_runtime, the process maps librxt: %v, librxt_runtime: %v",
			mapped("/librxt.so"), mapped("/librxt_runtime.so"))
	}
}
