package mirrorset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The operator-registry oracle (internal/olmoracle, README there): the
// same lookup as catalog/model's conformance test — $UPGRAPH_TEST_OLMORACLE,
// else the installed olmoracle when its --version names the digest of
// its sources, else one built from them into the user cache (once per
// digest). `bash .ci/deps` installs it.

const oracleModuleDir = "../../internal/olmoracle"

type oracleVerdict struct {
	Valid    bool     `json:"valid"`
	Error    string   `json:"error"`
	Messages []string `json:"messages"`
}

type oracleCatalog struct {
	Dir       string         `json:"dir"`
	LoadError string         `json:"loadError"`
	Verdict   *oracleVerdict `json:"verdict"`
}

var (
	oracleOnce sync.Once
	oraclePath string
	oracleErr  error
)

func findOracle(t *testing.T) string {
	t.Helper()
	oracleOnce.Do(func() { oraclePath, oracleErr = lookupOracle(t) })
	if oracleErr != nil {
		t.Fatalf("olmoracle: %v; run `bash .ci/deps` (it installs internal/olmoracle)", oracleErr)
	}
	return oraclePath
}

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
	if p := os.Getenv("UPGRAPH_TEST_OLMORACLE"); p != "" {
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
	installed := filepath.Join(filepath.SplitList(strings.TrimSpace(string(gopath)))[0], "bin", "olmoracle")
	if oracleVersionOK(installed, digest) {
		return installed, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "upgraph-test", "olmoracle")
	bin := filepath.Join(dir, "olmoracle-"+digest)
	if oracleVersionOK(bin, digest) {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	t.Logf("olmoracle: %s is missing or stale (digest %s); building it into %s", installed, digest, bin)
	tmp := bin + fmt.Sprintf(".build-%d", os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, ".")
	cmd.Dir = oracleModuleDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// oracleVerdicts runs the oracle on dirs (--verdict-only: opm validate's
// verdict, nothing else), in as many processes as there are CPUs, and
// returns the verdict per directory.
func oracleVerdicts(t *testing.T, dirs []string) map[string]oracleCatalog {
	t.Helper()
	bin := findOracle(t)
	n := max(1, min(runtime.GOMAXPROCS(0), len(dirs)))
	size := (len(dirs) + n - 1) / n
	results := make([][]oracleCatalog, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range n {
		part := dirs[min(w*size, len(dirs)):min((w+1)*size, len(dirs))]
		wg.Go(func() { results[w], errs[w] = runOracle(bin, part) })
	}
	wg.Wait()
	out := map[string]oracleCatalog{}
	for w := range n {
		if errs[w] != nil {
			t.Fatal(errs[w])
		}
		for _, c := range results[w] {
			out[c.Dir] = c
		}
	}
	return out
}

func runOracle(bin string, dirs []string) ([]oracleCatalog, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	cmd := exec.Command(bin, append([]string{"--verdict-only"}, dirs...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", bin, err, stderr.Bytes())
	}
	var res struct {
		Catalogs []oracleCatalog `json:"catalogs"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("oracle output: %v", err)
	}
	if len(res.Catalogs) != len(dirs) {
		return nil, fmt.Errorf("oracle answered for %d catalogs, asked %d", len(res.Catalogs), len(dirs))
	}
	for i, c := range res.Catalogs {
		if c.Dir != dirs[i] {
			return nil, fmt.Errorf("oracle answered for %s, asked %s", c.Dir, dirs[i])
		}
	}
	return res.Catalogs, nil
}
