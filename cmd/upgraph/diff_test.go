package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/urfave/cli/v2"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
)

// diffTree generates the demo tree, without the graph-data files named,
// into a new directory.
func diffTree(t *testing.T, without ...string) string {
	t.Helper()
	gd := fstest.MapFS{}
	err := fs.WalkDir(upgraph.DemoGraphData(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(upgraph.DemoGraphData(), p)
		gd[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range without {
		delete(gd, p)
	}
	built, err := generator.Build(t.Context(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()}, gd,
		generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(t.Context(), built, generator.RenderOptions{Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runDiffApp runs the diff command in process and returns its output and
// exit status, as main would compute it from the error.
func runDiffApp(args ...string) (string, int, error) {
	var out bytes.Buffer
	app := &cli.App{
		Flags:          globalFlags(),
		Commands:       []*cli.Command{diffCommand()},
		Writer:         &out,
		ErrWriter:      &out,
		ExitErrHandler: func(*cli.Context, error) {}, // as newApp: the caller exits
	}
	err := app.RunContext(context.Background(), append([]string{"upgraph", "diff"}, args...))
	code := 0
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ec):
		code = ec.ExitCode()
	case err != nil:
		code = -1 // main would exit 1, which reads as "differences"
	}
	return out.String(), code, err
}

func TestDiffCommand(t *testing.T) {
	demo := diffTree(t)
	noStable := diffTree(t, "channels/stable-4.16.yaml")
	for _, tc := range []struct {
		name string
		args []string
		code int
		// out must contain these (none: output must be empty), err
		// must contain errText.
		out     []string
		errText string
	}{
		{"same", []string{demo, demo}, 0, nil, ""},
		{"differ", []string{demo, noStable}, 1, []string{"--- " + demo, "+++ " + noStable, "- channel stable-4.16", "@@ stable-4.16 amd64 (removed) @@"}, ""},
		{"markdown", []string{"--format", "markdown", demo, noStable}, 1, []string{"| stable-4.16 (removed) | amd64 |", "<details>"}, ""},
		{"markdown cut short", []string{"--format", "markdown", "--max-bytes", "1000", demo, noStable}, 1,
			[]string{"| stable-4.16 (removed) | arm64 |", "Details of 12 more graphs left out to keep this under 1000 bytes"}, ""},
		{"restricted to what did not change", []string{"--channels", "stable-4.15", "--arch", "amd64", demo, noStable}, 1,
			[]string{"@@ stable-4.15 amd64 @@", "-stable-4.16"}, ""},
		{"restricted, same", []string{"--channels", "stable-4.15,fast-4.16", demo, demo}, 0, nil, ""},
		{"one argument", []string{demo}, 2, nil, "diff wants OLD and NEW, got 1"},
		{"flag after arguments", []string{demo, noStable, "--format", "json"}, 2, nil, "got 4 arguments (flags go before them)"},
		{"bad format", []string{"--format", "html", demo, demo}, 2, nil, `--format: format "html"`},
		{"bad flag", []string{"--no-such-flag", demo, demo}, 2, nil, "flag provided but not defined"},
		{"missing tree", []string{demo, demo + "-missing"}, 2, nil, "no such file"},
		{"unknown channel", []string{"--channels", "eus-4.16", demo, noStable}, 2, nil, `channel "eus-4.16" is in neither`},
		{"s3 without a bucket", []string{demo, "s3:///tree"}, 2, nil, "want s3://BUCKET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, err := runDiffApp(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (err %v, output %q)", code, tc.code, err, out)
			}
			if tc.errText != "" {
				if !strings.Contains(err.Error(), tc.errText) {
					t.Errorf("err %q, want %q", err, tc.errText)
				}
				return
			}
			if code == 1 && err.Error() != "" {
				t.Errorf("differences come with message %q; main should print none", err)
			}
			if tc.out == nil && out != "" {
				t.Errorf("output %q, want none", out)
			}
			for _, s := range tc.out {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}

// TestDiffJSON: --format json is one document a script can read.
func TestDiffJSON(t *testing.T) {
	out, code, _ := runDiffApp("--format", "json", diffTree(t), diffTree(t, "channels/stable-4.16.yaml"))
	var r struct {
		Compared int
		Channels struct{ Removed []string }
		Graphs   []struct{ Channel, Arch, Status string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if code != 1 || r.Compared != 12 || len(r.Graphs) != 12 || strings.Join(r.Channels.Removed, ",") != "stable-4.16" {
		t.Errorf("exit %d, %+v", code, r)
	}
}
