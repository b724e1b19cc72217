//go:build !rxt_runtime

package rxt_test

import (
	"testing"

	"rxt.dev/rxt"
)

func TestModulePrintParsesBack(t *testing.T) {
	module := parse(t, linearBackbone)
	ok(t, module.Verify())
	text, err := module.Print()
	ok(t, err)
	again, err := rxt.ParseModule(text, "printed.rxt")
	ok(t, err)
	defer again.Close()
	printed, err := again.Print()
	ok(t, err)
	if printed != text {
		t.Fatalf("print, parse, print differs:\n%s\n---\n%s", text, printed)
	}
}

func TestModuleAttributesAndParams(t *testing.T) {
	module := parse(t, linearBackbone)
	paramNum, err := module.AttrInt("param_num")
	ok(t, err)
	if paramNum != 2 {
		t.Fatalf("param_num %d", paramNum)
	}
	ok(t, module.SetAttrFloat("lr", 0.5))
	ok(t, module.SetAttrString("note", "from Go"))
	lr, err := module.AttrFloat("lr")
	ok(t, err)
	note, err := module.AttrString("note")
	ok(t, err)
	names, err := module.AttrNames()
	ok(t, err)
	if lr != 0.5 || note != "from Go" || len(names) != 4 || names[0] != "param_num" {
		t.Fatalf("lr %v note %q names %v", lr, note, names)
	}
	params, err := module.FunctionParams("backbone")
	ok(t, err)
	want := []rxt.Param{{"x", "Tensor((4, 3), float32)"}, {"w", "Tensor((3, 2), float32)"}, {"b", "Tensor((2,), float32)"}}
	if len(params) != len(want) {
		t.Fatalf("params %v", params)
	}
	for i := range want {
		if params[i] != want[i] {
			t.Fatalf("param %d: %+v, want %+v", i, params[i], want[i])
		}
	}
}

func TestRunPassesMakesANewModule(t *testing.T) {
	module := parse(t, linearBackbone)
	legalized, err := module.RunPasses("LegalizeOps")
	ok(t, err)
	defer legalized.Close()
	before, _ := module.Print()
	after, err := legalized.Print()
	ok(t, err)
	if before == after {
		t.Fatalf("LegalizeOps changed nothing")
	}
	if again, _ := module.Print(); again != before {
		t.Fatalf("RunPasses changed its input")
	}
}
