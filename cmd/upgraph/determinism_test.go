package main

import (
	"archive/tar"
	"compress/gzip"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/synth"
)

const realGraphData = "../../../shared/graph-data"

// deterministicMinors are the minors the 4.16 channels list.
var deterministicMinors = []string{"4.14.", "4.15.", "4.16."}

// realReleases writes synthesised release metadata for the real graph-data
// into dir: every release, or, given minors ("4.16."), those of these
// minors only (a generation narrowed to channels that list no other needs
// no more, and reads them faster).
func realReleases(t *testing.T, dir string, minors ...string) {
	t.Helper()
	rs, err := synth.FromGraphData(os.DirFS(realGraphData))
	if err != nil {
		t.Fatal(err)
	}
	if len(minors) > 0 {
		rs = slices.DeleteFunc(rs, func(r synth.Release) bool {
			return !slices.ContainsFunc(minors, func(m string) bool { return strings.HasPrefix(r.Version, m) })
		})
	}
	if err := synth.WriteDir(dir, rs); err != nil {
		t.Fatal(err)
	}
}

// TestDeterministic generates the same inputs twice with different
// parallelism, from different working directories with relative paths,
// and wants byte-identical trees.
func TestDeterministic(t *testing.T) {
	base := t.TempDir()
	gd, _ := filepath.Abs(realGraphData)
	realReleases(t, filepath.Join(base, "releases"), deterministicMinors...)
	for _, d := range []string{"a/deep/cwd", "b"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(gd, filepath.Join(base, d, "gd")); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	// A channel subset keeps the test quick while covering links between
	// channels that share per-version graphs (fast-4.16 and eus-4.16 list
	// the same versions): 5,600 files, 190 MB. (The eleven channels of
	// 4.14 to 4.16 were 21,000 files, 790 MB, written twice: 60 s on a
	// quiet machine, 140 s in CI.)
	common := []string{"--channel", `^(stable|fast|eus)-4\.16$`, "--graph-data", "gd"}
	runs := []struct{ dir, releases, out, procs, workers string }{
		{"a/deep/cwd", "metadata:../../../releases", "../../../out1", "1", "1"},
		{"b", "metadata:../releases", "out2", "2", "16"},
	}
	for _, r := range runs {
		args := append([]string{"generate", "--releases", r.releases, "--out", r.out, "--workers", r.workers}, common...)
		if _, stderr, code := run(t, filepath.Join(base, r.dir), append(env, "GOMAXPROCS="+r.procs), args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	one, two := treeDigest(t, filepath.Join(base, "out1")), treeDigest(t, filepath.Join(base, "b", "out2"))
	if len(one) < 1000 {
		t.Fatalf("only %d files generated", len(one))
	}
	if !maps.Equal(one, two) {
		for k, v := range one {
			if two[k] != v {
				t.Errorf("differs: %s", k)
			}
		}
		t.Fatal("trees differ")
	}
	index, _ := os.ReadFile(filepath.Join(base, "out1", "index.json"))
	if !strings.Contains(string(index), `"generatedAt":"2023-11-14T22:13:20Z"`) {
		t.Errorf("SOURCE_DATE_EPOCH not honoured: %.200s", index)
	}
}

// TestGraphDataTarball: the same graph-data as a .tar.gz (with a GitHub-style
// top-level directory) gives the same tree as the directory.
func TestGraphDataTarball(t *testing.T) {
	base := t.TempDir()
	tgz := filepath.Join(base, "graph-data.tar.gz")
	writeTarball(t, "../../testdata/demo/graph-data", "openshift-cincinnati-graph-data-abc123/", tgz)
	env := []string{"SOURCE_DATE_EPOCH=0"}
	for _, gd := range []string{"../../testdata/demo/graph-data", tgz} {
		out := filepath.Join(base, filepath.Base(gd)+".out")
		if _, stderr, code := run(t, ".", env, "generate", "--releases", "metadata:../../testdata/demo/releases", "--graph-data", gd, "--out", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", gd, code, stderr)
		}
	}
	if a, b := treeDigest(t, filepath.Join(base, "graph-data.out")), treeDigest(t, filepath.Join(base, "graph-data.tar.gz.out")); !maps.Equal(a, b) {
		t.Error("tarball and directory give different trees")
	}
}

func writeTarball(t *testing.T, src, prefix, dst string) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if err := tw.WriteHeader(&tar.Header{Name: prefix + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestInterrupted stops generation part-way, politely (SIGINT) and not
// (SIGKILL): the published tree must be exactly the old one, and a later
// run must succeed and clean up what the killed one left.
func TestInterrupted(t *testing.T) {
	base := t.TempDir()
	realReleases(t, filepath.Join(base, "releases"))
	out := filepath.Join(base, "out")
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	old := treeDigest(t, out)
	args := []string{"generate", "--releases", "metadata:releases", "--graph-data", realGraphData, "--out", out}
	gd, _ := filepath.Abs(realGraphData)
	args[4] = gd
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := command(base, args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the run is writing its staging tree, then stop it.
			deadline := time.Now().Add(60 * time.Second)
			for !stagingHasFiles(base) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("the run never started writing")
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if err == nil {
				t.Fatal("interrupted run exited 0")
			}
			if got := treeDigest(t, out); !maps.Equal(got, old) {
				t.Fatal("the published tree changed")
			}
			if sig == syscall.SIGINT && stagingHasFiles(base) {
				t.Error("SIGINT left a staging directory behind")
			}
			// A stopped run says why it stopped and that the tree is intact.
			if want := "interrupted (interrupt signal received) before the new generation was complete; " + out + " is unchanged"; sig == syscall.SIGINT && !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
		})
	}
	// A complete run afterwards succeeds and removes the killed run's staging tree.
	if _, stderr, code := run(t, base, []string{"GOMAXPROCS=2"}, append(args, "--channel", `^stable-4\.16$`, "--force")...); code != 0 {
		t.Fatal(stderr)
	}
	if stagingHasFiles(base) {
		t.Error("stale staging directory survived a later run")
	}
}

func stagingHasFiles(dir string) bool {
	matches, _ := filepath.Glob(filepath.Join(dir, ".out.upgraph-[0-9a-f]*", "graph"))
	return len(matches) > 0
}
