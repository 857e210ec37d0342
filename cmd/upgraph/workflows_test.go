package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestWorkflowsCallRealCommands checks every upgraph invocation in the
// GitHub workflows: the command exists and every --flag it passes is one
// of that command's (or a global) flag. actionlint checks the rest.
func TestWorkflowsCallRealCommands(t *testing.T) {
	app := newApp()
	commands := map[string]*cli.Command{}
	for _, c := range app.Commands {
		commands[c.Name] = c
	}
	flagNames := func(flags []cli.Flag) map[string]bool {
		names := map[string]bool{"help": true}
		for _, f := range flags {
			for _, n := range f.Names() {
				names[n] = true
			}
		}
		return names
	}
	global := flagNames(app.Flags)
	files, _ := filepath.Glob("../../.github/workflows/*.yml")
	if len(files) < 3 {
		t.Fatalf("found %d workflows, want CI, regeneration and the graph-data pull request", len(files))
	}
	// An invocation starts a shell line with the built binary and runs to
	// the end of the line, continued with backslashes.
	invocation := regexp.MustCompile(`(?m)^\s*"\$RUNNER_TEMP/upgraph"((?:[^\n\\]|\\\n)*)`)
	calls := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range invocation.FindAllStringSubmatch(string(data), -1) {
			calls++
			words := strings.Fields(strings.ReplaceAll(m[1], "\\\n", " "))
			i := 0
			for i < len(words) && strings.HasPrefix(words[i], "--") {
				name, _, hasValue := strings.Cut(strings.TrimPrefix(words[i], "--"), "=")
				if !global[name] {
					t.Errorf("%s: unknown global flag --%s", f, name)
				}
				i++
				if !hasValue {
					i++ // its value
				}
			}
			if i >= len(words) {
				t.Errorf("%s: upgraph without a command: %q", f, m[1])
				continue
			}
			cmd := commands[words[i]]
			if cmd == nil {
				t.Errorf("%s: no command %q", f, words[i])
				continue
			}
			own := flagNames(cmd.Flags)
			for _, w := range words[i+1:] {
				if name, ok := strings.CutPrefix(w, "--"); ok {
					name, _, _ = strings.Cut(name, "=")
					if !own[name] {
						t.Errorf("%s: %s has no flag --%s", f, cmd.Name, name)
					}
				}
			}
		}
	}
	if calls < 6 {
		t.Errorf("found %d upgraph invocations in the workflows; the pattern probably stopped matching", calls)
	}
}
