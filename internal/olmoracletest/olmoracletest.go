// Package olmoracletest runs internal/olmoracle, operator-registry's own
// reading of file-based catalogs (README there), for the tests that
// compare with it (catalog/model's conformance test, tools/mirrorset's
// soundness tests): it finds or builds the binary and decodes its JSON.
// It takes directories and returns plain data, so any test may use it.
package olmoracletest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

const (
	// Binary is the command's name, as `go install` names it.
	Binary = "olmoracle"
	// EnvVar names an olmoracle binary to use instead of the installed or
	// cached one.
	EnvVar = "UPGRAPH_TEST_OLMORACLE"
)

// Oracle output (internal/olmoracle/main.go).
type (
	// Output is what olmoracle prints.
	Output struct {
		OperatorRegistry string    `json:"operatorRegistry"`
		Catalogs         []Catalog `json:"catalogs"`
	}
	// Catalog is operator-registry's reading of one FBC directory (with
	// --verdict-only, Dir, LoadError and Verdict alone).
	Catalog struct {
		Dir              string    `json:"dir"`
		LoadError        string    `json:"loadError"`
		Verdict          *Verdict  `json:"verdict"`
		RenderGraphError string    `json:"renderGraphError"`
		Packages         []Package `json:"packages"`
	}
	// Verdict is declcfg.ConvertToModel's (opm validate's) answer.
	Verdict struct {
		Valid    bool     `json:"valid"`
		Error    string   `json:"error"`
		Messages []string `json:"messages"`
	}
	// Package is one package name of a catalog.
	Package struct {
		Name             string    `json:"name"`
		Declared         bool      `json:"declared"`
		Verdict          Verdict   `json:"verdict"`
		RenderGraphError string    `json:"renderGraphError"`
		Channels         []Channel `json:"channels"`
	}
	// Channel is one olm.channel blob: model.Channel.Head() and the edges
	// render-graph draws.
	Channel struct {
		Name      string `json:"name"`
		Head      string `json:"head"`
		HeadError string `json:"headError"`
		Edges     []Edge `json:"edges"`
	}
	// Edge is an upgrade edge as render-graph draws it.
	Edge struct {
		From  string `json:"from"`
		To    string `json:"to"`
		Type  string `json:"type"` // replaces, skips or skipRange
		Range string `json:"range"`
	}
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Bin returns an olmoracle binary built from the current sources of the
// module in moduleDir (internal/olmoracle, relative to the test's
// package or absolute): $UPGRAPH_TEST_OLMORACLE, else the one .ci/deps
// installs into $(go env GOPATH)/bin when its --version names the
// sources' digest, else one built here with `go build` into the user
// cache directory (kept per digest, so it is built once). It looks once
// per test binary. The oracle is not optional: when none can be had, tb
// fails.
func Bin(tb testing.TB, moduleDir string) string {
	tb.Helper()
	binOnce.Do(func() { binPath, binErr = lookup(tb, moduleDir) })
	if binErr != nil {
		tb.Fatalf("olmoracle: %v; run `bash .ci/deps` (it installs internal/olmoracle)", binErr)
	}
	return binPath
}

// Digest is what `cat main.go go.mod go.sum | sha256sum | cut -c1-16`
// prints in moduleDir, and what olmoracle --version names.
func Digest(moduleDir string) (string, error) {
	h := sha256.New()
	for _, f := range []string{"main.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(moduleDir, f))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func versionOK(bin, digest string) bool {
	out, err := exec.Command(bin, "--version").Output()
	return err == nil && strings.HasPrefix(string(out), "olmoracle "+digest+" ")
}

func lookup(tb testing.TB, moduleDir string) (string, error) {
	if p := os.Getenv(EnvVar); p != "" {
		return p, nil
	}
	digest, err := Digest(moduleDir)
	if err != nil {
		return "", err
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOPATH: %w", err)
	}
	installed := filepath.Join(filepath.SplitList(strings.TrimSpace(string(gopath)))[0], "bin", Binary)
	if versionOK(installed, digest) {
		return installed, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "upgraph-test", "olmoracle")
	bin := filepath.Join(dir, Binary+"-"+digest)
	if versionOK(bin, digest) {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tb.Logf("olmoracle: %s is missing or not built from the current sources (digest %s); building it into %s", installed, digest, bin)
	tmp, err := os.CreateTemp(dir, Binary+"-build-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	mod, err := filepath.Abs(moduleDir)
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
	if !versionOK(bin, digest) {
		return "", errors.New("the freshly built olmoracle does not report digest " + digest)
	}
	// Builds of older sources are not needed any more (43 MB each).
	if old, _ := filepath.Glob(filepath.Join(dir, Binary+"-*")); len(old) > 0 {
		for _, f := range old {
			if f != bin {
				_ = os.Remove(f)
			}
		}
	}
	return bin, nil
}

// Run runs bin with flags (such as --verdict-only) on the FBC
// directories dirs and decodes its output, which must answer for each.
func Run(bin string, dirs []string, flags ...string) (*Output, error) {
	cmd := exec.Command(bin, append(slices.Clone(flags), dirs...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", bin, err, stderr.Bytes())
	}
	var out Output
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("oracle output: %v", err)
	}
	if len(out.Catalogs) != len(dirs) {
		return nil, fmt.Errorf("oracle answered for %d catalogs, asked %d", len(out.Catalogs), len(dirs))
	}
	return &out, nil
}

// Verdicts runs bin --verdict-only (opm validate's verdict, nothing else)
// on dirs, in as many processes as there are CPUs, and returns the
// answer per directory.
func Verdicts(bin string, dirs []string) (map[string]Catalog, error) {
	n := max(1, min(runtime.GOMAXPROCS(0), len(dirs)))
	size := (len(dirs) + n - 1) / n
	results := make([][]Catalog, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range n {
		part := dirs[min(w*size, len(dirs)):min((w+1)*size, len(dirs))]
		wg.Go(func() { results[w], errs[w] = verdicts(bin, part) })
	}
	wg.Wait()
	out := map[string]Catalog{}
	for w := range n {
		if errs[w] != nil {
			return nil, errs[w]
		}
		for _, c := range results[w] {
			out[c.Dir] = c
		}
	}
	return out, nil
}

func verdicts(bin string, dirs []string) ([]Catalog, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	out, err := Run(bin, dirs, "--verdict-only")
	if err != nil {
		return nil, err
	}
	for i, c := range out.Catalogs {
		if c.Dir != dirs[i] {
			return nil, fmt.Errorf("oracle answered for %s, asked %s", c.Dir, dirs[i])
		}
	}
	return out.Catalogs, nil
}
