package imagebuild

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// BinaryFunc returns the path of the upgraph binary for platform p. dir is
// an empty scratch directory of its own that Build removes once the layer
// is made, for functions that compile; the file must stay readable until
// the function's BinaryFunc call has returned and Build has read it.
type BinaryFunc func(ctx context.Context, p v1.Platform, dir string) (string, error)

// Prebuilt serves binaries built beforehand, keyed by platform
// ("linux/amd64"), as tests that build once and image many times need.
func Prebuilt(paths map[string]string) BinaryFunc {
	return func(_ context.Context, p v1.Platform, _ string) (string, error) {
		path, ok := paths[p.String()]
		if !ok {
			return "", fmt.Errorf("no prebuilt binary for %s", p.String())
		}
		return path, nil
	}
}

// GoBuild cross-compiles a main package with the go command, the way the
// image needs it: static (CGO_ENABLED=0), without paths, VCS stamps or
// build IDs that would make two builds of one tree differ, and with the
// version compiled in as main.version.
type GoBuild struct {
	// Dir is the module directory the go command runs in.
	Dir string
	// Package is the main package, "./cmd/upgraph" when empty.
	Package string
	// Version is set as main.version.
	Version string
	// Go is the go command, "go" when empty.
	Go string
	// Logger reports each build's time; slog.Default() when nil.
	Logger *slog.Logger
}

// Binary is a BinaryFunc; it writes the binary into dir.
func (g GoBuild) Binary(ctx context.Context, p v1.Platform, dir string) (string, error) {
	if p.OS != "linux" {
		return "", fmt.Errorf("go build for %s: only linux images are built", p.String())
	}
	// -X takes the rest of its word; a space would end the -ldflags word
	// and quotes would need the go command's own quoting rules.
	if g.Version == "" || strings.ContainsAny(g.Version, " \t\n'\"") {
		return "", fmt.Errorf("go build for %s: version %q is empty or has spaces or quotes", p.String(), g.Version)
	}
	pkg := cmp.Or(g.Package, "./cmd/upgraph")
	out := filepath.Join(dir, "upgraph")
	args := []string{"build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X main.version=" + g.Version,
		"-o", out, pkg}
	cmd := exec.CommandContext(ctx, cmp.Or(g.Go, "go"), args...)
	cmd.Dir = g.Dir
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture,
		// The caller's GOFLAGS (-race, -tags, -cover…) would change what
		// is built; the flags above are all the build gets.
		"GOFLAGS=")
	if v, ok := goarchVariant[p.Architecture]; ok {
		cmd.Env = append(cmd.Env, v)
	}
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s for %s: %w\n%s", pkg, p.String(), err, strings.TrimSpace(stderr.String()))
	}
	logger(g.Logger).Info("compiled", "platform", p.String(), "package", pkg, "took", time.Since(start).Round(time.Millisecond))
	return out, nil
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}
