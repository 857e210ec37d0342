package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/generator/graphdata"
	"github.com/upgraph/upgraph/generator/source"
	"github.com/upgraph/upgraph/generator/writer"
)

// demoTree generates the demo tree for the path and dot tests: channels
// stable, fast and candidate of 4.15 and of 4.16, a blocked edge
// 4.15.0 → 4.16.1 and a conditional edge 4.16.0 → 4.16.2.
func demoTree(t *testing.T) string {
	t.Helper()
	built, err := generator.Build(t.Context(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(t.Context(), built, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runCommand runs one command in process and returns its standard output,
// standard error and exit status, as main computes it from the error.
func runCommand(cmd *cli.Command, args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	app := &cli.App{
		Flags:          globalFlags(),
		Commands:       []*cli.Command{cmd},
		Writer:         &out,
		ErrWriter:      &errOut,
		ExitErrHandler: func(*cli.Context, error) {},
	}
	err := app.RunContext(context.Background(), append([]string{"upgraph", cmd.Name}, args...))
	code := 0
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ec):
		code = ec.ExitCode()
	case err != nil:
		code = 1 // as main
	}
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), code
}

func TestPathCommand(t *testing.T) {
	dir := demoTree(t)
	static := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer static.Close()
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string // substrings of standard output
		err  string   // substring of standard error
	}{
		{"direct", []string{"--channel", "fast-4.16", "--from", "4.15.0", "--to", "4.16.2"}, 0,
			[]string{"4.15.0 → 4.16.2 in fast-4.16 (amd64): 1 hop, 0 conditional", "  1. 4.15.0 → 4.16.2\n"}, ""},
		{"conditional one hop beats two", []string{"--channel", "fast-4.16", "--from", "4.16.0", "--to", "4.16.2"}, 0,
			[]string{"1 hop, 1 conditional", "4.16.0 → 4.16.2  conditional: 1 risk", "- ExampleEtcdRisk (PromQL, Always)\n         Clusters with more than 3 etcd members", "https://issues.example.com/browse/DEMO-1"}, ""},
		{"unconditional only", []string{"--channel", "fast-4.16", "--from", "4.16.0", "--to", "4.16.2", "--unconditional-only"}, 0,
			[]string{"in fast-4.16 (amd64), unconditional edges only: 2 hops, 0 conditional", "1. 4.16.0 → 4.16.1", "2. 4.16.1 → 4.16.2"}, ""},
		{"over http", []string{"--source", static.URL, "--channel", "fast-4.16", "--from", "4.15.0", "--to", "4.16.2"}, 0,
			[]string{"1. 4.15.0 → 4.16.2"}, ""},
		{"already there", []string{"--channel", "stable-4.16", "--from", "4.16.1", "--to", "4.16.1"}, 0,
			[]string{"Already at 4.16.1 in stable-4.16 (amd64)"}, ""},
		{"no path", []string{"--channel", "fast-4.16", "--from", "4.16.2", "--to", "4.16.0"}, 1,
			[]string{"No update path from 4.16.2 to 4.16.0 in fast-4.16 (amd64).\n"}, ""},
		{"unknown version", []string{"--channel", "fast-4.16", "--from", "4.16.0", "--to", "4.16.9"}, 2,
			nil, "fast-4.16 (amd64) has no release 4.16.9 (--to)"},
		{"not in channel", []string{"--channel", "stable-4.15", "--from", "4.15.0", "--to", "4.16.2"}, 2,
			nil, "stable-4.15 (amd64) has no release 4.16.2"},
		{"unknown channel", []string{"--channel", "stable-4.99", "--from", "4.16.0", "--to", "4.16.1"}, 2, nil, `has no channel "stable-4.99"`},
		{"unknown arch", []string{"--channel", "fast-4.16", "--arch", "s390x", "--from", "4.16.0", "--to", "4.16.1"}, 2, nil, `has no arch "s390x"`},
		{"invalid channel", []string{"--channel", "Fast", "--from", "4.16.0", "--to", "4.16.1"}, 2, nil, `--channel "Fast" does not match`},
		{"bad format", []string{"--channel", "fast-4.16", "--from", "4.16.0", "--to", "4.16.1", "--format", "yaml"}, 2, nil, "--format"},
		{"missing flag", []string{"--channel", "fast-4.16", "--from", "4.16.0"}, 2, nil, "--to is required"},
		{"bad source", []string{"--source", filepath.Join(dir, "index.json"), "--channel", "fast-4.16", "--from", "4.16.0", "--to", "4.16.1"}, 2, nil, "neither a tree directory nor a bundle"},
		{"argument", []string{"--channel", "fast-4.16", "--from", "4.16.0", "--to", "4.16.1", "extra"}, 2, nil, "no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if !strings.Contains(strings.Join(args, " "), "--source") {
				args = append([]string{"--source", dir}, args...)
			}
			out, errOut, code := runCommand(pathCommand(), args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			for _, want := range tc.out {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, tc.err) {
				t.Errorf("stderr lacks %q:\n%s", tc.err, errOut)
			}
		})
	}
}

func TestPathCommandJSON(t *testing.T) {
	dir := demoTree(t)
	out, errOut, code := runCommand(pathCommand(), "--source", dir, "--channel", "fast-4.16",
		"--from", "4.15.1", "--to", "4.16.2", "--via-eus", "--format", "json")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errOut)
	}
	var r struct {
		Channels []string `json:"channels"`
		Found    bool     `json:"found"`
		Hops     []struct {
			From, To    string
			Conditional bool
			Risks       []struct{ Name, Message, URL string }
			Channels    []string
		} `json:"hops"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	// The demo has no EUS channel, so --via-eus adds none.
	if !r.Found || len(r.Hops) != 1 || r.Hops[0].From != "4.15.1" || r.Hops[0].To != "4.16.2" || len(r.Channels) != 1 || r.Hops[0].Channels[0] != "fast-4.16" {
		t.Errorf("unexpected report:\n%s", out)
	}
	out, _, code = runCommand(pathCommand(), "--source", dir, "--channel", "fast-4.16",
		"--from", "4.16.2", "--to", "4.16.0", "--format", "json")
	if code != 1 || !strings.Contains(out, `"found": false`) {
		t.Errorf("no path: exit status %d, output:\n%s", code, out)
	}
}
