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
	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
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

func init() {
	// path --catalog: a source or a catalog name of the tree (the flag
	// tests' demo tree has none).
	invalidFlags["path --catalog"] = badFlag{bad: []string{"", "Bad_Name", "missing", "dir:file.txt", "file:emptydir", "x="}}
	invalidFlags["path --package"] = badFlag{bad: []string{""}} // any other name needs --catalog
	invalidFlags["path --olm"] = badFlag{bad: []string{"", "v2", "V0"}}
	// --catalog-set of path, plan, mirror-set and generate: a catalog set
	// file (file.txt is not one).
	invalidFlags["--catalog-set"] = badFlag{bad: []string{"", "missing", "emptydir", "file.txt"}}
}

// operatorFixtures are the hand-made catalogs of the operator path and
// mirror-set tests (catalog/upgrade/testdata/catalogs/README.md).
const operatorFixtures = "../../catalog/upgrade/testdata/catalogs"

// operatorTree generates a tree of the demo releases with the fixture
// catalogs divergence (as "div"), cross-channel ("mq") and
// stranded-after-skip ("skipper").
func operatorTree(t *testing.T) string {
	t.Helper()
	built, err := generator.Build(t.Context(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	var cats []*catviews.Catalog
	for _, c := range []struct{ name, dir string }{{"div", "divergence"}, {"mq", "cross-channel"}, {"skipper", "stranded-after-skip"}} {
		cats = append(cats, viewstest.Load(t, c.name, "dir:"+filepath.Join(operatorFixtures, c.dir), false))
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(t.Context(), built, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), Catalogs: cats}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPathCatalog: path --catalog answers from an FBC directory, a
// single FBC file and a tree's catalog, with exit statuses 0 (a path),
// 1 (none, with the reason) and 2 (trouble); release paths are answered
// from the same tree as before.
func TestPathCatalog(t *testing.T) {
	tree := operatorTree(t)
	div := filepath.Join(operatorFixtures, "divergence")
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string
		err  string
	}{
		{"dir v0", []string{"--catalog", div, "--package", "div", "--from", "1.0.0"}, 0,
			[]string{"OLM v0: div.v1.0.0 (1.0.0) → div.v1.3.0 (1.3.0), the head of stable (package div, channel stable): 2 hops",
				"1. div.v1.0.0 (1.0.0) → div.v1.1.0 (1.1.0)  via replaces  [deprecated]",
				"olm.bundle/div.v1.1.0: div.v1.1.0 has a known data-loss bug"}, ""},
		{"dir: prefix v1", []string{"--catalog", "dir:" + div, "--package", "div", "--from", "div.v1.0.0", "--olm", "v1"}, 0,
			[]string{"OLM v1: div.v1.0.0 (1.0.0) → div.v1.3.0 (1.3.0)", "1. div.v1.0.0 (1.0.0) → div.v1.2.0 (1.2.0)  via replaces"}, ""},
		{"file", []string{"--catalog", "file:" + filepath.Join(div, "catalog.yaml"), "--package", "div", "--from", "1.0.0", "--to", "1.1.0"}, 0,
			[]string{"OLM v0: div.v1.0.0 (1.0.0) → div.v1.1.0 (1.1.0) (package div, channel stable): 1 hop"}, ""},
		{"tree", []string{"--source", tree, "--catalog", "div", "--package", "div", "--from", "1.0.0", "--olm", "v1"}, 0,
			[]string{"2 hops", "div.v1.2.0 (1.2.0) → div.v1.3.0 (1.3.0)  via skips"}, ""},
		{"skipped by v0", []string{"--source", tree, "--catalog", "div", "--package", "div", "--from", "1.0.0", "--to", "1.2.0"}, 1,
			[]string{"No OLM v0 path from div.v1.0.0 (1.0.0) to div.v1.2.0 (1.2.0) (package div, channel stable): skipped-by-v0.",
				"OLM v0 takes 2 hops before it stops at div.v1.3.0 (1.3.0):"}, ""},
		{"stranded", []string{"--source", tree, "--catalog", "skipper", "--package", "skipper", "--from", "1.0.0"}, 1,
			[]string{": stranded.", "skipper.v1.1.0 (1.1.0) [replaces, skips] is skipped by\n"}, ""},
		{"cross channel", []string{"--source", tree, "--catalog", "mq", "--package", "mq", "--channel", "v2.0", "--from", "1.0.1"}, 0,
			[]string{"1. mq.v1.0.1 (1.0.1) → mq.v2.0.0 (2.0.0)  via skips"}, ""},
		{"already there", []string{"--catalog", div, "--package", "div", "--channel", "legacy", "--from", "1.0.0"}, 0,
			[]string{"Already at div.v1.0.0 (1.0.0), the head of legacy", "olm.channel/legacy: channel legacy is no longer maintained"}, ""},
		{"release path unchanged", []string{"--source", tree, "--channel", "fast-4.16", "--from", "4.15.0", "--to", "4.16.2"}, 0,
			[]string{"4.15.0 → 4.16.2 in fast-4.16 (amd64): 1 hop"}, ""},
		{"unknown package", []string{"--catalog", div, "--package", "nope", "--from", "1.0.0"}, 2, nil, `the catalog has no package "nope" (it has div)`},
		{"unknown bundle", []string{"--catalog", div, "--package", "div", "--from", "9.9.9"}, 2, nil, `no bundle named or versioned "9.9.9"`},
		{"unknown channel", []string{"--catalog", div, "--package", "div", "--channel", "fast", "--from", "1.0.0"}, 2, nil, `no channel "fast" (it has legacy, stable)`},
		{"unknown tree catalog", []string{"--source", tree, "--catalog", "nope", "--package", "div", "--from", "1.0.0"}, 2, nil, `has no catalog "nope" (it has div, mq, skipper)`},
		{"unknown tree package", []string{"--source", tree, "--catalog", "div", "--package", "mq", "--from", "1.0.0"}, 2, nil, `catalog div of ` + tree + ` has no package "mq" (it has div)`},
		{"tree source missing", []string{"--source", filepath.Join(tree, "nope"), "--catalog", "div", "--package", "div", "--from", "1.0.0"}, 2, nil, "--source"},
		{"arch with catalog", []string{"--catalog", div, "--package", "div", "--from", "1.0.0", "--arch", "arm64"}, 2, nil, "--arch is for release paths"},
		{"bad olm", []string{"--catalog", div, "--package", "div", "--from", "1.0.0", "--olm", "v2"}, 2, nil, "--olm: want v0"},
		{"package alone", []string{"--package", "div", "--from", "1.0.0"}, 2, nil, "need --catalog"},
		{"no package", []string{"--catalog", div, "--from", "1.0.0"}, 2, nil, "--package is required with --catalog"},
		{"no from", []string{"--catalog", div, "--package", "div"}, 2, nil, "--from is required"},
		{"missing source", []string{"--catalog", "dir:nope", "--package", "div", "--from", "1.0.0"}, 2, nil, "--catalog"},
		{"bad format", []string{"--catalog", div, "--package", "div", "--from", "1.0.0", "--format", "yaml"}, 2, nil, "--format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCommand(pathCommand(), tc.args...)
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

// TestPathCatalogJSON: the JSON answer is the same from the catalog's
// directory and from the tree generate wrote of it (but the catalog it
// names), and carries the reason when there is no path.
func TestPathCatalogJSON(t *testing.T) {
	tree := operatorTree(t)
	div := filepath.Join(operatorFixtures, "divergence")
	for _, q := range [][]string{
		{"--package", "div", "--from", "1.0.0"},
		{"--package", "div", "--from", "1.0.0", "--olm", "v1"},
		{"--package", "div", "--from", "1.0.0", "--to", "1.2.0"},
	} {
		outDir, errOut, codeDir := runCommand(pathCommand(), append([]string{"--catalog", div, "--format", "json"}, q...)...)
		outTree, _, codeTree := runCommand(pathCommand(), append([]string{"--source", tree, "--catalog", "div", "--format", "json"}, q...)...)
		if codeDir != codeTree {
			t.Errorf("%v: exit %d from the directory, %d from the tree: %s", q, codeDir, codeTree, errOut)
		}
		var a, b map[string]any
		if err := json.Unmarshal([]byte(outDir), &a); err != nil {
			t.Fatalf("%v: %v\n%s", q, err, outDir)
		}
		if err := json.Unmarshal([]byte(outTree), &b); err != nil {
			t.Fatalf("%v: %v\n%s", q, err, outTree)
		}
		if a["catalog"] != div || b["catalog"] != "div" {
			t.Errorf("%v: catalog %v and %v", q, a["catalog"], b["catalog"])
		}
		delete(a, "catalog")
		delete(b, "catalog")
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%v: the directory and the tree answer differently:\n%s\n%s", q, ja, jb)
		}
		if codeDir == 1 {
			reason, _ := a["reason"].(map[string]any)
			if reason["code"] != upgrade.ReasonSkippedByV0 || a["found"] != false {
				t.Errorf("%v: no path without its reason: %s", q, ja)
			}
		}
	}
}
