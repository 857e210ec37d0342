package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/tree/manifest"
)

// Demo payload digests (testdata/demo/releases) and one no release has.
const (
	hex4160amd = "c5e6fcac0d4fa91794b846d0f3f87600dab240f6490f0865684206954fee6761"
	hex4150arm = "c27f5d873fc95dc44c2fa86c32f3f6d2b95c61bba68b941291297e58c48f570d"
	hexNone    = "00000000000000000000000000000000000000000000000000000000000000ff"
)

// TestGenerateServeSignatures: `generate --signatures` publishes the
// signatures of the releases in the tree, in both input layouts, without
// changing any other file, and `serve` answers a cluster's signature store
// requests from them.
func TestGenerateServeSignatures(t *testing.T) {
	work := t.TempDir()
	sigs := filepath.Join(work, "sigs")
	amdSig := "-----BEGIN PGP MESSAGE-----\n4.16.0 amd64\x00\xff"
	write(t, filepath.Join(sigs, "sha256="+hex4160amd, "signature-1"), amdSig)  // signature-store layout
	write(t, filepath.Join(sigs, "sha256", hex4150arm, "signature-1"), "arm 1") // graph-data layout
	write(t, filepath.Join(sigs, "sha256", hex4150arm, "signature-2"), "arm 2")
	write(t, filepath.Join(sigs, "sha256="+hexNone, "signature-1"), "no release") // not in the tree
	write(t, filepath.Join(sigs, "README.md"), "# signatures\n")

	plain, signed := filepath.Join(work, "plain"), filepath.Join(work, "signed")
	if _, stderr, code := run(t, ".", nil, "generate", "--demo", "--out", plain); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := run(t, ".", nil, "generate", "--demo", "--signatures", sigs, "--out", signed)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "wrote 156 files (12 channel × arch graphs, 52 per-version graphs, 3 release signatures)") {
		t.Errorf("stdout = %q", stdout)
	}
	if !strings.Contains(stderr, "README.md") {
		t.Errorf("no warning about the stray README.md: %s", stderr)
	}

	// Signatures only add files: every other file is byte-identical.
	want := map[string]string{
		"signatures/sha256=" + hex4160amd + "/signature-1": amdSig,
		"signatures/sha256=" + hex4150arm + "/signature-1": "arm 1",
		"signatures/sha256=" + hex4150arm + "/signature-2": "arm 2",
	}
	before, after := treeDigest(t, plain), treeDigest(t, signed)
	for name, sum := range before {
		if name != manifest.FileName && after[name] != sum {
			t.Errorf("%s differs with --signatures", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok && want[name] == "" {
			t.Errorf("unexpected new file %s", name)
		}
	}
	m, err := manifest.Read(signed)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range want {
		data, err := os.ReadFile(filepath.Join(signed, name))
		if err != nil || string(data) != body {
			t.Errorf("%s = %q, %v; want %q", name, data, err, body)
		}
		if f := m.Files[name]; f.SHA256 != manifest.SHA256([]byte(body)) || f.Size != int64(len(body)) {
			t.Errorf("index.json lists %s as %+v", name, f)
		}
	}
	if m.Counts.Signatures != 3 {
		t.Errorf("counts.signatures = %d, want 3", m.Counts.Signatures)
	}

	base := startServe(t, signed)
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/signatures/sha256=" + hex4160amd + "/signature-1", 200, amdSig},
		{"/api/upgrades_info/signatures/sha256=" + hex4160amd + "/signature-1", 200, amdSig},
		{"/api/upgrades_info/signatures/sha256=" + hex4150arm + "/signature-2", 200, "arm 2"},
		{"/signatures/sha256=" + hex4160amd + "/signature-2", 404, `{"kind":"does_not_exist","value":"does not exist: sha256=` + hex4160amd + `/signature-2"}`},
		{"/signatures/sha256=" + hexNone + "/signature-1", 404, `{"kind":"does_not_exist","value":"does not exist: sha256=` + hexNone + `/signature-1"}`},
	} {
		resp, err := http.Get(base + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || string(body) != tc.body {
			t.Errorf("GET %s: %d %q, want %d %q", tc.path, resp.StatusCode, body, tc.code, tc.body)
		}
	}
}

// TestGenerateSignatureErrors: bad signature input fails the run, names
// the file and leaves the output alone.
func TestGenerateSignatureErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"conflict between layouts",
			map[string]string{"sha256/" + hex4160amd + "/signature-1": "one", "sha256=" + hex4160amd + "/signature-1": "other"},
			[]string{"sha256/" + hex4160amd + "/signature-1 and ", "sha256=" + hex4160amd + "/signature-1 are both signature-1 of sha256:" + hex4160amd}},
		{"bad digest", map[string]string{"sha256=" + hex4160amd[:10] + "/signature-1": "x"},
			[]string{"sha256=" + hex4160amd[:10] + ": not a sha256 digest"}},
		{"bad number", map[string]string{"sha256=" + hex4160amd + "/signature-0": "x"},
			[]string{"sha256=" + hex4160amd + "/signature-0: not a servable signature"}},
		{"too big", map[string]string{"sha256=" + hex4160amd + "/signature-1": strings.Repeat("x", 50<<10+1)},
			[]string{"sha256=" + hex4160amd + "/signature-1: over 51200 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			sigs := filepath.Join(work, "sigs")
			for name, body := range tc.files {
				write(t, filepath.Join(sigs, name), body)
			}
			out := filepath.Join(work, "out")
			_, stderr, code := run(t, ".", nil, "generate", "--demo", "--signatures", sigs, "--out", out)
			if code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, stderr)
			}
			for _, s := range tc.want {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q: %s", s, stderr)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a failed run created %s", out)
			}
		})
	}
	_, stderr, code := run(t, ".", nil, "generate", "--demo", "--signatures", "no-such-dir", "--out", filepath.Join(t.TempDir(), "out"))
	if code != 1 || !strings.Contains(stderr, "no-such-dir") {
		t.Errorf("missing --signatures directory: exit %d, %s", code, stderr)
	}
}
