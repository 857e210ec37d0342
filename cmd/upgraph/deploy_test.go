package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"
)

// TestDeployCallsRealCommands checks every upgraph invocation in the
// manifests under deploy/ (every YAML document of every file, read raw, not
// built): each container or init container that runs upgraph (its image is
// upgraph's and it has no command, or its command is upgraph) names a
// command that exists, every --flag (--flag=value, --flag value or a
// boolean) is one of that command's (or, before the command, a global
// one), and no flag follows an argument (the command line parser stops at
// the first argument, so such a flag would be taken as one). deploy/check
// builds the kustomizations and checks the objects themselves.
func TestDeployCallsRealCommands(t *testing.T) {
	app := newApp()
	var files []string
	err := filepath.WalkDir("../../deploy", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, c := range upgraphContainers(doc) {
				where := fmt.Sprintf("%s: container %s", f, c.name)
				if cmd := checkInvocation(t, where, app, c.words); cmd != "" {
					calls[cmd]++
				}
			}
		}
	}
	// The manifests run the service and, in the S3 variant, generate and
	// publish: if none of these is found the walk stopped matching.
	for _, want := range []string{"service", "generate", "publish"} {
		if calls[want] == 0 {
			t.Errorf("no container under deploy/ runs upgraph %s (found %v); the search probably stopped matching", want, calls)
		}
	}
}

// container is a container spec found in a manifest, with the words of
// the upgraph command line it runs (after the program name).
type container struct {
	name  string
	words []string
}

// upgraphContainers finds, anywhere in a YAML document, the objects that
// look like a container (a name and an image) and run upgraph.
func upgraphContainers(node any) []container {
	var out []container
	switch n := node.(type) {
	case map[string]any:
		if name, ok := n["name"].(string); ok {
			if img, ok := n["image"].(string); ok {
				command, args := stringList(n["command"]), stringList(n["args"])
				switch {
				case len(command) > 0 && path.Base(command[0]) == "upgraph":
					out = append(out, container{name, append(command[1:], args...)})
				case len(command) == 0 && isUpgraphImage(img):
					out = append(out, container{name, args})
				}
			}
		}
		for _, v := range n {
			out = append(out, upgraphContainers(v)...)
		}
	case []any:
		for _, v := range n {
			out = append(out, upgraphContainers(v)...)
		}
	}
	return out
}

// isUpgraphImage: the image's repository is .../upgraph, whatever the
// registry (the manifests' image may be replaced by a mirror's copy).
func isUpgraphImage(ref string) bool {
	repo, _, _ := strings.Cut(ref, "@")
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	return path.Base(repo) == "upgraph"
}

// strings_ is a YAML list of strings (nil for anything else).
func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			s = fmt.Sprint(e)
		}
		out = append(out, s)
	}
	return out
}

// checkInvocation checks one command line (the words after the program)
// against app and returns the command's name ("" if there is none).
func checkInvocation(t *testing.T, where string, app *cli.App, words []string) string {
	t.Helper()
	i := checkFlags(t, where+": global", app.Flags, words, 0, true)
	if i >= len(words) {
		t.Errorf("%s: upgraph without a command: %q", where, words)
		return ""
	}
	cmd := findCommand(app.Commands, words[i])
	if cmd == nil {
		t.Errorf("%s: no command %q", where, words[i])
		return ""
	}
	name := cmd.Name
	i++
	// edge nginx and the like: a subcommand follows its command.
	for len(cmd.Subcommands) > 0 && i < len(words) {
		sub := findCommand(cmd.Subcommands, words[i])
		if sub == nil {
			break
		}
		cmd, i = sub, i+1
	}
	checkFlags(t, where+": "+name, cmd.Flags, words, i, false)
	return name
}

func findCommand(cmds []*cli.Command, word string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(word) {
			return c
		}
	}
	return nil
}

// checkFlags checks words[i:] against flags: each --flag must be one of
// them (or --help), and takes the next word as its value unless it has =
// or is a boolean. With untilWord (the global flags) it stops at the first
// word that is not a flag and returns its index; otherwise every other
// word is an argument, and a flag after one is an error.
func checkFlags(t *testing.T, where string, flags []cli.Flag, words []string, i int, untilWord bool) int {
	t.Helper()
	byName := map[string]cli.Flag{}
	for _, f := range flags {
		for _, n := range f.Names() {
			byName[n] = f
		}
	}
	argument := ""
	for ; i < len(words); i++ {
		w := words[i]
		name, isFlag := strings.CutPrefix(w, "--")
		if !isFlag || name == "" {
			if untilWord {
				return i
			}
			argument = w
			continue
		}
		name, _, hasValue := strings.Cut(name, "=")
		if argument != "" {
			t.Errorf("%s: --%s comes after the argument %q: the parser stops at the first argument, so it would be one", where, name, argument)
		}
		f, known := byName[name]
		if !known && name != "help" {
			t.Errorf("%s: no flag --%s", where, name)
			continue
		}
		if takes, isDoc := f.(cli.DocGenerationFlag); !hasValue && isDoc && takes.TakesValue() {
			i++ // --flag value
			if i >= len(words) {
				t.Errorf("%s: --%s without its value", where, name)
			}
		}
	}
	return i
}
