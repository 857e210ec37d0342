package model

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// Conformance with operator-registry itself (issue 17, first acceptance
// check). internal/olmoracle is a module of its own that imports
// operator-registry (the version its go.mod pins) and prints, for an FBC
// directory, upstream's verdicts (declcfg.ConvertToModel, which runs
// model.Validate: what `opm validate` says) for the catalog and for each
// package alone, model.Channel.Head() of every channel, and the typed
// edges `opm alpha render-graph` draws (declcfg.MermaidWriter). This test
// runs it on the shared real catalog and on the fixtures of
// catalog/testdata/oracle (hand-written reproductions of
// operator-registry's own test catalogs; README.md there cites each) and
// requires catalog/declcfg.Load + Convert to agree: the verdict per
// package and for the catalog, the head (or the head error's text) per
// channel, and the edge set per channel. Upstream error messages that no
// upgraph error contains are logged, not failed: upgraph reports every
// problem with its own wording where opm stops at the first.

const (
	oracleFixtures  = "../testdata/oracle"
	oracleModuleDir = "../../internal/olmoracle"
	oracleBinary    = "olmoracle"
	// oracleEnvVar names an olmoracle binary to use instead of the
	// installed or cached one.
	oracleEnvVar = "UPGRAPH_TEST_OLMORACLE"
)

// Oracle output (internal/olmoracle/main.go).
type (
	oracleOutput struct {
		OperatorRegistry string          `json:"operatorRegistry"`
		Catalogs         []oracleCatalog `json:"catalogs"`
	}
	oracleCatalog struct {
		Dir              string          `json:"dir"`
		LoadError        string          `json:"loadError"`
		Verdict          *oracleVerdict  `json:"verdict"`
		RenderGraphError string          `json:"renderGraphError"`
		Packages         []oraclePackage `json:"packages"`
	}
	oracleVerdict struct {
		Valid    bool     `json:"valid"`
		Error    string   `json:"error"`
		Messages []string `json:"messages"`
	}
	oraclePackage struct {
		Name             string          `json:"name"`
		Declared         bool            `json:"declared"`
		Verdict          oracleVerdict   `json:"verdict"`
		RenderGraphError string          `json:"renderGraphError"`
		Channels         []oracleChannel `json:"channels"`
	}
	oracleChannel struct {
		Name      string      `json:"name"`
		Head      string      `json:"head"`
		HeadError string      `json:"headError"`
		Edges     []GraphEdge `json:"edges"`
	}
)

func TestOracleConformance(t *testing.T) {
	bin := findOracle(t)
	shared, err := filepath.Abs(sharedCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(shared); err != nil {
		t.Fatalf("shared real catalog: %v (CI clones the repository with shared/ beside it)", err)
	}
	names := []string{"shared"}
	dirs := []string{shared}
	for _, name := range oracleFixtureNames(t) {
		names = append(names, name)
		dirs = append(dirs, filepath.Join(oracleFixtures, name))
	}
	cmd := exec.Command(bin, dirs...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.Bytes())
	}
	var out oracleOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("oracle output: %v", err)
	}
	if len(out.Catalogs) != len(dirs) {
		t.Fatalf("oracle answered for %d catalogs, asked %d", len(out.Catalogs), len(dirs))
	}
	t.Logf("oracle: operator-registry %s", out.OperatorRegistry)
	for i, oc := range out.Catalogs {
		t.Run(names[i], func(t *testing.T) {
			diffs, notes := compareWithOracle(dirs[i], oc)
			for _, n := range notes {
				t.Log(n)
			}
			if len(diffs) > 0 {
				t.Errorf("upgraph disagrees with operator-registry %s on %s:\n  %s", out.OperatorRegistry, dirs[i], strings.Join(diffs, "\n  "))
			}
		})
	}
}

// TestOracleFixturesCited checks that testdata/oracle/README.md cites
// every fixture directory.
func TestOracleFixturesCited(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(oracleFixtures, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range oracleFixtureNames(t) {
		if !bytes.Contains(readme, []byte("`"+name+"`")) {
			t.Errorf("testdata/oracle/README.md does not cite fixture %s", name)
		}
	}
}

func oracleFixtureNames(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(oracleFixtures)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no oracle fixtures")
	}
	return names
}

// compareWithOracle loads dir with upgraph's loader and model and
// compares with the oracle's answer. diffs are disagreements; notes are
// what the test logs (upstream messages no upgraph error contains,
// packages render-graph refuses).
func compareWithOracle(dir string, oc oracleCatalog) (diffs, notes []string) {
	diff := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }

	cfg, err := declcfg.Load(context.Background(), os.DirFS(dir), ".")
	if oc.LoadError != "" || err != nil {
		if (oc.LoadError != "") != (err != nil) {
			diff("loading: operator-registry: %q; upgraph: %v", oc.LoadError, err)
		}
		return diffs, notes
	}
	c := Convert(cfg)
	errorsOf := func(pkg string, all bool) []string {
		var out []string
		for _, p := range c.Problems {
			if p.Severity == Error && (all || p.Package == pkg) {
				out = append(out, p.Message)
			}
		}
		return out
	}
	if c.Valid() != oc.Verdict.Valid {
		diff("catalog verdict: operator-registry valid=%v %s; upgraph valid=%v%s",
			oc.Verdict.Valid, quoteErr(oc.Verdict.Error), c.Valid(), bulleted(errorsOf("", true)))
	}
	if oc.RenderGraphError != "" {
		note("render-graph refuses the whole catalog: %s (edges compared per package)", oc.RenderGraphError)
	}

	var nch, nedges int
	defer func() {
		note("compared %d packages, %d channels, %d edges", len(oc.Packages), nch, nedges)
	}()
	seen := map[string]bool{}
	for _, op := range oc.Packages {
		seen[op.Name] = true
		pkg := c.Package(op.Name)
		if pkg == nil {
			// Blobs of an undeclared package (or a package upgraph cannot
			// place, e.g. one without a name): upstream rejects them alone,
			// and upgraph must report an error about that package.
			if op.Verdict.Valid {
				diff("package %q: operator-registry accepts it alone; upgraph has no such package", op.Name)
			} else if ups := errorsOf(op.Name, false); len(ups) == 0 {
				diff("package %q: operator-registry rejects it alone %s; upgraph reports no error for it", op.Name, quoteErr(op.Verdict.Error))
			} else {
				noteMessages(note, op.Name, op.Verdict.Messages, ups)
			}
			continue
		}
		ups := errorsOf(op.Name, false)
		if pkg.Valid() != op.Verdict.Valid {
			diff("package %q verdict: operator-registry valid=%v %s; upgraph valid=%v%s",
				op.Name, op.Verdict.Valid, quoteErr(op.Verdict.Error), pkg.Valid(), bulleted(ups))
		} else if !op.Verdict.Valid {
			noteMessages(note, op.Name, op.Verdict.Messages, ups)
		}
		if op.RenderGraphError != "" {
			note("package %q: render-graph refuses it (%s): edges not compared", op.Name, op.RenderGraphError)
		}
		chSeen := map[string]bool{}
		for _, och := range op.Channels {
			if chSeen[och.Name] {
				continue // a duplicate channel blob: upgraph keeps the first
			}
			chSeen[och.Name] = true
			ch := pkg.Channel(och.Name)
			if ch == nil {
				if op.Verdict.Valid {
					diff("package %q channel %q: missing in upgraph", op.Name, och.Name)
				} else {
					note("package %q channel %q: not in upgraph's model (the package is invalid)", op.Name, och.Name)
				}
				continue
			}
			where := fmt.Sprintf("package %q channel %q", op.Name, och.Name)
			g := ch.Graph()
			if g.Head != och.Head || g.HeadError != och.HeadError {
				diff("%s head: operator-registry %s; upgraph %s", where, headText(och.Head, och.HeadError), headText(g.Head, g.HeadError))
			}
			nch++
			if op.RenderGraphError == "" {
				nedges += len(och.Edges)
				diffs = append(diffs, edgeDiff(where, och.Edges, g.Edges)...)
			}
		}
		for _, ch := range pkg.Channels {
			if !chSeen[ch.Name] {
				diff("package %q channel %q: upgraph has it, operator-registry does not", op.Name, ch.Name)
			}
		}
	}
	for _, p := range c.Packages {
		if !seen[p.Name] {
			diff("package %q: upgraph has it, operator-registry does not", p.Name)
		}
	}
	return diffs, notes
}

// noteMessages notes the upstream messages that no upgraph error of the
// package contains.
func noteMessages(note func(string, ...any), pkg string, upstream, upgraph []string) {
	for _, m := range upstream {
		if !slices.ContainsFunc(upgraph, func(u string) bool { return strings.Contains(u, m) }) {
			note("package %q: no upgraph error contains operator-registry's %q; upgraph says:%s", pkg, m, bulleted(upgraph))
		}
	}
}

func edgeKey(e GraphEdge) string {
	s := fmt.Sprintf("%s -> %s (%s)", e.From, e.To, e.Type)
	if e.Range != "" {
		s = fmt.Sprintf("%s -> %s (%s %s)", e.From, e.To, e.Type, e.Range)
	}
	return s
}

// edgeDiff compares edge sets: lines "- " for upstream's edges upgraph
// lacks, "+ " for upgraph's extra ones.
func edgeDiff(where string, upstream, upgraph []GraphEdge) []string {
	set := func(es []GraphEdge) map[string]bool {
		m := map[string]bool{}
		for _, e := range es {
			m[edgeKey(e)] = true
		}
		return m
	}
	want, got := set(upstream), set(upgraph)
	var lines []string
	for k := range want {
		if !got[k] {
			lines = append(lines, "- "+k)
		}
	}
	for k := range got {
		if !want[k] {
			lines = append(lines, "+ "+k)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	slices.SortFunc(lines, func(a, b string) int { return cmp.Or(cmp.Compare(a[2:], b[2:]), cmp.Compare(a, b)) })
	return []string{fmt.Sprintf("%s edges (- operator-registry only, + upgraph only):\n      %s", where, strings.Join(lines, "\n      "))}
}

func headText(head, err string) string {
	if err != "" {
		return fmt.Sprintf("error %q", err)
	}
	return fmt.Sprintf("%q", head)
}

func quoteErr(s string) string {
	if s == "" {
		return ""
	}
	return "(" + strings.ReplaceAll(s, "\n", "\n      ") + ")"
}

func bulleted(msgs []string) string {
	if len(msgs) == 0 {
		return " (no errors)"
	}
	return "\n      * " + strings.Join(msgs, "\n      * ")
}

var (
	oracleOnce sync.Once
	oraclePath string
	oracleErr  error
)

// findOracle returns an olmoracle binary built from internal/olmoracle's
// current sources: $UPGRAPH_TEST_OLMORACLE, else the one .ci/deps
// installs into $(go env GOPATH)/bin when its --version names the
// sources' digest, else one built here with `go build` into the user
// cache directory (kept per digest, so it is built once). The oracle is
// not optional: when none can be had the test fails.
func findOracle(t *testing.T) string {
	t.Helper()
	oracleOnce.Do(func() { oraclePath, oracleErr = lookupOracle(t) })
	if oracleErr != nil {
		t.Fatalf("olmoracle: %v; run `bash .ci/deps` (it installs internal/olmoracle)", oracleErr)
	}
	return oraclePath
}

// oracleDigest is what `cat main.go go.mod go.sum | sha256sum | cut
// -c1-16` prints in internal/olmoracle, and what olmoracle --version
// names.
func oracleDigest() (string, error) {
	h := sha256.New()
	for _, f := range []string{"main.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(oracleModuleDir, f))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func oracleVersionOK(bin, digest string) bool {
	out, err := exec.Command(bin, "--version").Output()
	return err == nil && strings.HasPrefix(string(out), "olmoracle "+digest+" ")
}

func lookupOracle(t *testing.T) (string, error) {
	if p := os.Getenv(oracleEnvVar); p != "" {
		return p, nil
	}
	digest, err := oracleDigest()
	if err != nil {
		return "", err
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOPATH: %w", err)
	}
	installed := filepath.Join(filepath.SplitList(strings.TrimSpace(string(gopath)))[0], "bin", oracleBinary)
	if oracleVersionOK(installed, digest) {
		return installed, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "upgraph-test", "olmoracle")
	bin := filepath.Join(dir, oracleBinary+"-"+digest)
	if oracleVersionOK(bin, digest) {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	t.Logf("olmoracle: %s is missing or not built from the current sources (digest %s); building it into %s", installed, digest, bin)
	tmp, err := os.CreateTemp(dir, oracleBinary+"-build-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	mod, err := filepath.Abs(oracleModuleDir)
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-o", tmp.Name(), ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in %s: %v\n%s", mod, err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", err
	}
	if !oracleVersionOK(bin, digest) {
		return "", errors.New("the freshly built olmoracle does not report digest " + digest)
	}
	// Builds of older sources are not needed any more (43 MB each).
	if old, _ := filepath.Glob(filepath.Join(dir, oracleBinary+"-*")); len(old) > 0 {
		for _, f := range old {
			if f != bin {
				_ = os.Remove(f)
			}
		}
	}
	return bin, nil
}
