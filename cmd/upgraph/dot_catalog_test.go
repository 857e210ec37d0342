package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// catalogTrees generates trees with upgraph generate --catalog: "shared"
// (the shared real catalog as "community"), "small" and "small2" (the
// same small catalog with package b's head 1.2.0 gone and a deprecation),
// and "other" (a catalog named "other" instead).
func catalogTrees(t *testing.T) map[string]string {
	t.Helper()
	shared := needSharedCatalog(t)
	work := t.TempDir()
	env := catalogEnv(t)
	smallCatalog(t, filepath.Join(work, "small-fbc"), []string{"a", "b"}, nil)
	smallCatalog(t, filepath.Join(work, "small2-fbc"), []string{"a"}, map[string]string{
		"b/catalog.json": strings.Join([]string{
			`{"schema":"olm.package","name":"b","defaultChannel":"stable"}`,
			`{"schema":"olm.channel","name":"stable","package":"b","entries":[{"name":"b.v1.0.0"},{"name":"b.v1.1.0","replaces":"b.v1.0.0"}]}`,
			bundleLine("b", "1.0.0"), bundleLine("b", "1.1.0"),
			`{"schema":"olm.deprecations","package":"b","entries":[{"reference":{"schema":"olm.bundle","name":"b.v1.0.0"},"message":"b 1.0.0 is broken"}]}`,
		}, "\n") + "\n",
	})
	trees := map[string]string{}
	for name, spec := range map[string]string{
		"shared": "community=" + shared, "small": "community=small-fbc", "small2": "community=small2-fbc", "other": "other=small-fbc",
	} {
		if _, stderr, code := run(t, work, env, "generate", "--catalog", spec, "--out", name); code != 0 {
			t.Fatalf("generate --catalog %s: exit %d\n%s", spec, code, stderr)
		}
		trees[name] = filepath.Join(work, name)
	}
	return trees
}

func TestDotCatalog(t *testing.T) {
	trees := catalogTrees(t)
	for _, tc := range []struct {
		name       string
		tree       string
		args       []string
		nodes      int
		edges      int
		has, lacks []string
	}{
		{"small channel", "small", []string{"--package", "a", "--channel", "stable"}, 3, 4, []string{
			`"a.v1.2.0" [label="a.v1.2.0\n1.2.0", peripheries=2, style="rounded,bold", tooltip="channel head"];`,
			`"a.v1.0.0" -> "a.v1.2.0" [style=dotted, label=">=1.0.0 <1.2.0", tooltip="skipRange"];`,
			`"a.v1.0.0" -> "a.v1.1.0" [tooltip="replaces"];`,
		}, nil},
		{"small package", "small2", []string{"--package", "b"}, 2, 1, []string{
			`"b.v1.0.0" [label="b.v1.0.0\n1.0.0", fillcolor="#E8960F", style="rounded,filled", tooltip="channels: stable\ndeprecated: b 1.0.0 is broken"];`,
		}, []string{"a.v1"}},
		{"shared channel", "shared", []string{"--package", "cat-facts-operator", "--channel", "stable"}, 4, 6, []string{
			`"cat-facts-operator.v1.0.0" [label="cat-facts-operator.v1.0.0\n1.0.0", color="#FF0000", penwidth=3, tooltip="skipped by OLM v0"];`,
			`"cat-facts-operator.v1.0.0" -> "cat-facts-operator.v1.1.1" [style=dashed, tooltip="skips"];`,
		}, nil},
		{"shared package", "shared", []string{"--package", "aws-neuron-operator"}, 12, -1, []string{`tooltip="replaces (Fast, Stable)"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--source", trees[tc.tree], "--catalog", "community"}, tc.args...)
			out, errOut, code := runCommand(dotCommand(), args...)
			if code != 0 {
				t.Fatalf("exit status %d: %s", code, errOut)
			}
			for _, s := range tc.has {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %s:\n%s", s, out)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(out, s) {
					t.Errorf("output has %s:\n%s", s, out)
				}
			}
			cmd := exec.Command(dotBinary(t), "-Tsvg")
			cmd.Stdin = strings.NewReader(out)
			var svg, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &svg, &stderr
			if err := cmd.Run(); err != nil || stderr.Len() > 0 {
				t.Fatalf("dot -Tsvg: %v: %s\ninput:\n%s", err, stderr.String(), out)
			}
			if n := strings.Count(svg.String(), `class="edge"`); tc.edges >= 0 && n != tc.edges {
				t.Errorf("the SVG has %d edges, want %d", n, tc.edges)
			}
			if n := strings.Count(svg.String(), `class="node"`); n != tc.nodes {
				t.Errorf("the SVG has %d nodes, want %d", n, tc.nodes)
			}
		})
	}

	t.Run("mermaid", func(t *testing.T) {
		out, errOut, code := runCommand(dotCommand(), "--source", trees["small2"], "--catalog", "community", "--package", "b", "--format", "mermaid")
		if code != 0 {
			t.Fatalf("exit status %d: %s", code, errOut)
		}
		want := `graph LR
  classDef deprecated fill:#E8960F
  classDef skipped stroke:#FF0000,stroke-width:4px
  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px
  %% package "b"
  subgraph "b"
    %% channel "stable"
    subgraph b-stable["stable"]
      b-stable-b.v1.1.0["b.v1.1.0"]
      b-stable-b.v1.0.0["b.v1.0.0"]-- replace --> b-stable-b.v1.1.0["b.v1.1.0"]
      b-stable-b.v1.0.0["b.v1.0.0"]
    end
  end
class b-stable-b.v1.0.0 deprecated
`
		if out != want {
			t.Errorf("got\n%s\nwant\n%s", out, want)
		}
		// The largest package of the shared catalog, past Mermaid's
		// default 30,000 characters, whole.
		out, errOut, code = runCommand(dotCommand(), "--source", trees["shared"], "--catalog", "community", "--package", "opendatahub-operator", "--format", "mermaid")
		if code != 0 || len(out) <= 30000 || !strings.HasSuffix(out, "    end\n  end\n") {
			t.Errorf("exit %d, %d bytes, %s", code, len(out), errOut)
		}
		one, _, _ := runCommand(dotCommand(), "--source", trees["shared"], "--catalog", "community", "--package", "opendatahub-operator", "--channel", "fast", "--format", "mermaid")
		if strings.Count(one, "    subgraph ") != 1 || !strings.Contains(one, `subgraph opendatahub-operator-fast["fast"]`) {
			t.Errorf("--channel fast:\n%.2000s", one)
		}
	})

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--package", "a"}, "--package needs --catalog"},
		{[]string{"--format", "mermaid"}, "--format mermaid needs --catalog"},
		{[]string{"--catalog", "", "--package", "a"}, "--catalog: empty value"},
		{[]string{"--catalog", "community"}, "--package is required"},
		{[]string{"--catalog", "Community", "--package", "a"}, "DNS-1123"},
		{[]string{"--catalog", "nope", "--package", "a"}, `has no catalog "nope" (it has [community])`},
		{[]string{"--catalog", "community", "--package", "z"}, `has no package "z"`},
		{[]string{"--catalog", "community", "--package", "a", "--channel", "fast"}, `has no channel "fast" (it has [stable])`},
		{[]string{"--catalog", "community", "--package", "a", "--format", "svg"}, `--format "svg": want dot or mermaid`},
		{[]string{"--catalog", "community", "--package", "a", "--arch", "arm64"}, "not with --catalog"},
	} {
		_, errOut, code := runCommand(dotCommand(), append([]string{"--source", trees["small"]}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: exit status %d, stderr %q; want an error with %q", tc.args, code, errOut, tc.err)
		}
	}
}

// TestDiffCatalogCommand: exit statuses and the three formats on trees
// with catalogs (tools/diff's TestDiffCatalogs checks the details on
// the shared catalog).
func TestDiffCatalogCommand(t *testing.T) {
	trees := catalogTrees(t)
	for _, tc := range []struct {
		old, new string
		code     int
		has      []string
	}{
		{"small", "small", 0, nil},
		{"shared", "shared", 0, nil},
		{"small", "small2", 1, []string{
			"@@ catalog community package b channel stable @@\n~ head b.v1.2.0 → b.v1.1.0\n- bundle b.v1.2.0 (1.2.0)\n" +
				"- edge b.v1.0.0 → b.v1.2.0 [skipRange \">=1.0.0 <1.2.0\"]\n- edge b.v1.1.0 → b.v1.2.0 [replaces]\n" +
				"- edge b.v1.1.0 → b.v1.2.0 [skipRange \">=1.0.0 <1.2.0\"]\n+ deprecated bundle b.v1.0.0: \"b 1.0.0 is broken\"\n"}},
		{"small", "other", 1, []string{"@@ catalog community (removed) @@\n- package a\n- package b\n@@ catalog other (added) @@\n+ package a\n+ package b\n"}},
	} {
		for _, format := range []string{"text", "markdown", "json"} {
			out, code, err := runDiffApp("--format", format, filepath.Join(trees[tc.old]), trees[tc.new])
			if code != tc.code {
				t.Errorf("%s %s %s: exit %d (%v), want %d\n%s", format, tc.old, tc.new, code, err, tc.code, out)
			}
			if format == "text" {
				for _, s := range tc.has {
					if !strings.Contains(out, s) {
						t.Errorf("%s → %s lacks\n%s\nin\n%s", tc.old, tc.new, s, out)
					}
				}
			}
		}
	}
}
