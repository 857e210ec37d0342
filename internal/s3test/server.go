package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/internal/syncbuf"
)

// binaryName is the S3 server the tests run; .ci/deps installs it with
// `go install github.com/versity/versitygw/cmd/versitygw@v1.8.0`.
const binaryName = "versitygw"

// readyTimeout bounds how long Start waits for the server to answer.
const readyTimeout = 15 * time.Second

// Region is the region the server is started with and clients sign for.
const Region = "us-east-1"

// Server is a running versitygw process owned by one test.
type Server struct {
	// Host is "127.0.0.1:PORT"; URL is "http://" + Host.
	Host string
	URL  string
	// Root holds one directory per bucket, an object per file: tests can
	// inspect or damage storage behind the server's back.
	Root string
	// AccessKey and SecretKey are the root user's credentials, random per
	// server so a readiness probe cannot be answered by another one.
	AccessKey, SecretKey string

	buckets atomic.Int64 // names NewBucket's buckets
}

// Start runs a fresh, empty S3 server for t and stops it when t finishes.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := findBinary(t)
	dir := t.TempDir()
	// Another process can take the port between our probe and the server's
	// bind, so a failed start is retried on a new port.
	var lastErr error
	for attempt := range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("s3test: picking a port: %v", err)
		}
		srv, err := launch(t, bin, filepath.Join(dir, fmt.Sprint(attempt)), fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			return srv
		}
		if !errors.Is(err, errAddrInUse) {
			t.Fatalf("s3test: %v", err)
		}
		lastErr = err
	}
	t.Fatalf("s3test: no free port after retries: %v", lastErr)
	return nil
}

var errAddrInUse = errors.New("address already in use")

// findBinary looks on PATH, then where `go install` puts binaries. The S3
// tests are not optional, so a missing server fails rather than skips.
func findBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath(binaryName); err == nil {
		return p
	}
	var dirs []string
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			dirs = append(dirs, strings.TrimSpace(lines[0]))
			for _, gp := range filepath.SplitList(strings.TrimSpace(lines[1])) {
				dirs = append(dirs, filepath.Join(gp, "bin"))
			}
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, binaryName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	t.Fatalf("s3test: %s (the S3 server the tests run) not found on PATH nor in %v; run `bash .ci/deps` to install it", binaryName, dirs)
	return ""
}

// launch starts one server on host and waits until it answers a signed
// request with this server's credentials.
func launch(t testing.TB, bin, dir, host string) (*Server, error) {
	t.Helper()
	root, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{root, meta} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	srv := &Server{Host: host, URL: "http://" + host, Root: root, AccessKey: randomKey(10), SecretKey: randomKey(20)}
	out := &syncbuf.Buffer{}
	// Metadata goes to a sidecar directory so the tests do not depend on
	// the file system supporting user xattrs (tmpfs and overlayfs vary).
	cmd := exec.Command(bin,
		"--access", srv.AccessKey, "--secret", srv.SecretKey, "--region", Region,
		"--port", host, "--quiet", "--keep-alive",
		"posix", "--sidecar", meta, root)
	cmd.Env = serverEnv()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
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
	if err := waitReady(srv, exited); err != nil {
		stop()
		if waitErr != nil {
			err = fmt.Errorf("%v (exit: %v)", err, waitErr)
		}
		if strings.Contains(out.String(), "address already in use") {
			return nil, fmt.Errorf("%w: %s", errAddrInUse, host)
		}
		return nil, fmt.Errorf("%s on %s not ready: %v\nserver output:\n%s", binaryName, host, err, out)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() && out.String() != "" {
			t.Logf("%s %s output:\n%s", binaryName, host, out)
		}
	})
	return srv, nil
}

// waitReady polls ListBuckets until it succeeds, the process dies or
// readyTimeout passes. Only our server knows our random credentials.
func waitReady(srv *Server, exited <-chan struct{}) error {
	client := srv.client(srv.URL, aws.NopRetryer{})
	deadline := time.Now().Add(readyTimeout)
	var lastErr error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("process exited early")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := client.ListBuckets(ctx, &s3.ListBucketsInput{})
		cancel()
		if err == nil {
			return nil
		}
		lastErr = err
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("timed out after %s: %v", readyTimeout, lastErr)
}

// serverEnv drops the variables versitygw reads as configuration, so a
// developer's environment cannot reconfigure test servers.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VGW_") && !strings.HasPrefix(kv, "ROOT_") && !strings.HasPrefix(kv, "LOGFILE=") && !strings.HasPrefix(kv, "WEBHOOK=") {
			env = append(env, kv)
		}
	}
	return env
}

func randomKey(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

// freePort asks the kernel for an unused port. The listener is closed before
// the server binds, so the caller must cope with losing a race for it.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
