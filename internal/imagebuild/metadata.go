package imagebuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Metadata is what the image says about its source. It feeds the OCI
// labels and annotations, the version compiled into the binary, the tar
// headers' mtime and the config's created time, so two builds with equal
// Metadata from the same tree are byte-identical.
type Metadata struct {
	// Created is the commit time: every file's mtime and the config's
	// created, in whole seconds, UTC.
	Created time.Time
	// Revision is the commit, with "-dirty" when the tree had changes.
	Revision string
	// Version is compiled in as main.version and tags the layout.
	Version string
	// Source is the repository's URL (org.opencontainers.image.source).
	Source string
}

// DefaultSource is the repository the module path names.
const DefaultSource = "https://github.com/upgraph/upgraph"

// ResolveMetadata fills what override leaves empty from the git checkout
// at dir: Created from SOURCE_DATE_EPOCH when set (the reproducible-builds
// convention), else `git log -1 --format=%ct`; Revision from
// `git rev-parse HEAD` plus "-dirty" when `git status --porcelain` lists
// anything; Version from `git describe --tags --always`, or "dev" outside
// git; Source from DefaultSource. Without git, Created and Revision must
// be given: an image claiming an unknown commit would not be reproducible.
func ResolveMetadata(ctx context.Context, dir string, override Metadata) (Metadata, error) {
	m := override
	if m.Created.IsZero() {
		if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
			t, err := parseEpoch(s)
			if err != nil {
				return m, fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
			}
			m.Created = t
		} else {
			out, err := git(ctx, dir, "log", "-1", "--format=%ct")
			if err != nil {
				return m, fmt.Errorf("commit time (set SOURCE_DATE_EPOCH outside git): %w", err)
			}
			if m.Created, err = parseEpoch(out); err != nil {
				return m, fmt.Errorf("commit time from git log: %w", err)
			}
		}
	}
	m.Created = m.Created.UTC().Truncate(time.Second)
	if m.Revision == "" {
		rev, err := git(ctx, dir, "rev-parse", "HEAD")
		if err != nil {
			return m, fmt.Errorf("revision (pass one outside git): %w", err)
		}
		status, err := git(ctx, dir, "status", "--porcelain")
		if err != nil {
			return m, fmt.Errorf("revision: checking for local changes: %w", err)
		}
		if status != "" {
			rev += "-dirty"
		}
		m.Revision = rev
	}
	if m.Version == "" {
		v, err := git(ctx, dir, "describe", "--tags", "--always")
		if err != nil || v == "" {
			v = "dev"
		}
		m.Version = v
	}
	if m.Source == "" {
		m.Source = DefaultSource
	}
	return m, nil
}

// parseEpoch parses Unix seconds, as git's %ct and SOURCE_DATE_EPOCH give.
func parseEpoch(s string) (time.Time, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("not Unix seconds: %q", s)
	}
	return Unix(n), nil
}

// git runs a git command in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Unix is the UTC time of Unix seconds, as Metadata.Created wants it.
func Unix(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
