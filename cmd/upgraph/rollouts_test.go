package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/tree/manifest"
)

// TestGenerateRollouts: generate --at with graph-data's rollouts/ writes
// the per-bucket copies and index.json's rollouts (honouring
// SOURCE_DATE_EPOCH without --at), validate accepts the rollout, diff
// reports its progress between two times, and the edges are generated
// for the tree's buckets.
func TestGenerateRollouts(t *testing.T) {
	work := t.TempDir()
	gd := filepath.Join(work, "gd")
	if out, err := exec.Command("cp", "-r", filepath.Join("..", "..", "testdata", "demo", "graph-data"), gd).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(gd, "rollouts"), 0o755); err != nil {
		t.Fatal(err)
	}
	rollout := "version: 4.16.2\nstart_epoch: 1790000000\nstart_percentage: 0.1\nduration_minutes: 1000\n"
	if err := os.WriteFile(filepath.Join(gd, "rollouts", "4.16.2.yaml"), []byte(rollout), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join("..", "..", "testdata", "demo", "releases"))
	if err != nil {
		t.Fatal(err)
	}
	releases := "metadata:" + abs
	stdout, stderr, code := run(t, work, nil, "generate", "--releases", releases, "--graph-data", gd, "--out", "t1", "--no-viewer", "--at", "2026-09-21T19:13:20Z")
	if code != 0 || !strings.Contains(stdout, "1 rollouts over 10 buckets at 2026-09-21T19:13:20Z: 40 graph files shared, 168 per-bucket copies (12 distinct), next change 2026-09-21T19:46:40Z") {
		t.Fatalf("generate --at: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// SOURCE_DATE_EPOCH is the time without --at: 600 minutes in.
	if _, stderr, code := run(t, work, []string{"SOURCE_DATE_EPOCH=1790036000"}, "generate", "--releases", releases, "--graph-data", gd, "--out", "t2", "--no-viewer"); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	m, err := manifest.Read(filepath.Join(work, "t2"))
	if err != nil {
		t.Fatal(err)
	}
	if ro := m.Rollouts; ro == nil || ro.At != "2026-09-22T00:13:20Z" || ro.Releases[0].OpenBuckets != 6 {
		t.Fatalf("index.json rollouts at SOURCE_DATE_EPOCH: %+v", ro)
	}
	if _, stderr, code := run(t, work, nil, "validate", "--graph-data", gd); code != 0 {
		t.Errorf("validate: exit %d\n%s", code, stderr)
	}
	stdout, _, code = run(t, work, nil, "diff", "t1", "t2")
	if code != 1 || !strings.Contains(stdout, "@@ rollouts @@") || !strings.Contains(stdout, "+ rollout 4.16.2 (every channel): start 2026-09-21T14:13:20Z at 0.1, 1000 minutes; 6 of 10 buckets offered") {
		t.Errorf("diff t1 t2: exit %d\n%s", code, stdout)
	}
	stdout, stderr, code = run(t, work, nil, "edge", "nginx", "--root", "t1")
	if code != 0 || !strings.Contains(stdout, `split_clients "${upgraph_id}" $upgraph_id_bucket {`) || !strings.Contains(stdout, "try_files /rollout/$upgraph_bucket/") {
		t.Errorf("edge nginx --root t1: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code = run(t, work, nil, "edge", "cloudfront", "--root", "t1", "--kvs", "kvs.json")
	kvs, err := os.ReadFile(filepath.Join(work, "kvs.json"))
	if code != 0 || !strings.HasPrefix(stdout, "import cf from 'cloudfront';\n") || !strings.Contains(stdout, "var ROLLOUT_N = 10;") ||
		err != nil || !strings.HasPrefix(string(kvs), `{"data":[{"key":"graph/`) {
		t.Errorf("edge cloudfront --root t1 --kvs kvs.json: exit %d, import file %.80s (%v)\n%s", code, kvs, err, stderr)
	}
	if _, stderr, code := run(t, work, nil, "edge", "cloudfront", "--root", "t1"); code == 0 || !strings.Contains(stderr, "--kvs") {
		t.Errorf("edge cloudfront --root t1 without --kvs: exit %d\n%s", code, stderr)
	}
}
