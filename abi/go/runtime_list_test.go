package rxt_test

// The build tag rxt_runtime links librxt_runtime, which exports only the functions of
// abi/rxt_runtime.list. This test reads the package's sources as `go build -tags rxt_runtime`
// selects them (go/build applies the //go:build lines of .go and .c files alike) and requires
// every rxt function they call to be on the list: a file calling a compiler function without
// //go:build !rxt_runtime fails here, naming the function and the file, rather than as an
// undefined symbol at link time (or not at all, if librxt_runtime ever exported more than its
// list). It reads sources only, so it runs in both builds.

import (
	"bufio"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// runtimeList is abi/rxt_runtime.list: one function a line, # comments.
func runtimeList(t *testing.T) map[string]bool {
	t.Helper()
	file, err := os.Open("../rxt_runtime.list")
	ok(t, err)
	defer file.Close()
	listed := map[string]bool{}
	scanner := bufio.NewScanner(file)
	for scanner.Scan() {
		if line := strings.TrimSpace(scanner.Text()); line != "" && !strings.HasPrefix(line, "#") {
			listed[line] = true
		}
	}
	ok(t, scanner.Err())
	return listed
}

// rxt.h names its types *_t and no function so: C.rxt_trainer_t and the conversion
// C.rxt_trainer_tensors_t(kind) are not calls of the library.
func isCType(name string) bool { return strings.HasSuffix(name, "_t") }

// cCall is an rxt identifier followed by '(' in C: a call (or a helper's own definition).
var cCall = regexp.MustCompile(`\b(rxt_[a-z0-9_]+)\s*\(`)

func TestRuntimeBuildCallsOnlyTheRuntime(t *testing.T) {
	listed := runtimeList(t)
	context := build.Default
	context.BuildTags = []string{"rxt_runtime"}
	context.CgoEnabled = true
	pkg, err := context.ImportDir(".", 0)
	ok(t, err)
	called := map[string][]string{}  // rxt function -> the files calling it
	helpers := map[string][]string{} // rxt_go_ helper (rxt_go.c) -> the Go files calling it
	defined := map[string]bool{}     // rxt_go_ helpers the selected C files define
	fset := token.NewFileSet()
	for _, name := range append(append([]string{}, pkg.GoFiles...), pkg.CgoFiles...) {
		file, err := parser.ParseFile(fset, name, nil, 0)
		ok(t, err)
		ast.Inspect(file, func(node ast.Node) bool {
			selector, isSelector := node.(*ast.SelectorExpr)
			if !isSelector {
				return true
			}
			if pkgName, isIdent := selector.X.(*ast.Ident); !isIdent || pkgName.Name != "C" {
				return true
			}
			switch id := selector.Sel.Name; {
			case !strings.HasPrefix(id, "rxt_") || isCType(id):
			case strings.HasPrefix(id, "rxt_go_"):
				helpers[id] = append(helpers[id], name)
			default:
				called[id] = append(called[id], name)
			}
			return true
		})
	}
	for _, name := range pkg.CFiles {
		text, err := os.ReadFile(filepath.Join(pkg.Dir, name))
		ok(t, err)
		for _, match := range cCall.FindAllStringSubmatch(string(text), -1) {
			switch id := match[1]; {
			case isCType(id):
			case strings.HasPrefix(id, "rxt_go_"):
				defined[id] = true
			default:
				called[id] = append(called[id], name)
			}
		}
	}
	// Both halves of the scan found something: Go calls rxt_trainer_load itself, and only the C
	// helper calls rxt_trainer_update.
	if len(called["rxt_trainer_load"]) == 0 || len(called["rxt_trainer_update"]) == 0 {
		t.Fatalf("the scan missed rxt_trainer_load or rxt_trainer_update: %v", called)
	}
	var missing []string
	for id, files := range called {
		if !listed[id] {
			missing = append(missing, id+" (called in "+strings.Join(unique(files), ", ")+")")
		}
	}
	for id, files := range helpers {
		if !defined[id] {
			missing = append(missing, id+" (a helper "+strings.Join(unique(files), ", ")+
				" call, which no C file of the runtime build defines)")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("with -tags rxt_runtime the package calls what librxt_runtime does not export "+
			"(abi/rxt_runtime.list); give those files //go:build !rxt_runtime:\n  %s", strings.Join(missing, "\n  "))
	}
	t.Logf("the runtime build (Go files: %d, C files: %d) calls %d of the %d functions listed",
		len(pkg.GoFiles)+len(pkg.CgoFiles), len(pkg.CFiles), len(called), len(listed))
}

func unique(names []string) []string {
	sort.Strings(names)
	out := names[:0]
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, n)
		}
	}
	return out
}
