package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/generator/cvo"
	"github.com/upgraph/upgraph/generator/manifest"
)

// startServe runs `upgraph serve` on a free loopback port and returns its
// base URL; the process is stopped (SIGTERM, graceful) at cleanup.
func startServe(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--log-level", "warn", "serve", "--dir", dir, "--listen", "127.0.0.1:0", "--poll", "50ms"}, extra...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("serve did not start: %v", err)
	}
	_, addr, ok := strings.Cut(strings.TrimSpace(line), " on ")
	if !ok {
		cmd.Process.Kill()
		t.Fatalf("unexpected first line %q", line)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve exited with %v after SIGINT", err)
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Error("serve did not stop within 15 s of SIGINT")
		}
	})
	return addr
}

// TestServeClientConformance: a client behaving like the cluster-version
// operator gets, for every version of every channel × arch, the same
// current release, updates and conditional updates through upgraph serve
// (which answers with the per-version file) as from the full channel file.
func TestServeClientConformance(t *testing.T) {
	base := t.TempDir()
	trees := map[string]string{}
	for _, f := range []string{"20200220.104838", "20200319.204124", "20211124.083150"} {
		fx := filepath.Join("../../../shared/conformance", f)
		out := filepath.Join(base, f)
		if _, stderr, code := run(t, ".", nil, "generate", "--skip-invalid", "--releases", "graph:"+filepath.Join(fx, "graph-gb-raw.json"),
			"--graph-data", filepath.Join(fx, "cincinnati-graph-data"), "--out", out); code != 0 {
			t.Fatal(stderr)
		}
		trees[f] = out
	}
	realReleases(t, filepath.Join(base, "releases"))
	trees["real"] = filepath.Join(base, "real")
	if _, stderr, code := run(t, base, nil, "generate", "--releases", "metadata:releases", "--graph-data", mustAbs(t, realGraphData), "--out", "real"); code != 0 {
		t.Fatal(stderr)
	}
	client := &cvo.Client{HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}, ID: "01234567-89ab-cdef-0123-456789abcdef"}
	for name, dir := range trees {
		t.Run(name, func(t *testing.T) {
			upstream := startServe(t, dir) + "/api/upgrades_info/v1/graph"
			m, err := manifest.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			checked, withUpdates := 0, 0
			for _, g := range m.Graphs {
				body, err := os.ReadFile(filepath.Join(dir, g.Path))
				if err != nil {
					t.Fatal(err)
				}
				full, err := cvo.Parse(body)
				if err != nil {
					t.Fatal(err)
				}
				// A cluster on a multi payload asks with the Multi architecture.
				arch := g.Arch
				if arch == "multi" {
					arch = cvo.ArchitectureMulti
				}
				for _, v := range g.Versions {
					cur := semver.MustParse(v)
					want := cvo.Canonical(full.Updates(g.Channel, arch, arch, cur))
					got := cvo.Canonical(client.GetUpdates(context.Background(), upstream, arch, arch, g.Channel, cur))
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s %s %s: through serve\n%s\nfrom the channel file\n%s", g.Channel, g.Arch, v, got, want)
					}
					checked++
					if len(want.Updates)+len(want.ConditionalUpdates) > 0 {
						withUpdates++
					}
				}
				// A version the channel does not have: VersionNotFound, as upstream.
				_, _, _, err = client.GetUpdates(context.Background(), upstream, arch, arch, g.Channel, semver.MustParse("9.9.9"))
				if e, ok := err.(*cvo.Error); len(g.Versions) > 0 && (!ok || e.Reason != "VersionNotFound") {
					t.Fatalf("%s %s 9.9.9: err = %v, want VersionNotFound", g.Channel, g.Arch, err)
				}
			}
			t.Logf("%d versions checked through serve, %d with updates", checked, withUpdates)
			if checked == 0 || withUpdates == 0 {
				t.Error("vacuous check")
			}
		})
	}
}

// TestServeReload: a tree regenerated into the served directory is picked
// up without a restart; a broken one is not, and the old one stays served.
func TestServeReload(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "out")
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out, "--channel", "^stable-4.15$"); code != 0 {
		t.Fatal(stderr)
	}
	addr := startServe(t, out)
	get := func(q string) (int, string) {
		resp, err := http.Get(addr + "/graph?" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if _, body := get("channel=fast-4.16"); body != manifest.EmptyGraph {
		t.Fatalf("fast-4.16 before regeneration: %s", body)
	}
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	want, _ := os.ReadFile(filepath.Join(out, "graph/amd64/fast-4.16.json"))
	waitFor(t, func() bool { _, body := get("channel=fast-4.16"); return body == string(want) })

	// Break the tree in place (a file the index names disappears): the
	// server must keep answering from the generation it has loaded.
	index, _ := os.ReadFile(filepath.Join(out, "index.json"))
	os.Remove(filepath.Join(out, "graph/amd64/stable-4.15.json"))
	os.WriteFile(filepath.Join(out, "index.json"), append(index, ' '), 0o644)
	time.Sleep(300 * time.Millisecond) // several polls
	if code, body := get("channel=fast-4.16&version=4.16.0"); code != 200 || !strings.Contains(body, `"4.16.2"`) {
		t.Fatalf("after a broken tree: %d %s", code, body)
	}
	metrics := fetch(t, addr+"/metrics")
	if !strings.Contains(metrics, `upgraph_generation_reloads_total{result="error"}`) {
		t.Errorf("reload error not counted:\n%s", metrics)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fetch(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
