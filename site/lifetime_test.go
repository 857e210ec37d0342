//go:build unix

package site_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestSnapshotsFollowGenerations: while a served tree is regenerated, the
// server holds at most two snapshots (the one served, and the one retired
// or the one being loaded), a retired one goes as soon as its last
// request ends, and Close removes the last one.
func TestSnapshotsFollowGenerations(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	h := site.NewHandler(site.Options{VerifyAhead: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.Watch(ctx, dir, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	_, fast, _ := servers(t, h)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	sampler := sampleSnapshots(t, dir)
	regenerate := func(i int) {
		t.Helper()
		if err := renderDemo(dir, generator.RenderOptions{GeneratedAt: time.Date(2026, 5, 1, 0, 0, i, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		index, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the new generation", func() bool { return h.Generation().ID == manifest.Digest(index) })
	}
	for i := range 8 {
		regenerate(i)
		for _, q := range []string{"channel=fast-4.16&version=4.16.0", "channel=stable-4.16&arch=arm64"} {
			res, err := client.Get("http://" + fast + "/graph?" + q)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d", q, res.StatusCode)
			}
		}
		if n := len(snapshots(t, dir)); n > 2 {
			t.Fatalf("regeneration %d: %d snapshots", i+1, n)
		}
	}

	// A request in flight keeps its generation's snapshot past the swap,
	// and only until it ends.
	release := h.Hold()
	regenerate(100)
	if n := len(snapshots(t, dir)); n != 2 {
		t.Fatalf("a request in flight on the retired generation: %d snapshots, want 2", n)
	}
	release()
	waitFor(t, "the retired snapshot to go", func() bool { return len(snapshots(t, dir)) == 1 })

	if err := h.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if most := sampler.Stop(); most > 2 {
		t.Errorf("%d snapshots at once during regenerations, want at most 2", most)
	}
	if s := snapshots(t, dir); len(s) != 0 {
		t.Errorf("after Close: %v", s)
	}
	res, err := client.Get("http://" + fast + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 503 {
		t.Errorf("/readyz after Close: %d, want 503", res.StatusCode)
	}
}

// TestStaleSnapshotOfKilledServer: the snapshot of a server that was
// killed (SIGKILL: nothing of its own runs) is removed by the next one to
// load the tree, and so is one whose server died before it could lock it;
// a live server's is kept.
func TestStaleSnapshotOfKilledServer(t *testing.T) {
	if dir := os.Getenv("UPGRAPH_SITE_TEST_SERVE"); dir != "" {
		// The server to kill: it loads the tree, says so, and waits.
		if _, err := site.Load(dir, nil); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("loaded")
		select {}
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	live, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestStaleSnapshotOfKilledServer$")
	cmd.Env = append(os.Environ(), "UPGRAPH_SITE_TEST_SERVE="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if line != "loaded\n" {
		t.Fatalf("the server to kill said %q", line)
	}
	// One that died between creating its snapshot and locking it.
	unlocked := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".upgraph-serve-000000000000")
	if err := os.Mkdir(unlocked, 0o755); err != nil {
		t.Fatal(err)
	}
	if n := len(snapshots(t, dir)); n != 3 {
		t.Fatalf("%d snapshots before the next load, want 3 (live, killed, unlocked)", n)
	}

	next, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(snapshots(t, dir)); n != 2 {
		t.Errorf("%d snapshots after the next load, want 2 (the live one, the new one)", n)
	}
	next.Close()
	live.Close()
	if s := snapshots(t, dir); len(s) != 0 {
		t.Errorf("after closing both: %v", s)
	}
}
