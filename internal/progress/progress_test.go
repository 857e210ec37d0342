package progress

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDrawBar(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		want        string
	}{
		{0, 10, "\r[                              ] 0/10 tags"},
		{5, 10, "\r[###############               ] 5/10 tags"},
		{10, 10, "\r[##############################] 10/10 tags\n"},
		{0, 0, "\r[                              ] 0/0 tags\n"},
	} {
		var b bytes.Buffer
		drawBar(&b, tc.done, tc.total, "tags")
		if b.String() != tc.want {
			t.Errorf("%d/%d: %q, want %q", tc.done, tc.total, b.String(), tc.want)
		}
	}
}

// Off a terminal, the first and the last call are logged, not drawn.
func TestReporterLogsOffTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var logs bytes.Buffer
	report := Reporter(f, slog.New(slog.NewTextHandler(&logs, nil)), "scrape", "tags")
	for i := 1; i <= 100; i++ {
		report(i, 100)
	}
	if n := strings.Count(logs.String(), "scrape progress"); n != 2 {
		t.Errorf("%d log lines, want the first and the last:\n%s", n, logs.String())
	}
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Error("a bar was drawn into a file")
	}
}
