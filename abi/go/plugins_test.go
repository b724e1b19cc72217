//go:build !rxt_runtime

package rxt_test

import (
	"errors"
	"strings"
	"testing"

	"rxt.dev/rxt"
)

// Building a trainer loads what it needs from the plugin search path: the standard
// optimizers are then listed, with their plugin.
func TestPluginListings(t *testing.T) {
	linearTrainer(t, "sgd", "lr=0.05")
	optimizers, err := rxt.PluginItems(rxt.PluginOptimizer)
	ok(t, err)
	found := map[string]bool{}
	for _, item := range optimizers {
		found[item.Name] = item.Summary != ""
	}
	if !found["sgd"] || !found["adam"] {
		t.Fatalf("optimizers %v", optimizers)
	}
	plugins, err := rxt.Plugins()
	ok(t, err)
	var std *rxt.PluginInfo
	for i := range plugins {
		if plugins[i].Name == "rxt_optim_std" {
			std = &plugins[i]
		}
	}
	if std == nil || std.NumOptimizers < 2 || std.Path == "" || std.ABIVersion == 0 {
		t.Fatalf("rxt_optim_std not listed right: %+v", plugins)
	}
	// The search path (librxt's own plugin directory) has the reference backend.
	if err := rxt.LoadSearchPath(); err != nil {
		var e *rxt.Error
		if !errors.As(err, &e) { // plugins that fail are listed in an *rxt.Error; the rest load
			t.Fatalf("LoadSearchPath: %T %v", err, err)
		}
	}
	backends, err := rxt.PluginItems(rxt.PluginBackend)
	ok(t, err)
	if !hasItem(backends, "reference") {
		t.Fatalf("backends %v", backends)
	}
	// A context of its own loads a plugin by path and lists only what it loaded.
	context, err := rxt.NewContext(rxt.ContextOptions{NoSearchPath: true, Plugins: []string{std.Path}, NumThreads: 1})
	ok(t, err)
	defer context.Close()
	mine, err := context.Plugins()
	ok(t, err)
	threads, err := context.NumThreads()
	ok(t, err)
	if len(mine) != 1 || mine[0].Name != "rxt_optim_std" || threads != 1 {
		t.Fatalf("the context's plugins %+v, threads %d", mine, threads)
	}
}

// A plugin refused for its ABI version leaves nothing registered: it is not listed
// (runtime_test.go checks the refusal itself, which librxt_runtime makes too).
func TestRefusedPluginIsNotListed(t *testing.T) {
	path := fromEnv(t, "RXT_TEST_PLUGIN_DIR", "bad/test_wrong_abi.so")
	wantError(t, rxt.LoadPlugin(path), rxt.FailedPrecondition, "speaks plugin ABI version 99")
	plugins, err := rxt.Plugins()
	ok(t, err)
	for _, p := range plugins {
		if strings.Contains(p.Path, "test_wrong_abi") {
			t.Fatalf("the refused plugin stayed loaded: %+v", p)
		}
	}
}

func hasItem(items []rxt.NamedItem, name string) bool {
	for _, item := range items {
		if item.Name == name {
			return true
		}
	}
	return false
}
