package edge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// Inputs shared with the rest of the repository's tests (next to it in CI).
const (
	sharedDir      = "../../../shared"
	conformanceDir = sharedDir + "/conformance"
	realGraphData  = sharedDir + "/graph-data"
)

var conformanceFixtures = []string{"20200220.104838", "20200319.204124", "20211124.083150"}

// nginxBinary finds nginx, which is often outside a non-root PATH. CI
// installs it, so its absence is a failure, not a reason to skip.
func nginxBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	t.Fatal("nginx is not installed: run .ci/run, which installs it (apt-get install nginx-light)")
	return ""
}

// startNginx serves the tree at dir with a full NginxConfig on a free
// loopback port until the test ends, and returns its base URL.
func startNginx(t testing.TB, dir string) string {
	t.Helper()
	bin := nginxBinary(t)
	prefix := t.TempDir()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // the free port may be taken before nginx binds it
		addr := freeAddr(t)
		opts := NginxOptions{Root: dir, Listen: addr, Full: true, Foreground: true}
		if m, err := manifest.Read(dir); err == nil && m.Rollouts != nil {
			opts.RolloutBuckets = m.Rollouts.Buckets // as upgraph edge nginx does
		}
		if os.Geteuid() == 0 {
			// Workers would run as nobody and could not read t.TempDir (0700).
			opts.User = "root"
		}
		if err := opts.Validate(); err != nil {
			t.Fatal(err)
		}
		conf := filepath.Join(prefix, "nginx.conf")
		if err := os.WriteFile(conf, []byte(NginxConfig(opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd := exec.Command(bin, "-c", conf, "-p", prefix+"/")
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if err := waitListening(addr, exited); err != nil {
			cmd.Process.Kill()
			log, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
			lastErr = fmt.Errorf("nginx did not start: %v\n%s%s", err, stderr.String(), log)
			continue
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGQUIT) // graceful: finish requests, stop workers
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		})
		return "http://" + addr
	}
	t.Fatal(lastErr)
	return ""
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitListening waits until addr accepts connections or the process exits.
func waitListening(addr string, exited <-chan error) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited: %v", err)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("timed out waiting for " + addr)
}

// startGo serves the tree at dir with the Go handler, as `upgraph serve`
// wires it, and returns its base URL.
func startGo(t testing.TB, dir string) string {
	t.Helper()
	g, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	h := site.NewHandler(site.Options{})
	h.SetGeneration(g)
	srv := httptest.NewServer(site.CORS(h))
	t.Cleanup(srv.Close)
	return srv.URL
}

// render writes the tree of b into a fresh directory.
func render(t testing.TB, b *generator.Built) (string, *manifest.Manifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	m, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), NoViewer: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

func build(t testing.TB, releases source.Source, gd fs.FS, opts graphdata.Options) *generator.Built {
	t.Helper()
	b, err := generator.Build(context.Background(), releases, gd, generator.BuildOptions{GraphData: opts})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// demoSignature is the payload digest of the demo's 4.16.0 amd64 release,
// which the demo trees carry two signatures for.
const demoSignature = "c5e6fcac0d4fa91794b846d0f3f87600dab240f6490f0865684206954fee6761"

var (
	demoOnce sync.Once
	demoDirs map[bool]string // by viewer
	demoErr  error
)

// demoTree is the demo data's tree with the viewer (as upgraph generate
// writes it) and two signatures, rendered once for the package.
func demoTree(t testing.TB) string { return demoTrees(t)[true] }

// demoTreeNoViewer is demoTree generated with --no-viewer.
func demoTreeNoViewer(t testing.TB) string { return demoTrees(t)[false] }

func demoTrees(t testing.TB) map[bool]string {
	t.Helper()
	demoOnce.Do(func() {
		b, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
			upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
		if err != nil {
			demoErr = err
			return
		}
		b.Signatures = map[string][][]byte{"sha256:" + demoSignature: {[]byte("sig one\x00\xff"), []byte("sig two")}}
		demoDirs = map[bool]string{true: filepath.Join(testRoot, "demo"), false: filepath.Join(testRoot, "demo-no-viewer")}
		for viewer, dir := range demoDirs {
			if _, err := generator.Render(context.Background(), b, generator.RenderOptions{
				Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), NoViewer: !viewer, Precompress: true,
			}); err != nil {
				demoErr = err
				return
			}
		}
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoDirs
}

// testRoot holds files shared by the package's tests.
var testRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "upgraph-edge-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Readable by nginx workers when they run as another user.
	os.Chmod(dir, 0o755)
	testRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixtureInputs are the releases and graph-data of a conformance fixture.
func fixtureInputs(name string) (source.Source, fs.FS) {
	dir := filepath.Join(conformanceDir, name)
	return &source.GraphFile{Path: filepath.Join(dir, "graph-gb-raw.json")}, os.DirFS(filepath.Join(dir, "cincinnati-graph-data"))
}

// realInputs are the real graph-data snapshot and releases synthesised
// for every version its channels name.
func realInputs(t testing.TB) (source.Source, fs.FS) {
	t.Helper()
	gd := os.DirFS(realGraphData)
	releases, err := synth.MetadataFS(gd)
	if err != nil {
		t.Fatal(err)
	}
	return &source.MetadataDir{Dir: "synth", FS: releases}, gd
}

// get sends one request with the given headers ("Name: value" lines).
func get(t testing.TB, c *http.Client, method, url string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range header {
		k, v, _ := strings.Cut(h, ":")
		req.Header[http.CanonicalHeaderKey(k)] = append(req.Header[http.CanonicalHeaderKey(k)], strings.TrimSpace(v))
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
