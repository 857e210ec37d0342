package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestPlanReversed: a plan from a newer release to an older one (issue 24
// item 6) has no path, and says so (exit 1, a downgrade), rather than
// failing on an operator the newer minor's catalog lacks; that one is
// noted.
func TestPlanReversed(t *testing.T) {
	tree := planTree(t)
	for _, format := range []string{"text", "json"} {
		out, errOut, code := runCommand(planCommand(), "--source", tree, "--format", format, "--channel", "candidate-5.0", "--from", "5.0.1", "--to", "4.22.0",
			"--operators", "testdata/plan/operators-major.yaml", "--catalogs", planCatalogsFlag(false, "4.22", "5.0"))
		if code != 1 || errOut != "" || !strings.Contains(out, "no update path from 5.0.1 to 4.22.0") || !strings.Contains(out, "never downgraded") ||
			!strings.Contains(out, "not checked further: there is no update path") {
			t.Errorf("%s: exit %d, want 1 and no update path (a downgrade), the operator noted; stdout:\n%s\nstderr:\n%s", format, code, out, errOut)
		}
	}
}

// catalogsOnlyTree renders a tree of the plan fixture's v4.22 catalog
// and no releases.
func catalogsOnlyTree(t *testing.T) string {
	t.Helper()
	cat := viewstest.Load(t, treeCatalogName("4.22"), "dir:"+filepath.Join(planFixtures, "catalogs", "v4.22"), false)
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(t.Context(), nil, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), Catalogs: []*catviews.Catalog{cat}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCatalogsOnlyTree: path and plan on a tree of catalogs alone say the
// tree has no release channels at all, not that it lacks the one asked
// for "(it has )" (issue 24 item 6).
func TestCatalogsOnlyTree(t *testing.T) {
	tree := catalogsOnlyTree(t)
	for name, run := range map[string]func() (string, string, int){
		"path": func() (string, string, int) {
			return runCommand(pathCommand(), "--source", tree, "--channel", "stable-4.22", "--from", "4.22.0", "--to", "4.22.1")
		},
		"plan": func() (string, string, int) {
			return runCommand(planCommand(), "--source", tree, "--channel", "stable-4.22", "--from", "4.22.0", "--to", "4.22.1",
				"--operators", "testdata/plan/operators-major.yaml", "--catalogs", "v4.22="+treeCatalogName("4.22"))
		},
	} {
		out, errOut, code := run()
		if code != 2 || !strings.Contains(errOut, "has no release channels") || strings.Contains(errOut, "(it has )") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and \"has no release channels\" (stdout %q)", name, code, errOut, out)
		}
	}
}
