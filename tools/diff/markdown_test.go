package diff

import (
	"strings"
	"testing"
)

// TestDiffMarkdownLimit: past MaxBytes the details give way to a note,
// and the table stays whole.
func TestDiffMarkdownLimit(t *testing.T) {
	rel, gd := demoInputs(t)
	old := buildTree(t, rel, gd)
	delete(gd, "channels/stable-4.16.yaml")
	r := compare(t, open(t, old), open(t, buildTree(t, rel, gd)), Options{})
	full := render(t, r, Markdown)
	table := full[:strings.Index(full, "\n<details>")]
	for _, tc := range []struct {
		max     int
		details int
		note    string
		fits    bool // no bigger than max (the table alone may not be)
	}{
		{0, 12, "", false},
		{len(full), 12, "", true},
		{len(table) + 1, 0, "Details of 12 more graphs left out", false},
		{len(full) - 1, 11, "Details of 1 more graph left out", true},
	} {
		var b strings.Builder
		if err := r.Write(&b, Markdown, WriteOptions{MaxBytes: tc.max}); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		if !strings.HasPrefix(got, table) {
			t.Errorf("max %d: the table is not whole:\n%s", tc.max, got)
		}
		if n := strings.Count(got, "<details>"); n != tc.details {
			t.Errorf("max %d: %d details, want %d", tc.max, n, tc.details)
		}
		if !strings.Contains(got, tc.note) {
			t.Errorf("max %d: no note %q:\n%s", tc.max, tc.note, got[len(table):])
		}
		if tc.fits && len(got) > tc.max {
			t.Errorf("max %d: %d bytes", tc.max, len(got))
		}
	}
}
