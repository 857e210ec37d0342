package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/bundletest"
)

// TestSigningWorkflow runs the commands of docs/signing.md's worked
// example: keys init, generate --sign twice, verify --trust --state, sign
// --timestamp, and the refusals of a changed file and of the older
// generation once the newer one was seen.
func TestSigningWorkflow(t *testing.T) {
	dir := t.TempDir()
	must := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := run(t, dir, nil, args...)
		if code != 0 {
			t.Fatalf("upgraph %s: exit %d:\n%s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	refused := func(threat, file string, args ...string) {
		t.Helper()
		_, stderr, code := run(t, dir, nil, args...)
		if code == 0 || !strings.Contains(stderr, "("+threat+", TUF §") || !strings.Contains(stderr, file) {
			t.Fatalf("upgraph %s: exit %d, want a %s refusal naming %s:\n%s", strings.Join(args, " "), code, threat, file, stderr)
		}
	}
	must("keys", "init", "keys")
	must("generate", "--demo", "--out", "tree", "--sign", "keys")
	bundletest.CopyTree(t, filepath.Join(dir, "tree"), filepath.Join(dir, "old"))
	must("generate", "--demo", "--out", "tree", "--sign", "keys")
	out := must("verify", "--trust", "keys/root.json", "--state", "state.json", "tree")
	if !strings.Contains(out, "signed (root 1, targets 2, snapshot 2, timestamp 2)") {
		t.Errorf("verify: %s", out)
	}
	refused("rollback", "tuf/timestamp.json", "verify", "--trust", "keys/root.json", "--state", "state.json", "old")
	out = must("sign", "--timestamp", "keys", "tree")
	if !strings.Contains(out, "timestamp.json version 3") {
		t.Errorf("sign --timestamp: %s", out)
	}
	must("verify", "--trust", "keys/root.json", "--state", "state.json", "tree")
	// An air-gapped site: the mirror verified on the way in and signed
	// with the site's keys, in a bundle that carries tuf/.
	must("keys", "init", "site-keys")
	must("mirror", "--from", "tree", "--trust", "keys/root.json", "--bundle", "site.tar.gz", "--sign", "site-keys")
	out = must("verify", "--trust", "site-keys/root.json", "site.tar.gz")
	if !strings.Contains(out, "signed (root 1, targets 1, snapshot 1, timestamp 1)") {
		t.Errorf("verify the bundle: %s", out)
	}
	refused("wrong-key", "tuf/timestamp.json", "verify", "--trust", "keys/root.json", "site.tar.gz")
	must("generate", "--demo", "--out", "unsigned")
	refused("unsigned", "tuf/timestamp.json", "mirror", "--from", "unsigned", "--trust", "keys/root.json", "--out", "copy")
	if _, err := os.Stat(filepath.Join(dir, "copy")); err == nil {
		t.Error("mirror wrote a copy of a tree it refused")
	}
	// publish and diff refuse an unsigned tree before doing anything (no
	// S3 server listens at 127.0.0.1:1).
	refused("unsigned", "tuf/timestamp.json", "publish", "--trust", "keys/root.json", "--endpoint", "http://127.0.0.1:1", "--path-style",
		"--region", "us-east-1", "unsigned", "s3://b/p")
	refused("unsigned", "tuf/timestamp.json", "diff", "--trust", "keys/root.json", "tree", "unsigned")
	if _, _, code := run(t, dir, nil, "diff", "--trust", "keys/root.json", "tree", "old"); code != 0 {
		t.Errorf("diff --trust of two signed generations of the same graphs: exit %d, want 0", code)
	}
	victim := filepath.Join(dir, "tree", "graph", "amd64", "stable-4.16.json")
	data, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x20
	if err := os.WriteFile(victim, data, 0o644); err != nil {
		t.Fatal(err)
	}
	refused("tamper", "graph/amd64/stable-4.16.json", "verify", "--trust", "keys/root.json", "tree")
	// Keys never go into a tree.
	_, stderr, code := run(t, dir, nil, "keys", "init", "tree/keys")
	if code == 0 || !strings.Contains(stderr, "inside the tree") {
		t.Errorf("keys init inside a tree: exit %d: %s", code, stderr)
	}
}
