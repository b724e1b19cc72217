//go:build rxt_runtime

package rxt_test

// runtimeOnly: this test binary is built with the build tag rxt_runtime, linked against
// librxt_runtime (helpers_build_test.go says false for the other build).
const runtimeOnly = true
