package imagebuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResolveMetadata: in a git checkout, the created time is the commit
// time (or SOURCE_DATE_EPOCH), the revision is HEAD, "-dirty" with local
// changes, the version is git describe's; what the caller passes wins;
// outside git, only the version has a fallback.
func TestResolveMetadata(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	t.Setenv("SOURCE_DATE_EPOCH", "")
	os.Unsetenv("SOURCE_DATE_EPOCH")
	if _, err := ResolveMetadata(ctx, dir, Metadata{}); err == nil {
		t.Error("outside git, no error without a created time")
	}
	m, err := ResolveMetadata(ctx, dir, Metadata{Created: Unix(5), Revision: "abc"})
	if err != nil || m.Version != "dev" || m.Source != DefaultSource {
		t.Errorf("outside git: %+v, %v", m, err)
	}

	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=@1700000000 +0000", "GIT_AUTHOR_DATE=@1600000000 +0000")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f")
	git("commit", "-q", "-m", "c")
	head := git("rev-parse", "HEAD")

	m, err = ResolveMetadata(ctx, dir, Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Created.Equal(time.Unix(1700000000, 0)) || m.Created.Location() != time.UTC || m.Revision != head || m.Version != head[:len(m.Version)] {
		t.Errorf("clean checkout: %+v (HEAD %s)", m, head)
	}

	git("tag", "v1.2.3")
	if err := os.WriteFile(filepath.Join(dir, "g"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1650000000")
	m, err = ResolveMetadata(ctx, dir, Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Created.Equal(time.Unix(1650000000, 0)) || m.Revision != head+"-dirty" || m.Version != "v1.2.3" {
		t.Errorf("tagged, dirty, SOURCE_DATE_EPOCH: %+v", m)
	}

	override := Metadata{Created: Unix(42), Revision: "r", Version: "v9", Source: "https://example.com/fork"}
	if m, err = ResolveMetadata(ctx, dir, override); err != nil || m != override {
		t.Errorf("overrides: %+v, %v", m, err)
	}

	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if _, err := ResolveMetadata(ctx, dir, Metadata{}); err == nil || !strings.Contains(err.Error(), "SOURCE_DATE_EPOCH") {
		t.Errorf("a bad SOURCE_DATE_EPOCH: %v", err)
	}
}
