package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// runValidateApp runs the validate command in process; main exits 1 on
// the error it returns.
func runValidateApp(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	app := &cli.App{
		Commands:       []*cli.Command{validateCommand()},
		Writer:         &out,
		ErrWriter:      &errOut,
		ExitErrHandler: func(*cli.Context, error) {}, // as newApp: the caller exits
	}
	err = app.RunContext(context.Background(), append([]string{"upgraph", "validate"}, args...))
	return out.String(), errOut.String(), err
}

// validateFixture is a graph-data tree with one error (B6, line 4 of the
// risk) and one warning (L-version-order, line 4 of candidate-4.16).
var validateFixture = map[string]string{
	"version":                      "1.1.0\n",
	"raw/metadata.json":            "{}\n",
	"channels/candidate-4.16.yaml": "name: candidate-4.16\nversions:\n- 4.16.1\n- 4.16.0\n",
	"channels/fast-4.16.yaml":      "name: fast-4.16\nversions:\n- 4.16.0\n- 4.16.1\n",
	"blocked-edges/4.16.1-badName.yaml": `to: 4.16.1
from: 4[.]16[.]0[+].*
url: https://issues.example.com/1
name: badName
message: Something breaks.
matchingRules:
- type: Always
`,
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		write(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	return dir
}

// tarTree packs files as a .tar.gz under a top-level directory, as a
// GitHub tarball is.
func tarTree(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "graph-data-main/" + name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(content))
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "graph-data.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidateCommand(t *testing.T) {
	fixture := writeTree(t, validateFixture)
	warningsOnly := map[string]string{}
	for k, v := range validateFixture {
		warningsOnly[k] = strings.Replace(v, "name: badName", "name: BadName", 1)
	}
	warnDir := writeTree(t, warningsOnly)
	demoGD, demoReleases := filepath.Join("..", "..", "testdata", "demo", "graph-data"), "metadata:"+filepath.Join("..", "..", "testdata", "demo", "releases")
	newer := withFiles(validateFixture, map[string]string{"channels/candidate-4.16.yaml": "name: candidate-4.16\nversions:\n- 4.16.1\n- 4.16.0\n- 4.17.0\n"})

	for _, tc := range []struct {
		name    string
		args    []string
		stdout  string // exact
		errText string // "" for success (exit 0)
	}{
		{"error and warning", []string{"--graph-data", fixture},
			filepath.Join(fixture, "blocked-edges", "4.16.1-badName.yaml") + ":4: error: name must be a CamelCase reason matching ^[A-Z][A-Za-z0-9_]*$, not \"badName\" [B6]\n" +
				filepath.Join(fixture, "channels", "candidate-4.16.yaml") + ":4: warning: 4.16.0 is listed after 4.16.1 (line 3); channels list versions in SemVer order [L-version-order]\n",
			"1 error, 1 warning"},
		{"warnings alone exit 0", []string{"--graph-data", warnDir},
			filepath.Join(warnDir, "channels", "candidate-4.16.yaml") + ":4: warning: 4.16.0 is listed after 4.16.1 (line 3); channels list versions in SemVer order [L-version-order]\n", ""},
		{"archive paths stay inside the archive", []string{"--graph-data", tarTree(t, warningsOnly)},
			"channels/candidate-4.16.yaml:4: warning: 4.16.0 is listed after 4.16.1 (line 3); channels list versions in SemVer order [L-version-order]\n", ""},
		{"releases", []string{"--graph-data", writeTree(t, newer), "--releases", demoReleases, "--format", "json"}, "", "2 errors, 1 warning"},
		{"bad format", []string{"--graph-data", fixture, "--format", "yaml"}, "", `--format: want text or json, got "yaml"`},
		{"missing graph-data", []string{"--graph-data", fixture + "-missing"}, "", "-missing: no such file"},
		{"graph-data required", nil, "", `Required flag "graph-data" not set`},
		{"bad releases", []string{"--graph-data", fixture, "--releases", "nope"}, "", `release source "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, err := runValidateApp(tc.args...)
			switch {
			case tc.errText == "" && err != nil:
				t.Fatalf("err = %v, stderr = %s", err, stderr)
			case tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)):
				t.Fatalf("err = %v, want it to contain %q", err, tc.errText)
			}
			if tc.stdout != "" && stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
		})
	}
	// The demo is clean, with and without its releases: no finding, exit 0.
	for name, args := range map[string][]string{
		"demo":               {"--graph-data", demoGD},
		"demo with releases": {"--graph-data", demoGD, "--releases", demoReleases},
	} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, err := runValidateApp(args...)
			if err != nil || stdout != "" || stderr != "" {
				t.Errorf("err = %v, stdout = %q, stderr = %q; want a clean run", err, stdout, stderr)
			}
		})
	}
}

// TestValidateJSON: --format json is an array of {file, line, severity,
// rule, message}, in the text output's order.
func TestValidateJSON(t *testing.T) {
	dir := writeTree(t, withFiles(validateFixture, map[string]string{"channels/candidate-4.16.yaml": "name: candidate-4.16\nversions:\n- 4.16.1\n- 4.16.0\n- 4.17.0\n"}))
	stdout, _, err := runValidateApp("--graph-data", dir, "--releases", "metadata:"+filepath.Join("..", "..", "testdata", "demo", "releases"), "--format", "json")
	if err == nil {
		t.Fatal("want an error: the tree has errors")
	}
	var got []struct {
		File, Severity, Rule, Message string
		Line                          int
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	var brief []string
	for _, p := range got {
		rel, _ := filepath.Rel(dir, p.File)
		brief = append(brief, filepath.ToSlash(rel)+":"+strconv.Itoa(p.Line)+" "+p.Severity+" "+p.Rule)
		if p.Message == "" {
			t.Errorf("%s: empty message", p.File)
		}
	}
	want := []string{
		"blocked-edges/4.16.1-badName.yaml:4 error B6",
		"channels/candidate-4.16.yaml:4 warning L-version-order",
		"channels/candidate-4.16.yaml:5 error R1",
	}
	if !slices.Equal(brief, want) {
		t.Errorf("got %q\nwant %q", brief, want)
	}
}

// TestValidateRealGraphDataCommand: graph-data's own snapshot passes
// (warnings allowed).
func TestValidateRealGraphDataCommand(t *testing.T) {
	gd := filepath.Join("..", "..", "..", "shared", "graph-data")
	if _, err := os.Stat(gd); err != nil {
		t.Skip("real graph-data not available")
	}
	stdout, _, err := runValidateApp("--graph-data", gd)
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if !strings.Contains(line, ": warning: ") {
			t.Errorf("not a warning: %s", line)
		}
	}
}

// withFiles returns base with over applied.
func withFiles(base, over map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// TestValidateClusterRules: the lints of what clusters do with risks and
// multi-arch releases print and encode like the other rules; the
// architecture metadata comes from --releases.
func TestValidateClusterRules(t *testing.T) {
	files := withFiles(validateFixture, map[string]string{
		"channels/candidate-4.16.yaml":                 "name: candidate-4.16\nversions:\n- 4.16.0\n- 4.16.1\n",
		"blocked-edges/4.16.1-DTK_KernelMismatch.yaml": strings.Replace(validateFixture["blocked-edges/4.16.1-badName.yaml"], "name: badName", "name: DTK_KernelMismatch", 1),
	})
	delete(files, "blocked-edges/4.16.1-badName.yaml")
	dir := writeTree(t, files)
	releases := t.TempDir()
	for i, r := range []struct{ version, arch, metadata string }{
		{"4.16.0", "amd64", ""},
		{"4.16.0", "multi", `"release.openshift.io/architecture": "multi"`},
		{"4.16.1", "amd64", ""},
		{"4.16.1", "multi", `"release.openshift.io/architecture": "Multi"`},
	} {
		write(t, filepath.Join(releases, r.version+"+"+r.arch+".json"), `{"kind": "cincinnati-metadata-v0", "version": "`+r.version+`", "arch": "`+r.arch+`",
 "payload": "quay.io/openshift-release-dev/ocp-release@sha256:`+strings.Repeat("0", 63)+strconv.Itoa(i)+`",
 "metadata": {`+r.metadata+`}}`)
	}
	args := []string{"--graph-data", dir, "--releases", "metadata:" + releases}
	stdout, _, err := runValidateApp(args...)
	if err == nil || !strings.Contains(err.Error(), "1 error, 1 warning") {
		t.Fatalf("err = %v, want 1 error, 1 warning\n%s", err, stdout)
	}
	risk, channel := filepath.Join(dir, "blocked-edges", "4.16.1-DTK_KernelMismatch.yaml"), filepath.Join(dir, "channels", "candidate-4.16.yaml")
	for _, want := range []string{
		risk + `:4: warning: risk name DTK_KernelMismatch does not match ^[A-Z][A-Za-z0-9.-]*$`,
		channel + `:4: error: release 4.16.1+multi (served by channel candidate-4.16) has release.openshift.io/architecture "Multi": the CVO accepts only "multi"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, _ = runValidateApp(append(args, "--format", "json")...)
	var got []struct{ File, Severity, Rule string }
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	var brief []string
	for _, p := range got {
		rel, _ := filepath.Rel(dir, p.File)
		brief = append(brief, filepath.ToSlash(rel)+" "+p.Severity+" "+p.Rule)
	}
	if want := []string{"blocked-edges/4.16.1-DTK_KernelMismatch.yaml warning L-risk-name-pattern", "channels/candidate-4.16.yaml error L-multi-arch"}; !slices.Equal(brief, want) {
		t.Errorf("got %q\nwant %q", brief, want)
	}
}
