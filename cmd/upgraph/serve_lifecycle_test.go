package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/tree/manifest"
)

// serveProc is an `upgraph serve` process.
type serveProc = listeningProc

// startServeProc runs upgraph serve with args and env in dir, and waits
// until it says it serves.
func startServeProc(t *testing.T, dir string, env []string, args ...string) *serveProc {
	t.Helper()
	p := startListening(t, dir, env, append([]string{"serve", "--listen", "127.0.0.1:0", "--poll", "20ms"}, args...)...)
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// stop sends SIGTERM, as a service manager does, and wants a clean exit.
func (p *listeningProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve exited with %v after SIGTERM:\n%s", err, p.stderr)
		}
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		t.Fatal("serve did not stop within 20 s of SIGTERM")
	}
}

func serveSnapshots(t *testing.T, tree string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(tree), "."+filepath.Base(tree)+".upgraph-serve-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in %s: %v", dir, names)
	}
}

// TestServeSnapshotsGo: while the served tree is regenerated, serve keeps
// at most two snapshots and, once the last request on the previous
// generation is answered, one; after SIGTERM none, and nothing in its
// temporary directory.
func TestServeSnapshotsGo(t *testing.T) {
	base := t.TempDir()
	out, tmp := filepath.Join(base, "out"), filepath.Join(base, "tmp")
	os.Mkdir(tmp, 0o755)
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	p := startServeProc(t, base, []string{"TMPDIR=" + tmp}, "--dir", out)
	for i := range 5 {
		if _, stderr, code := run(t, base, []string{"SOURCE_DATE_EPOCH=" + strconv.Itoa(1700000000+i)}, "generate", "--demo", "--out", out); code != 0 {
			t.Fatal(stderr)
		}
		index, err := os.ReadFile(filepath.Join(out, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		id := `upgraph_generation_info{id="` + manifest.Digest(index) + `"} 1`
		waitFor(t, func() bool { return strings.Contains(fetch(t, p.addr+"/metrics"), id) })
		if s := serveSnapshots(t, out); len(s) > 2 {
			t.Fatalf("regeneration %d: %d snapshots", i+1, len(s))
		}
		fetch(t, p.addr+"/graph?channel=fast-4.16&version=4.16.0")
		waitFor(t, func() bool { return len(serveSnapshots(t, out)) == 1 })
	}
	p.stop(t)
	if s := serveSnapshots(t, out); len(s) != 0 {
		t.Errorf("after SIGTERM: %v", s)
	}
	emptyDir(t, tmp)
}

// TestServeBundleAndS3LeaveNothing: serve --bundle and serve --s3 keep
// their private copies (and the snapshots beside them) in TMPDIR, and
// remove all of it at SIGTERM.
func TestServeBundleAndS3LeaveNothing(t *testing.T) {
	base := t.TempDir()
	out, bundleFile := filepath.Join(base, "out"), filepath.Join(base, "demo.tar.gz")
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, base, nil, "mirror", "--from", out, "--bundle", bundleFile); code != 0 {
		t.Fatal(stderr)
	}
	t.Run("bundle", func(t *testing.T) {
		tmp := t.TempDir()
		p := startServeProc(t, base, []string{"TMPDIR=" + tmp}, "--bundle", bundleFile)
		if body := fetch(t, p.addr+"/graph?channel=fast-4.16"); !strings.Contains(body, `"4.16.1"`) {
			t.Errorf("served: %.200s", body)
		}
		p.stop(t)
		emptyDir(t, tmp)
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3test.Start(t)
		bucket := srv.NewBucket(t)
		env := s3Env(base, srv)
		if _, stderr, code := run(t, base, env, "publish", "--endpoint", srv.URL, "--path-style", "--region", s3test.Region, out, "s3://"+bucket+"/v1"); code != 0 {
			t.Fatal(stderr)
		}
		tmp := t.TempDir()
		p := startServeProc(t, base, append(env, "TMPDIR="+tmp), "--s3", "s3://"+bucket+"/v1", "--endpoint", srv.URL, "--path-style", "--region", s3test.Region)
		if body := fetch(t, p.addr+"/graph?channel=fast-4.16"); !strings.Contains(body, `"4.16.1"`) {
			t.Errorf("served: %.200s", body)
		}
		p.stop(t)
		emptyDir(t, tmp)
	})
}

// s3Env is the environment of a client of srv: its credentials, and
// nothing of the developer's AWS configuration.
func s3Env(base string, srv *s3test.Server) []string {
	return []string{"AWS_ACCESS_KEY_ID=" + srv.AccessKey, "AWS_SECRET_ACCESS_KEY=" + srv.SecretKey, "AWS_SESSION_TOKEN=", "AWS_PROFILE=",
		"AWS_CONFIG_FILE=" + filepath.Join(base, "no-aws-config"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(base, "no-aws-credentials"),
		"AWS_EC2_METADATA_DISABLED=true", "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy="}
}

// TestServeStartFailures: a missing --dir and a busy --listen fail at
// once, each naming its flag and value, with no word of a previous
// generation, before any generation is served, leaving nothing behind.
func TestServeStartFailures(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "out")
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing dir", []string{"--dir", filepath.Join(base, "nope"), "--listen", "127.0.0.1:0"},
			[]string{"--dir " + filepath.Join(base, "nope") + ": no such file or directory"}},
		{"busy port", []string{"--dir", out, "--listen", busy.Addr().String()},
			[]string{"--listen " + busy.Addr().String(), "address already in use"}},
		{"poll 0", []string{"--dir", out, "--listen", "127.0.0.1:0", "--poll", "0"}, []string{"--poll 0s: want a positive duration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := run(t, base, nil, append([]string{"serve"}, tc.args...)...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, bad := range []string{"previous", "serving generation", "panic"} {
				if strings.Contains(stdout+stderr, bad) {
					t.Errorf("output has %q:\n%s%s", bad, stdout, stderr)
				}
			}
			if s := serveSnapshots(t, out); len(s) != 0 {
				t.Errorf("left behind: %v", s)
			}
		})
	}
}

// TestServeShrinkGuard: serve --dir refuses a regenerated tree that drops
// four of the six channels, says what would go, counts it and keeps
// serving the previous generation; with --force it serves it.
func TestServeShrinkGuard(t *testing.T) {
	for _, force := range []bool{false, true} {
		base := t.TempDir()
		out := filepath.Join(base, "out")
		if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out); code != 0 {
			t.Fatal(stderr)
		}
		args := []string{"--dir", out}
		if force {
			args = append(args, "--force")
		}
		p := startServeProc(t, base, nil, args...)
		want := fetch(t, p.addr+"/graph?channel=fast-4.16")
		if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out, "--channel", "^stable", "--force"); code != 0 {
			t.Fatal(stderr)
		}
		if force {
			waitFor(t, func() bool { return fetch(t, p.addr+"/graph?channel=fast-4.16") == manifest.EmptyGraph })
		} else {
			waitFor(t, func() bool {
				return strings.Contains(fetch(t, p.addr+"/metrics"), "upgraph_generations_refused_total{reason=\"shrink\"} 1")
			})
			if got := fetch(t, p.addr+"/graph?channel=fast-4.16"); got != want {
				t.Errorf("after a refused shrink: %.200s", got)
			}
			for _, w := range []string{"refused", "candidate-4.15, candidate-4.16, fast-4.15, fast-4.16", "--force"} {
				if !strings.Contains(p.stderr.String(), w) {
					t.Errorf("the log lacks %q:\n%s", w, p.stderr)
				}
			}
		}
		p.stop(t)
	}
}

// TestServeRefusalsJSON: net/http's own refusals are JSON, with the fast
// path and without it (--access-log).
func TestServeRefusalsJSON(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "out")
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	for _, extra := range [][]string{nil, {"--access-log"}} {
		p := startServeProc(t, base, nil, append([]string{"--dir", out}, extra...)...)
		c, err := net.Dial("tcp", strings.TrimPrefix(p.addr, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "GET /graph?channel=a HTTP/2.0\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		c.Close()
		if res.StatusCode != 505 || res.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(string(body), `{"kind":"http_version_not_supported","value":`) {
			t.Errorf("%v: HTTP/2.0 request line: %d %s %q", extra, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		p.stop(t)
	}
}
