// Package rxt is the Go binding of rxt's C ABI (librxt, rxt.h).
package rxt
