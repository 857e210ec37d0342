package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/clidoc"
)

var updateDocs = flag.Bool("update", false, "TestDocs: rewrite docs/cli.md and docs/upgraph.1 from the binary")

func init() {
	// TestInvalidFlags tries every flag of every command, hidden ones
	// included, from a base invocation of the command.
	flagTestBases["docs"] = flagBase{args: "docs --format markdown"}
}

// TestDocs fails when the committed command-line reference is not what
// the binary prints: docs/cli.md and docs/upgraph.1 are generated from
// the command definitions.
func TestDocs(t *testing.T) {
	for _, tc := range []struct{ format, file string }{
		{"markdown", "docs/cli.md"},
		{"man", "docs/upgraph.1"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			stdout, stderr, code := run(t, t.TempDir(), nil, "docs", "--format", tc.format)
			if code != 0 {
				t.Fatalf("upgraph docs --format %s: exit %d: %s", tc.format, code, stderr)
			}
			again, _, _ := run(t, t.TempDir(), nil, "docs", "--format", tc.format)
			if again != stdout {
				t.Fatalf("upgraph docs --format %s: two runs print different references", tc.format)
			}
			path := filepath.Join("..", "..", filepath.FromSlash(tc.file))
			if *updateDocs {
				if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			committed, err := os.ReadFile(path)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if string(committed) != stdout {
				t.Errorf("%s is stale: it is not what `upgraph docs --format %s` prints. Regenerate it with\n"+
					"  make docs\nor\n"+
					"  go run ./cmd/upgraph docs --format %s > %s\nor\n"+
					"  go test ./cmd/upgraph -run TestDocs -update\nFirst difference, %s",
					tc.file, tc.format, tc.format, tc.file, firstLineDiff(string(committed), stdout))
			}
		})
	}
}

// firstLineDiff describes the first line where the two texts differ.
func firstLineDiff(committed, printed string) string {
	c, p := strings.Split(committed, "\n"), strings.Split(printed, "\n")
	for i := 0; i < max(len(c), len(p)); i++ {
		var cl, pl string
		if i < len(c) {
			cl = c[i]
		}
		if i < len(p) {
			pl = p[i]
		}
		if cl != pl || i >= len(c) || i >= len(p) {
			return "line " + strconv.Itoa(i+1) + ":\n  committed: " + cl + "\n  printed:   " + pl
		}
	}
	return "none"
}

// TestDocsComplete checks that the reference has every visible command
// and flag, each flag in its command's section, and nothing hidden.
func TestDocsComplete(t *testing.T) {
	ref, err := clidoc.New(newApp(), docSections)
	if err != nil {
		t.Fatal(err)
	}
	md := ref.Markdown()
	sections := map[string]string{}
	for _, part := range strings.Split(md, "\n## ")[1:] {
		title, body, _ := strings.Cut(part, "\n")
		sections[title] = body
	}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			path := strings.TrimSpace(prefix + " " + cmd.Name)
			body, ok := sections["upgraph "+path]
			switch {
			case cmd.Hidden && ok:
				t.Errorf("hidden command %s is in the reference", path)
			case cmd.Hidden:
				continue
			case !ok:
				t.Errorf("command %s is not in the reference", path)
			}
			if !strings.Contains(body, clidoc.MarkdownText(clidoc.Sentence(cmd.Usage))) {
				t.Errorf("%s: its usage is not in the reference", path)
			}
			for _, f := range cmd.Flags {
				row := "| `--" + f.Names()[0] + "`"
				hidden := !f.(cli.VisibleFlag).IsVisible()
				if in := strings.Contains(body, row); in == hidden {
					t.Errorf("%s --%s (hidden: %v): in the reference: %v", path, f.Names()[0], hidden, in)
				}
			}
			walk(path, cmd.Subcommands)
		}
	}
	walk("", newApp().Commands)
	for _, f := range newApp().Flags {
		if !strings.Contains(sections["Global options"], "| `--"+f.Names()[0]+"`") {
			t.Errorf("global flag --%s is not in the reference", f.Names()[0])
		}
	}
}

// TestDocsNoDoubleDefault: a usage text that states a default must belong
// to a flag for which urfave/cli prints none, or --help shows two
// ("(default: fail) (default: false)"). It prints one for every flag with
// a value, booleans included.
func TestDocsNoDoubleDefault(t *testing.T) {
	var check func(path string, flags []cli.Flag)
	check = func(path string, flags []cli.Flag) {
		dfs, err := clidoc.Flags(flags)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range dfs {
			if !strings.Contains(f.Usage, "(default") {
				continue
			}
			if f.Kind == "" || f.Value != "" {
				t.Errorf("%s --%s: the usage says %q and --help adds (default: %s)", path, f.Names[0], f.Usage, f.Value)
			}
		}
	}
	app := newApp()
	check("upgraph", app.Flags)
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			path := strings.TrimSpace(prefix + " " + cmd.Name)
			check(path, cmd.Flags)
			walk(path, cmd.Subcommands)
		}
	}
	walk("", app.Commands)
}
