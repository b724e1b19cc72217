package rxt

// #include "rxt_go.h"
import "C"

import "fmt"

// Code is one of rxt's canonical error codes (rxt_code_t; the same numbers as the core's).
type Code int

// The codes of rxt.h.
const (
	OK                 Code = C.RXT_OK
	Cancelled          Code = C.RXT_CANCELLED
	Unknown            Code = C.RXT_UNKNOWN
	InvalidArgument    Code = C.RXT_INVALID_ARGUMENT
	NotFound           Code = C.RXT_NOT_FOUND
	AlreadyExists      Code = C.RXT_ALREADY_EXISTS
	ResourceExhausted  Code = C.RXT_RESOURCE_EXHAUSTED
	FailedPrecondition Code = C.RXT_FAILED_PRECONDITION
	OutOfRange         Code = C.RXT_OUT_OF_RANGE
	Unimplemented      Code = C.RXT_UNIMPLEMENTED
	Internal           Code = C.RXT_INTERNAL
	DataLoss           Code = C.RXT_DATA_LOSS
)

// String is rxt's name of the code ("invalid argument"), as rxt_code_name gives it.
func (c Code) String() string { return C.GoString(C.rxt_code_name(C.rxt_code_t(c))) }

// Error is a failure reported by rxt (a status: code and message) or by this binding before
// calling rxt (a closed handle, a tensor whose data does not fill its shape), with the code
// rxt would give. Use errors.As to read it.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("rxt: %s: %s", e.Code, e.Message) }

// errorf makes the binding's own errors.
func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// statusError turns a status into an *Error and frees it; nil for NULL (success). The result is
// error, not *Error, so that success is a nil interface.
func statusError(status C.rxt_status_t) error {
	if status == nil {
		return nil
	}
	defer C.rxt_status_free(status)
	return &Error{Code: Code(C.rxt_status_code(status)), Message: C.GoString(C.rxt_status_message(status))}
}

// closedError is what every method of a closed handle returns.
func closedError(what string) error {
	return errorf(FailedPrecondition, "the %s is closed", what)
}
