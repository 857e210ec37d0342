// Package rollouttest is the phased-rollout fixture the tests of site,
// site/edge, site/viewer and service share (docs/rollouts.md): the demo's
// graph-data with 4.16.2 rolling out from 10 % over 1000 minutes. It
// holds the input only: internal/ sits below generator/ and beside the
// module's root package (TestLayering), so callers pass the demo's
// graph-data (upgraph.DemoGraphData) and build and render the tree
// themselves.
package rollouttest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"testing/fstest"
)

// The demo rollout: 4.16.2 from StartValue over Minutes from Start. At is
// 300 minutes in, 30 % of the duration: throttling 0.37, buckets 1–3 of
// Buckets offered 4.16.2 (and the canary 0), 4–10 not.
const (
	Version    = "4.16.2"
	Start      = 1790000000
	StartValue = "0.1"
	Minutes    = 1000
	At         = Start + 300*60
	Buckets    = 10
	// OpenAt is the number of buckets 1..Buckets open at At.
	OpenAt = 3
)

// File is the rollout's graph-data file.
const File = "rollouts/4.16.2.yaml"

// YAML is the rollout of Version starting at start.
func YAML(start int64) []byte {
	return []byte("version: " + Version + "\nstart_epoch: " + strconv.FormatInt(start, 10) +
		"\nstart_percentage: " + StartValue + "\nduration_minutes: " + strconv.Itoa(Minutes) + "\n")
}

// GraphData is demo (the demo's graph-data, upgraph.DemoGraphData) with
// the rollout starting at start.
func GraphData(t testing.TB, demo fs.FS, start int64) fstest.MapFS {
	t.Helper()
	gd := fstest.MapFS{File: &fstest.MapFile{Data: YAML(start)}}
	if err := fs.WalkDir(demo, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(demo, p)
		gd[p] = &fstest.MapFile{Data: data}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return gd
}

// WriteGraphData writes GraphData(demo, start) as a directory under dir,
// for the inputs that are read from disk (upgraph service's --graph-data).
func WriteGraphData(t testing.TB, dir string, demo fs.FS, start int64) {
	t.Helper()
	for name, f := range GraphData(t, demo, start) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
