// Package rxt is the Go binding of rxt's C ABI (rxt.h, librxt): build a training step from a
// backbone module, or open a trainer file, and train it from Go.
//
//	module, err := rxt.ParseModule(text, "mlp.rxt")
//	trainer, err := rxt.NewTrainer(module, rxt.TrainerOptions{Loss: "cross_entropy", Optimizer: "adam",
//		OptimizerOptions: "lr=0.001"})
//	defer trainer.Close()
//	err = trainer.InitXavierUniform(0)
//	loss, err := trainer.Update([]rxt.Arg{rxt.Borrow(images, 64, 784)}, []rxt.Arg{rxt.Borrow(labels, 64)})
//	w0, err := trainer.GetByName(rxt.Params, "w0") // a *Tensor over rxt's memory
//	defer w0.Close()
//	values, err := rxt.Data[float32](w0)          // viewed in place until Close
//
// # Building and linking
//
// cgo compiles against rxt.h of this source tree (abi/include) and links -lrxt. Point the
// linker at a librxt with CGO_LDFLAGS, e.g. "-L$PREFIX/lib -Wl,-rpath,$PREFIX/lib", and, outside
// this tree, the compiler at rxt.h with CGO_CFLAGS="-I$PREFIX/include". rxt.h includes
// <dlpack/dlpack.h> (Debian's libdlpack-dev). The package needs Go 1.19 and nothing but the
// standard library.
//
// With the build tag rxt_runtime (go build -tags rxt_runtime) it links -lrxt_runtime instead:
// librxt_runtime, the runtime alone (docs/deploy.md), for programs that train from trainer
// files where there is no compiler and no LLVM. The API is then what the runtime has: trainer
// files (LoadTrainer, Save), Update, Evaluate, Predict, the trainer's tensors, learning rate,
// schedules and checkpoints, contexts and LoadPlugin; ParseModule, Module, NewTrainer,
// SaveForTarget and the plugin listings are not compiled.
//
// # Errors
//
// Every failure is an error value, never a panic: an *Error carrying rxt's Code and message
// ("train_step: argument 0 (%x): expected Tensor((64, 784), float32), got float64 (64, 784)"),
// read with errors.As. What the binding refuses before calling rxt (a closed handle, a slice that
// does not fill its shape) is an *Error too, with the code rxt would give.
//
// # Handles: Close and finalizers
//
// Context, Module, Trainer and Tensor hold a C handle. Close releases it; closing again does
// nothing, and any other method of a closed handle returns FailedPrecondition. A finalizer
// closes a handle that becomes unreachable, as a safety net only: the garbage collector does
// not see the C memory behind a handle, so close what you are done with. A Tensor's Data and
// Bytes are views of rxt's memory, valid until the Tensor is closed: keep the Tensor reachable
// (`defer t.Close()`) while using them, or take a Copy.
//
// # Goroutines
//
// rxt runs one call at a time per trainer; Trainer's methods take a mutex, so goroutines may
// share a Trainer and their calls run one after another. Separate trainers run in parallel (one
// Context may serve them all: it is thread-safe). A Module may be read (printed, verified,
// built into trainers) from many goroutines at once; its SetAttr* methods wait for the readers,
// since rxt allows no change while another thread uses a module. Close waits for calls in
// flight on the same handle.
//
// # Where data is copied, and why
//
// Tensors go into rxt as DLPack tensors. A Borrowed Go slice (Borrow) is read by rxt in place:
// no copy by the binding. cgo's rules decide how: Go may pass C a pointer to Go memory that
// holds no Go pointers (a []float32 holds none), but "Go code may not store a Go pointer in C
// memory", and a DLTensor in Go memory whose data field points to Go memory would be Go memory
// holding a Go pointer, which C may not be given either. So the DLTensor descriptions (dtype,
// shape) are C memory that Go fills with everything but the data pointer, and each slice's data
// pointer goes to a C helper (rxt_go.c) as a plain call argument; the helper, being C, puts it
// into the DLTensor for the duration of the rxt call and clears it before returning, as the
// rules allow. The tests run with GODEBUG=cgocheck=2, which checks exactly this.
//
// The copies that remain:
//   - Past the first 8 tensors of one call (the helpers take 8 data pointers as arguments), a
//     Borrowed slice is copied into C memory for the call: a call's Go pointers can only be its
//     arguments.
//   - rxt itself copies what it keeps: Set copies into the parameter, Update, Evaluate and
//     Predict read their inputs in place when they are compact and 64-byte aligned and copy them
//     otherwise (Go's allocator aligns large slices to pages, small ones less).
//   - Strings (module text, names, paths, options) are copied with C.CString: rxt.h takes
//     NUL-terminated C strings, and Go strings are not terminated.
//   - Tensors coming out (Get, Predict) are never copied: Data views rxt's memory with
//     unsafe.Slice; Copy is the explicit copy into Go memory.
package rxt
