//go:build !rxt_runtime

package rxt_test

// Every error path of the binding: an *rxt.Error with rxt's code and message, never a panic.

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rxt.dev/rxt"
)

func TestWrongShapeOrDtypeAtUpdateIsRxtsError(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	x, _, inputs, targets := linearData()
	_, err := trainer.Update([]rxt.Arg{rxt.Borrow(x, 3, 4)}, targets)
	wantError(t, err, rxt.InvalidArgument,
		"train_step: argument 0 (%x): expected Tensor((4, 3), float32), got float32 (3, 4)")
	_, err = trainer.Update([]rxt.Arg{rxt.Borrow(make([]float64, 12), 4, 3)}, targets)
	wantError(t, err, rxt.InvalidArgument, "got float64 (4, 3)")
	_, err = trainer.Update(append(inputs, inputs[0]), targets)
	wantError(t, err, rxt.InvalidArgument,
		"train_step: expected 1 input (x) and 1 target (targets), got 2 inputs and 1 target")
	_, err = trainer.Evaluate(inputs, nil)
	wantError(t, err, rxt.InvalidArgument, "got 1 input and 0 targets")
	_, err = trainer.Predict(targets...)
	wantError(t, err, rxt.InvalidArgument, "predict: argument 0 (%x)")
	_, err = trainer.Predict()
	wantError(t, err, rxt.InvalidArgument, "predict: expected 1 input (x), got 0 inputs")
	_, err = trainer.Update(nil, nil)
	wantError(t, err, rxt.InvalidArgument, "got 0 inputs and 0 targets")
	step, err := trainer.Step()
	ok(t, err)
	if step != 0 {
		t.Fatalf("a refused update changed the step count to %d", step)
	}
}

func TestArgumentsTheBindingRefuses(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	x, _, _, targets := linearData()
	_, err := trainer.Update([]rxt.Arg{rxt.Borrow(x[:11], 4, 3)}, targets)
	wantError(t, err, rxt.InvalidArgument, "inputs 0: 11 elements do not fill shape (4, 3) (12 elements)")
	_, err = trainer.Update([]rxt.Arg{rxt.Borrow(x, -4, -3)}, targets)
	wantError(t, err, rxt.InvalidArgument, "inputs 0: negative dim in shape (-4, -3)")
	_, err = trainer.Update([]rxt.Arg{nil}, targets)
	wantError(t, err, rxt.InvalidArgument, "inputs 0 is nil")
	var none *rxt.Tensor
	_, err = trainer.Evaluate([]rxt.Arg{rxt.Borrow(x, 4, 3)}, []rxt.Arg{none})
	wantError(t, err, rxt.InvalidArgument, "targets 0 is a nil *Tensor")
	borrowed := rxt.Borrow(x, 4, 3) // a *Borrowed is taken as the Borrowed it points to
	_, err = trainer.Evaluate([]rxt.Arg{&borrowed}, targets)
	ok(t, err)
	var nilBorrowed *rxt.Borrowed
	_, err = trainer.Evaluate([]rxt.Arg{nilBorrowed}, targets)
	wantError(t, err, rxt.InvalidArgument, "inputs 0 is a nil *Borrowed")
	wantError(t, trainer.Set(rxt.Params, 0, rxt.Borrow(x, 4)), rxt.InvalidArgument,
		"value 0: 12 elements do not fill shape (4,)")
	_, err = trainer.Get(rxt.Params, -1)
	wantError(t, err, rxt.OutOfRange, "index -1")
	_, err = rxt.NewTrainer(nil, rxt.TrainerOptions{})
	wantError(t, err, rxt.InvalidArgument, "the module is nil")
}

func TestTrainerErrorsCarryRxtsMessage(t *testing.T) {
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	x, _, _, _ := linearData()
	_, err := trainer.Find(rxt.Params, "zz")
	wantError(t, err, rxt.NotFound, "no parameter named 'zz' (w, b)")
	_, err = trainer.Name(rxt.Params, 2)
	wantError(t, err, rxt.OutOfRange, "index 2")
	_, err = trainer.Count(rxt.Kind(9))
	wantError(t, err, rxt.InvalidArgument, "tensor kind 9")
	err = trainer.Set(rxt.Params, 0, rxt.Borrow(ramp(6, 0, 1), 2, 3))
	wantError(t, err, rxt.InvalidArgument, "parameter 'w': expected Tensor((3, 2), float32), got float32 (2, 3)")
	err = trainer.Set(rxt.Params, 5, rxt.Borrow(ramp(6, 0, 1), 3, 2))
	wantError(t, err, rxt.OutOfRange, "index 5")
	err = trainer.Set(rxt.OptimizerState, 0, rxt.Borrow(x, 4, 3))
	wantError(t, err, rxt.InvalidArgument, "only parameters and states")
	err = trainer.SetByName(rxt.Params, "v", rxt.Borrow(x, 4, 3))
	wantError(t, err, rxt.NotFound, "'v'")
	_, err = trainer.Get(rxt.Inputs, 0)
	wantError(t, err, rxt.InvalidArgument, "arguments")
	wantError(t, trainer.InitZero(rxt.Inputs), rxt.InvalidArgument, "kind must be")
	wantError(t, trainer.SetSchedule("sawtooth", 0.1), rxt.InvalidArgument, "unknown schedule 'sawtooth'")
	wantError(t, trainer.SetLearningRate(-1), rxt.InvalidArgument, "learning rate")
}

func TestNewTrainerErrors(t *testing.T) {
	module := parse(t, linearBackbone)
	cases := []struct {
		options rxt.TrainerOptions
		code    rxt.Code
		text    string
	}{
		{rxt.TrainerOptions{Backend: "reference"}, rxt.InvalidArgument, "a backbone module needs options->loss and options->optimizer"},
		{rxt.TrainerOptions{Backend: "reference", Loss: "mse", Optimizer: "lion9"}, rxt.NotFound, "lion9"},
		{rxt.TrainerOptions{Backend: "tpu", Loss: "mse", Optimizer: "sgd"}, rxt.NotFound, "tpu"},
		{rxt.TrainerOptions{Backend: "reference", Loss: "mse", Optimizer: "sgd", OptimizerOptions: "lr="}, rxt.InvalidArgument, ""},
	}
	for _, c := range cases {
		trainer, err := rxt.NewTrainer(module, c.options)
		wantError(t, err, c.code, c.text)
		if trainer != nil {
			t.Fatalf("a failed NewTrainer returned a trainer")
		}
	}
	notBackbone := parse(t, strings.Replace(linearBackbone, "@backbone", "@main", 1))
	_, err := rxt.NewTrainer(notBackbone, rxt.TrainerOptions{Backend: "reference", Loss: "mse", Optimizer: "sgd"})
	wantError(t, err, rxt.NotFound, "SetupTrainer: the module has no function @backbone")
}

func TestMalformedModuleText(t *testing.T) {
	_, err := rxt.ParseModule("attributes {param_num = 1}\ndef @main(%x: Tensor((2, 3), float32)) -> {\n", "bad.rxt")
	wantError(t, err, rxt.InvalidArgument, "bad.rxt:2:")
	var e *rxt.Error
	errors.As(err, &e)
	if !strings.Contains(e.Message, "error:") {
		t.Fatalf("the message does not say error: %q", e.Message)
	}
	illFormed := parse(t, `def @main(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  dataflow {
    %p: Tuple() = print(%x, format="")
    %y: Tensor((2, 3), float32) = nn.relu(%x)
    output %y
  }
  return %y
}
`)
	wantError(t, illFormed.Verify(), rxt.InvalidArgument, "")
	module := parse(t, linearBackbone)
	_, err = module.AttrInt("no_such_attr")
	wantError(t, err, rxt.NotFound, "no_such_attr")
	_, err = module.AttrString("param_num")
	wantError(t, err, rxt.InvalidArgument, "")
	_, err = module.FunctionParams("no_such_function")
	wantError(t, err, rxt.NotFound, "no_such_function")
	_, err = module.RunPasses("NoSuchPass")
	wantError(t, err, rxt.NotFound, "NoSuchPass")
}

func TestUseAfterClose(t *testing.T) {
	module := parse(t, linearBackbone)
	trainer := linearTrainer(t, "sgd", "lr=0.05")
	_, _, inputs, targets := linearData()
	w, err := trainer.GetByName(rxt.Params, "w")
	ok(t, err)
	context, err := rxt.NewContext(rxt.ContextOptions{NoSearchPath: true})
	ok(t, err)
	for i := 0; i < 2; i++ { // closing twice is fine
		ok(t, trainer.Close())
		ok(t, module.Close())
		ok(t, w.Close())
		ok(t, context.Close())
	}
	_, err = trainer.Update(inputs, targets)
	wantError(t, err, rxt.FailedPrecondition, "the trainer is closed")
	_, err = trainer.Predict(inputs...)
	wantError(t, err, rxt.FailedPrecondition, "the trainer is closed")
	wantError(t, trainer.Save(filepath.Join(t.TempDir(), "t.rxtt")), rxt.FailedPrecondition, "the trainer is closed")
	_, err = trainer.Step()
	wantError(t, err, rxt.FailedPrecondition, "the trainer is closed")
	_, err = module.Print()
	wantError(t, err, rxt.FailedPrecondition, "the module is closed")
	wantError(t, module.SetAttrInt("param_num", 1), rxt.FailedPrecondition, "the module is closed")
	_, err = rxt.NewTrainer(module, rxt.TrainerOptions{Loss: "mse", Optimizer: "sgd"})
	wantError(t, err, rxt.FailedPrecondition, "the module is closed")
	_, err = rxt.Data[float32](w)
	wantError(t, err, rxt.FailedPrecondition, "the tensor is closed")
	_, err = w.Bytes()
	wantError(t, err, rxt.FailedPrecondition, "the tensor is closed")
	if got := w.Shape(); len(got) != 2 || got[0] != 3 || got[1] != 2 {
		t.Fatalf("the shape of a closed tensor: %v", got)
	}
	other := linearTrainer(t, "sgd", "lr=0.05")
	_, err = other.Update([]rxt.Arg{w}, targets)
	wantError(t, err, rxt.FailedPrecondition, "inputs 0: the tensor is closed")
	wantError(t, context.LoadPlugin("x.so"), rxt.FailedPrecondition, "the context is closed")
	_, err = rxt.LoadTrainer("x.rxtt", context)
	wantError(t, err, rxt.FailedPrecondition, "the context is closed")
	ok(t, rxt.DefaultContext().Close()) // the default context is borrowed: still usable
	_, err = rxt.DefaultContext().NumThreads()
	ok(t, err)
}

func TestErrorValue(t *testing.T) {
	_, err := rxt.ParseModule("def", "x.rxt")
	var e *rxt.Error
	if !errors.As(err, &e) {
		t.Fatalf("not an *rxt.Error: %T", err)
	}
	if want := "rxt: invalid argument: " + e.Message; err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err.Error(), want)
	}
	names := map[rxt.Code]string{rxt.InvalidArgument: "invalid argument", rxt.NotFound: "not found",
		rxt.DataLoss: "data loss", rxt.FailedPrecondition: "failed precondition", rxt.OutOfRange: "out of range"}
	for code, name := range names {
		if code.String() != name {
			t.Errorf("%d.String() = %q, want %q", int(code), code.String(), name)
		}
	}
	_, err = rxt.NewContext(rxt.ContextOptions{NumThreads: -1})
	wantError(t, err, rxt.InvalidArgument, "")
}
