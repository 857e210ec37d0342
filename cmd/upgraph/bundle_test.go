package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// bundleApp is upgraph with the mirror and verify commands, run in
// process; it writes stdout to out.
func bundleApp(out io.Writer) *cli.App {
	app := newApp()
	for _, cmd := range []*cli.Command{mirrorTreeCommand(), verifyCommand()} {
		if app.Command(cmd.Name) == nil {
			app.Commands = append(app.Commands, cmd)
		}
	}
	app.Writer, app.ErrWriter = out, io.Discard
	return app
}

func runApp(ctx context.Context, args ...string) (string, error) {
	var out bytes.Buffer
	err := bundleApp(&out).RunContext(ctx, append([]string{"upgraph", "--log-level", "warn"}, args...))
	return out.String(), err
}

// TestMirrorVerifyServeCLI runs the air-gap workflow through the CLI:
// mirror a selection into a bundle, verify it, serve it, and find the
// extracted copy gone after the server stops.
func TestMirrorVerifyServeCLI(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where serve extracts bundles
	work := t.TempDir()
	src, file := filepath.Join(work, "src"), filepath.Join(work, "ocp.tar.gz")
	if _, err := runApp(t.Context(), "generate", "--demo", "--out", src); err != nil {
		t.Fatal(err)
	}
	mirrorArgs := []string{"mirror", "--from", src, "--bundle", file, "--channel", "^fast-", "--arch", "amd64",
		"--payload-mirror", "quay.io/openshift-release-dev=registry.local:5000/ocp"}
	out, err := runApp(t.Context(), mirrorArgs...)
	if err != nil || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("mirror: %v\n%s", err, out)
	}
	first, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(t.Context(), mirrorArgs...); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(file); !bytes.Equal(again, first) {
		t.Error("mirroring twice gave different bundles")
	}
	out, err = runApp(t.Context(), "verify", file)
	if err != nil || !strings.Contains(out, "checksum file matches") || !strings.Contains(out, "2 channel × arch graphs") { // fast-4.15 and fast-4.16, amd64
		t.Errorf("verify: %v\n%s", err, out)
	}

	for _, flag := range []string{"--bundle", "--dir"} {
		body := serveOnce(t, flag, file, "/api/upgrades_info/v1/graph?channel=fast-4.16&arch=amd64&version=4.16.0")
		if !strings.Contains(body, `"payload":"registry.local:5000/ocp/ocp-release@sha256:`) || strings.Contains(body, "quay.io") {
			t.Errorf("serve %s: payloads not rewritten: %s", flag, body)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "upgraph-bundle-*")); len(left) > 0 {
		t.Errorf("serve left %v behind", left)
	}
}

// serveOnce serves file with `serve FLAG FILE`, GETs path and stops it.
func serveOnce(t *testing.T, flag, file, path string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- bundleApp(pw).RunContext(ctx, []string{"upgraph", "--log-level", "warn", "serve", flag, file, "--listen", "127.0.0.1:0"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	_, addr, ok := strings.Cut(strings.TrimSpace(line), " on ")
	if err != nil || !ok {
		t.Fatalf("serve %s: %v, first line %q, exit %v", flag, err, line, <-done)
	}
	go io.Copy(io.Discard, pr)
	resp, err := http.Get(addr + path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve %s: %v", flag, err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
	return string(body)
}

// TestVerifyCLI checks that verify names each bad file and fails.
func TestVerifyCLI(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	work := t.TempDir()
	src, tree := filepath.Join(work, "src"), filepath.Join(work, "tree")
	if _, err := runApp(t.Context(), "generate", "--demo", "--out", src); err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(t.Context(), "mirror", "--from", src, "--out", tree); err != nil {
		t.Fatal(err)
	}
	if out, err := runApp(t.Context(), "verify", tree); err != nil || !strings.HasPrefix(out, "ok "+tree+" (tree)") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	// Replace rather than edit: the file is a hard link shared with others.
	bad := filepath.Join(tree, "graph", "amd64", "stable-4.16", "4.16.1.json")
	data, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	data[10] ^= 1
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "graph", "extra.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = runApp(t.Context(), "verify", tree)
	for _, want := range []string{"2 problems", "graph/amd64/stable-4.16/4.16.1.json: content does not match", "graph/extra.json: not listed"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("verify of a tampered tree: %v, want %q", err, want)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify"}, "want one LOCATION"},
		{[]string{"verify", filepath.Join(work, "none")}, "no such file"},
		{[]string{"mirror", "--from", src, "--out", tree, "--payload-mirror", "quay.io"}, "--payload-mirror"},
		{[]string{"mirror", "--from", src, "--out", tree, "--channel", "("}, "--channel"},
		{[]string{"serve", "--dir", tree, "--bundle", tree}, "want exactly one of --dir, --bundle and --s3"},
		{[]string{"serve", "--dir", tree, "--s3", "s3://bucket/tree"}, "want exactly one of --dir, --bundle and --s3"},
	} {
		if _, err := runApp(t.Context(), tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// TestMirrorViewerCLI checks mirror's viewer flags end to end: a mirror
// keeps a --no-viewer tree without the viewer, --viewer adds it, and
// --no-viewer removes it from a tree that has it; both at once fail.
func TestMirrorViewerCLI(t *testing.T) {
	work := t.TempDir()
	with, without := filepath.Join(work, "with"), filepath.Join(work, "without")
	if _, err := runApp(t.Context(), "generate", "--demo", "--out", with); err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(t.Context(), "generate", "--demo", "--no-viewer", "--out", without); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		from   string
		flags  []string
		viewer bool
	}{
		{with, nil, true},
		{without, nil, false},
		{without, []string{"--viewer"}, true},
		{with, []string{"--no-viewer"}, false},
	} {
		out := filepath.Join(work, fmt.Sprint("out", i))
		if msg, err := runApp(t.Context(), append([]string{"mirror", "--from", tc.from, "--out", out}, tc.flags...)...); err != nil {
			t.Fatalf("mirror %v: %v\n%s", tc.flags, err, msg)
		}
		_, errHTML := os.Stat(filepath.Join(out, "index.html"))
		_, errViewer := os.Stat(filepath.Join(out, "viewer"))
		if got := errHTML == nil && errViewer == nil; got != tc.viewer || (errHTML == nil) != (errViewer == nil) {
			t.Errorf("mirror --from %s %v: index.html %v, viewer/ %v; want the viewer: %v", filepath.Base(tc.from), tc.flags, errHTML, errViewer, tc.viewer)
		}
	}
	if _, err := runApp(t.Context(), "mirror", "--from", with, "--out", filepath.Join(work, "both"), "--viewer", "--no-viewer"); err == nil ||
		!strings.Contains(err.Error(), "--viewer and --no-viewer") {
		t.Errorf("--viewer --no-viewer: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "both")); err == nil {
		t.Error("--viewer --no-viewer wrote a tree")
	}
}
