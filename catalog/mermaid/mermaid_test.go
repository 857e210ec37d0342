package mermaid

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

const (
	oracleFixtures = "../testdata/oracle"
	sharedCatalog  = "../../../shared/catalogs/community-operators-prod-v4.21/configs"
)

// load converts an FBC directory and returns its packages as Write
// draws them.
func load(t *testing.T, dir string) []Package {
	t.Helper()
	cfg, err := declcfg.Load(context.Background(), os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	m := model.Convert(cfg)
	var out []Package
	for _, p := range m.Packages {
		mp := Package{Name: p.Name}
		if p.Deprecation != nil {
			mp.Deprecated = p.Deprecation.Message
		}
		for _, ch := range p.Channels {
			mp.Channels = append(mp.Channels, ch.Graph())
		}
		out = append(out, mp)
	}
	return out
}

func render(t *testing.T, pkgs ...Package) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, pkgs...); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGolden draws fixtures with deprecations (package, channel, bundle),
// skipped bundles, skips, skipRanges and a chain tail outside the
// catalog; review testdata/*.mmd after -update.
func TestGolden(t *testing.T) {
	for _, name := range []string{"render-graph-anakin-boba-fett", "server-cockroachdb-deprecations", "spec-cross-channel-edges", "model-skiprange"} {
		t.Run(name, func(t *testing.T) {
			got := render(t, load(t, filepath.Join(oracleFixtures, name))...)
			golden := filepath.Join("testdata", name+".mmd")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (go test -update to rewrite):\n%s", golden, got)
			}
		})
	}
}

type edge struct{ From, To, Type, Range string }

// parse reads Write's output back as render-graph's lines are read:
// `  %% package "P"`, `    %% channel "CH"`, then edges
// `      P-CH-FROM["FROM"]-- LABEL --> P-CH-TO["TO"]`. It returns the edge
// set per package and channel, and checks every node ID is the channel's
// ID, "-" and the quoted name.
func parse(t *testing.T, text []byte) map[[2]string][]edge {
	t.Helper()
	out := map[[2]string][]edge{}
	var pkg, ch string
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, `  %% package `):
			pkg, _ = strconv.Unquote(strings.TrimPrefix(line, `  %% package `))
		case strings.HasPrefix(line, `    %% channel `):
			ch, _ = strconv.Unquote(strings.TrimPrefix(line, `    %% channel `))
		case strings.Contains(line, `"]-- `):
			left, right, ok := strings.Cut(strings.TrimPrefix(line, "      "), " --> ")
			if !ok {
				t.Fatalf("edge line %q", line)
			}
			fromNode, label, _ := strings.Cut(left, "-- ")
			from, to := node(t, fromNode, pkg+"-"+ch+"-"), node(t, right, pkg+"-"+ch+"-")
			e := edge{From: from, To: to}
			switch {
			case label == "replace":
				e.Type = string(model.EdgeReplaces)
			case label == "skip":
				e.Type = string(model.EdgeSkips)
			case strings.HasPrefix(label, `"skipRange(`) && strings.HasSuffix(label, `)"`):
				e.Type, e.Range = string(model.EdgeSkipRange), label[len(`"skipRange(`):len(label)-2]
			default:
				t.Fatalf("edge line %q: label %q", line, label)
			}
			k := [2]string{pkg, ch}
			if !slices.Contains(out[k], e) {
				out[k] = append(out[k], e)
			}
		}
	}
	for _, es := range out {
		slices.SortFunc(es, compareEdges)
	}
	return out
}

func compareEdges(a, b edge) int {
	return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Range, b.Range))
}

// node parses `PREFIXNAME["NAME"]`.
func node(t *testing.T, s, prefix string) string {
	t.Helper()
	id, label, ok := strings.Cut(s, "[")
	name, err := strconv.Unquote(strings.TrimSuffix(label, "]"))
	if !ok || err != nil || id != prefix+name {
		t.Fatalf("node %q: want %s<name>[\"<name>\"]", s, prefix)
	}
	return name
}

// TestRenderGraphEdges compares the edges Write draws, edge for edge and
// channel by channel, with those of operator-registry's own
// MermaidWriter (render-graph) as internal/olmoracle prints them.
func TestRenderGraphEdges(t *testing.T) {
	needShared(t)
	bin := os.Getenv("UPGRAPH_TEST_OLMORACLE")
	if bin == "" {
		gopath, err := exec.Command("go", "env", "GOPATH").Output()
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(strings.TrimSpace(string(gopath)), "bin", "olmoracle")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("olmoracle: %v (bash .ci/deps installs it; catalog/model's TestOracleConformance builds it)", err)
	}
	dirs := []string{"render-graph-anakin-boba-fett", "server-cockroachdb-deprecations", "spec-cross-channel-edges",
		"model-skiprange", "spec-skiprange-only-second-head", "substitutes-release-skiprange"}
	var args []string
	for _, d := range dirs {
		args = append(args, filepath.Join(oracleFixtures, d))
	}
	dirs, args = append(dirs, "shared"), append(args, sharedCatalog)
	raw, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	var out struct {
		Catalogs []struct {
			Packages []struct {
				Name     string `json:"name"`
				Verdict  struct{ Valid bool }
				Channels []struct {
					Name  string `json:"name"`
					Edges []edge `json:"edges"`
				} `json:"channels"`
			} `json:"packages"`
		} `json:"catalogs"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for i, oc := range out.Catalogs {
		got := parse(t, render(t, load(t, args[i])...))
		for _, p := range oc.Packages {
			for _, c := range p.Channels {
				want := slices.Clone(c.Edges)
				slices.SortFunc(want, compareEdges)
				have := got[[2]string{p.Name, c.Name}]
				if !slices.Equal(have, want) {
					t.Errorf("%s: package %s channel %s:\n got  %s\n want %s", dirs[i], p.Name, c.Name, fmtEdges(have), fmtEdges(want))
				}
				compared += len(want)
			}
		}
	}
	if compared < 1000 {
		t.Errorf("compared only %d edges", compared)
	}
	t.Logf("%d edges equal to render-graph's", compared)
}

func fmtEdges(es []edge) string {
	var s []string
	for _, e := range es {
		s = append(s, fmt.Sprintf("%s-%s(%s)->%s", e.From, e.Type, e.Range, e.To))
	}
	return strings.Join(s, " ")
}

// TestNoSizeLimit draws the largest package of the shared catalog, whose
// drawing render-graph's users cannot render at Mermaid's default
// 30,000-character limit.
func TestNoSizeLimit(t *testing.T) {
	needShared(t)
	pkgs := load(t, sharedCatalog)
	largest := ""
	size := 0
	for _, p := range pkgs {
		if n := len(render(t, p)); n > size {
			largest, size = p.Name, n
		}
	}
	if size <= 30000 {
		t.Errorf("largest package %s draws %d characters; want one past 30,000", largest, size)
	}
	t.Logf("%s: %d characters", largest, size)
}

func needShared(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(sharedCatalog); err != nil {
		t.Fatalf("shared catalog not available: %v", err)
	}
}
