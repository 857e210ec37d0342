package registrytest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/syncbuf"
)

// registryd (./registryd) is the CNCF distribution v3 registry the tests
// run, with only the filesystem driver; .ci/deps installs it into
// $(go env GOPATH)/bin. v3, not Debian's 2.8: 2.8 compiles its whole URL
// router on every request (distribution/distribution#3683), which made the
// test registry, not the client, the cost a warm scrape measured.
const registryBinaryName = "registryd"

// RegistryVersion is what registryd --version must print.
const RegistryVersion = "github.com/distribution/distribution/v3 v3.1.2"

// registryEnvVar names a registry binary to use instead of the installed one.
const registryEnvVar = "UPGRAPH_TEST_REGISTRY"

// readyTimeout bounds how long Start waits for the registry to answer /v2/.
const readyTimeout = 10 * time.Second

// Registry is a running distribution registry process owned by one test.
type Registry struct {
	// Host is "127.0.0.1:PORT", ready to prefix repository references.
	Host string
	// URL is "http://" + Host.
	URL string
	// Root is the filesystem storage root, for tests that want to corrupt or
	// inspect storage behind the registry's back.
	Root string
}

// Start runs a fresh, empty registry for t and stops it when t finishes.
// Each call gets its own process, port and storage.
func Start(t testing.TB) *Registry {
	t.Helper()
	bin := findBinary(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "storage")
	// Another process can grab the port between our probe and the registry's
	// bind, so a bind failure is retried with a new port.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("registrytest: picking a port: %v", err)
		}
		host := fmt.Sprintf("127.0.0.1:%d", port)
		reg, err := launch(t, bin, dir, root, host, attempt)
		if err == nil {
			return reg
		}
		if !errors.Is(err, errAddrInUse) {
			t.Fatalf("registrytest: %v", err)
		}
		lastErr = err
	}
	t.Fatalf("registrytest: no free port after retries: %v", lastErr)
	return nil
}

var errAddrInUse = errors.New("address already in use")

// findBinary locates the distribution v3 registry; the registry tests are
// not optional, so a missing binary fails rather than skips.
func findBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() { binPath, binErr = lookupBinary() })
	if binErr != nil {
		t.Fatalf("registrytest: %v; run `bash .ci/deps` (it installs internal/registrytest/registryd)", binErr)
	}
	return binPath
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func lookupBinary() (string, error) {
	if p := os.Getenv(registryEnvVar); p != "" {
		return p, nil
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOPATH: %w", err)
	}
	p := filepath.Join(filepath.SplitList(strings.TrimSpace(string(gopath)))[0], "bin", registryBinaryName)
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", p, err)
	}
	if !strings.Contains(string(out), RegistryVersion) {
		return "", fmt.Errorf("%s is not %s (it says %q)", p, RegistryVersion, strings.TrimSpace(string(out)))
	}
	return p, nil
}

// launch starts one registry process on host and waits until it serves /v2/.
func launch(t testing.TB, bin, dir, root, host string, attempt int) (*Registry, error) {
	t.Helper()
	cfgPath := filepath.Join(dir, fmt.Sprintf("config-%d.yml", attempt))
	// The port may have been taken by another registry in the meantime; only
	// answers carrying this process's token count as ready.
	token := fmt.Sprintf("%d-%d-%d", os.Getpid(), time.Now().UnixNano(), attempt)
	if err := os.WriteFile(cfgPath, []byte(config(root, host, token)), 0o600); err != nil {
		return nil, fmt.Errorf("writing registry config: %w", err)
	}
	stderr := &syncbuf.Buffer{}
	cmd := exec.Command(bin, "serve", cfgPath)
	cmd.Env = registryEnv()
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	// exited is closed once the process is gone; waitErr is valid after.
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}

	reg := &Registry{Host: host, URL: "http://" + host, Root: root}
	if err := waitReady(reg.URL, token, exited); err != nil {
		stop()
		if waitErr != nil {
			err = fmt.Errorf("%v (exit: %v)", err, waitErr)
		}
		out := stderr.String()
		if strings.Contains(out, "address already in use") {
			return nil, fmt.Errorf("%w: %s", errAddrInUse, host)
		}
		return nil, fmt.Errorf("registry on %s not ready: %v\nregistry output:\n%s", host, err, out)
	}
	t.Cleanup(func() {
		stop()
		if out := stderr.String(); t.Failed() && out != "" {
			t.Logf("registry %s output:\n%s", host, out)
		}
	})
	return reg, nil
}

// config renders a minimal registry config: filesystem storage, deletes
// allowed (tests delete tags and manifests), no auth, quiet logs.
func config(root, host, token string) string {
	return fmt.Sprintf(`version: 0.1
log:
  level: warn
  formatter: text
  accesslog:
    disabled: true
storage:
  # Production registries cache blob descriptors; without it every manifest
  # HEAD stats several files, which would make this registry, not the
  # client, the cost a warm scrape measures.
  cache:
    blobdescriptor: inmemory
  filesystem:
    rootdirectory: %q
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: %q
  # A fixed secret silences the "generated random secret" warning; it only
  # signs upload state, which never leaves this process.
  secret: registrytest
  headers:
    %s: [%q]
`, root, host, tokenHeader, token)
}

// registryEnv drops REGISTRY_* variables, which distribution treats as config
// overrides, so a developer's environment cannot reconfigure test registries.
// OpenTelemetry is switched off: v3 would otherwise try to export traces
// to a collector on localhost.
func registryEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REGISTRY_") && !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	return append(env, "OTEL_SDK_DISABLED=true", "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none")
}

// tokenHeader carries a per-process token on every registry response, so
// waitReady cannot mistake another registry on a recycled port for ours.
const tokenHeader = "X-Registrytest-Token"

// waitReady polls GET /v2/ until our registry answers 200, the process dies,
// or readyTimeout passes.
func waitReady(url, token string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(readyTimeout)
	var lastErr error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("process exited early")
		default:
		}
		resp, err := client.Get(url + "/v2/")
		if err == nil {
			resp.Body.Close()
			switch {
			case resp.Header.Get(tokenHeader) != token:
				err = errors.New("GET /v2/ answered by another server on this port")
			case resp.StatusCode == http.StatusOK:
				return nil
			default:
				err = fmt.Errorf("GET /v2/: %s", resp.Status)
			}
		}
		lastErr = err
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("timed out after %s: %v", readyTimeout, lastErr)
}

// freePort asks the kernel for an unused port. The listener is closed before
// the registry binds, so the caller must cope with losing a race for it.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
