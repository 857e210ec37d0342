package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// dotBinary is Graphviz's dot (Debian package graphviz, installed by
// .ci/deps); outside CI a machine without it skips the rendering checks.
func dotBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Graphviz dot is not installed: %v", err)
		}
		t.Skip("Graphviz dot is not installed (apt-get install graphviz)")
	}
	return p
}

func TestDotCommand(t *testing.T) {
	dir := demoTree(t)
	// fast-4.16 of the demo: 13 edges, the conditional 4.16.0 → 4.16.2
	// (ExampleEtcdRisk) and the blocked 4.15.0 → 4.16.1.
	for _, tc := range []struct {
		name  string
		args  []string
		edges int
		has   []string
		lacks []string
	}{
		{"plain", nil, 14,
			[]string{`"4.16.0" -> "4.16.2" [style=dashed, color=darkorange, fontcolor=darkorange, label="ExampleEtcdRisk", tooltip="ExampleEtcdRisk: Clusters with`, `"4.15.1" -> "4.16.1";`},
			[]string{"dotted", `"4.15.0" -> "4.16.1"`}},
		{"blocked", []string{"--blocked"}, 15,
			[]string{`"4.15.0" -> "4.16.1" [style=dotted, color=grey, constraint=false, tooltip="removed by previous.remove_regex"];`},
			[]string{`"4.16.0" -> "4.16.2" [style=dotted`}},
		// The documented default, given: the same graph.
		{"format dot", []string{"--format", "dot"}, 14, []string{`"4.15.1" -> "4.16.1";`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--source", dir, "--channel", "fast-4.16"}, tc.args...)
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
			if again, _, _ := runCommand(dotCommand(), args...); again != out {
				t.Error("output differs between two runs")
			}
			cmd := exec.Command(dotBinary(t), "-Tsvg")
			cmd.Stdin = strings.NewReader(out)
			var svg, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &svg, &stderr
			if err := cmd.Run(); err != nil || stderr.Len() > 0 {
				t.Fatalf("dot -Tsvg: %v: %s\ninput:\n%s", err, stderr.String(), out)
			}
			if n := strings.Count(svg.String(), `class="edge"`); n != tc.edges {
				t.Errorf("the SVG has %d edges, want %d", n, tc.edges)
			}
			if n := strings.Count(svg.String(), `class="node"`); n != 6 {
				t.Errorf("the SVG has %d nodes, want 6", n)
			}
		})
	}

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "--channel is required"},
		{[]string{"--channel", "stable-4.99"}, `has no channel "stable-4.99"`},
		{[]string{"--channel", "fast-4.16", "--arch", "x86_64"}, `--arch "x86_64" does not match`},
		{[]string{"--channel", "fast-4.16", "extra"}, "no arguments"},
	} {
		_, errOut, code := runCommand(dotCommand(), append([]string{"--source", dir}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: exit status %d, stderr %q; want an error with %q", tc.args, code, errOut, tc.err)
		}
	}
}
