package sign

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/trustedmetadata"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Threat names what a refusal stops (TUF spec §1.5.2), for messages and
// for the reason label of upgraph_generations_refused_total.
type Threat string

const (
	// Tamper: a file differs from what targets signs (arbitrary
	// installation).
	Tamper Threat = "tamper"
	// MixAndMatch: metadata or index.json of different generations
	// (mix-and-match; snapshot and timestamp pin the versions and
	// hashes of what they list).
	MixAndMatch Threat = "mix-and-match"
	// Rollback: an older generation than the verifier last accepted.
	Rollback Threat = "rollback"
	// Freeze: expired metadata (indefinite freeze).
	Freeze Threat = "freeze"
	// WrongKey: metadata not signed by the threshold of the keys the
	// trusted root lists for its role.
	WrongKey Threat = "wrong-key"
	// RootRotation: a root not signed by the threshold of the root
	// before it, or more root versions than a client reads.
	RootRotation Threat = "root-rotation"
	// Unsigned: the tree has no (complete) TUF metadata.
	Unsigned Threat = "unsigned"
)

// Refusal is Verify's error: the threat, the file and what was wrong.
type Refusal struct {
	Threat Threat
	// Tree is the tree's location, File the file refused, Section the
	// TUF specification section of the check.
	Tree, File, Section string
	Err                 error
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s: %s refused (%s, TUF §%s): %v", r.Tree, r.File, r.Threat, r.Section, r.Err)
}

func (r *Refusal) Unwrap() error { return r.Err }

// ThreatOf returns the threat of a Verify refusal, "" for another error.
func ThreatOf(err error) Threat {
	var r *Refusal
	if errors.As(err, &r) {
		return r.Threat
	}
	return ""
}

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Trusted is the trusted root's bytes (verify --trust ROOT.json).
	Trusted []byte
	// Last are the versions the verifier accepted last (its state file):
	// an older one is a rollback. Zero: none.
	Last Versions
	// Now is the time expiry is checked against (zero: time.Now()).
	Now time.Time
	// Files, when set, checks every file of the tree's index.json with
	// t.ReadFile (against index.json, which is checked against targets);
	// Verify otherwise checks the metadata and index.json, for callers
	// that check the files themselves.
	Files bool
	// MaxRootRotations bounds the root versions read after the trusted
	// one (0: DefaultMaxRootRotations).
	MaxRootRotations int64
}

// DefaultMaxRootRotations is the most root versions Verify reads after
// the trusted root (TUF §5.3.3 leaves the bound to the client), as
// go-tuf's updater (theupdateframework/go-tuf v2.4.2,
// metadata/config/config.go, MaxRootRotations): a tree with one more
// root after every root would otherwise be read without end. Keys are
// rotated yearly at most, so a trusted root this far behind is replaced.
const DefaultMaxRootRotations = 256

// Verify runs TUF's client workflow (spec §5) over the tree t: the root
// chain tuf/N.root.json from the trusted root (§5.3), timestamp.json
// (§5.4), the snapshot (§5.5) and targets (§5.6) it leads to, each with
// its signature threshold, version and expiry checks (go-tuf's
// trustedmetadata), versions no older than opts.Last, then index.json
// against targets and targets against index.json: the same files with
// the same sizes and sha256, so that every file index.json vouches for
// is one targets signs. It returns the versions accepted, for the state
// file. Every refusal is a *Refusal.
func Verify(ctx context.Context, t tree.Tree, opts VerifyOptions) (Versions, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	refuse := func(threat Threat, file, section string, err error) error {
		if threat == Freeze {
			err = fmt.Errorf("%w (checked at %s)", err, now.UTC().Format(time.RFC3339))
		}
		return &Refusal{Threat: threat, Tree: t.String(), File: file, Section: section, Err: err}
	}
	// read reads a metadata file; a missing timestamp is an unsigned
	// tree, a missing snapshot or targets the timestamp of another
	// generation than the rest of tuf/.
	read := func(name string) ([]byte, error) {
		b, err := t.ReadMetadata(ctx, name)
		switch {
		case err == nil:
			return b, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		case name == TimestampFile:
			return nil, refuse(Unsigned, Path(name), "5.4", fmt.Errorf("missing: the tree is not signed, or was copied without its %s/: %w", manifest.MetadataDir, err))
		}
		return nil, refuse(MixAndMatch, Path(name), "5.5", fmt.Errorf("missing, and the metadata before names it: metadata of different generations: %w", err))
	}
	tm, err := trustedmetadata.New(opts.Trusted)
	if err != nil {
		return Versions{}, fmt.Errorf("trusted root: %w", err)
	}
	tm.RefTime = now.UTC() // §5.1: one fixed start time for every check
	// §5.3: each next root, signed by the threshold of the one before
	// and of itself; §5.3.3: at most MaxRootRotations of them.
	maxRotations := opts.MaxRootRotations
	if maxRotations <= 0 {
		maxRotations = DefaultMaxRootRotations
	}
	trustedVersion := tm.Root.Signed.Version
	for {
		next := tm.Root.Signed.Version + 1
		data, err := t.ReadMetadata(ctx, RootName(next))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return Versions{}, err
		}
		if next-trustedVersion > maxRotations {
			return Versions{}, refuse(RootRotation, Path(RootName(next)), "5.3.3", fmt.Errorf("more than %d root versions after the trusted root's version %d: verify with a newer trusted root", maxRotations, trustedVersion))
		}
		if _, err := tm.UpdateRoot(data); err != nil {
			return Versions{}, refuse(threatOf(err, RootRotation), Path(RootName(next)), "5.3.4", err)
		}
	}
	v := Versions{Root: tm.Root.Signed.Version}
	if v.Root < opts.Last.Root {
		return Versions{}, refuse(Rollback, Path(RootName(v.Root)), "5.3.5", fmt.Errorf("root version %d is older than version %d, seen last", v.Root, opts.Last.Root))
	}
	tsData, err := read(TimestampFile)
	if err != nil {
		return Versions{}, err
	}
	ts, err := tm.UpdateTimestamp(tsData)
	if err != nil {
		return Versions{}, refuse(threatOf(err, WrongKey), Path(TimestampFile), "5.4", err)
	}
	v.Timestamp = ts.Signed.Version
	snapMeta := ts.Signed.Meta[metadata.SNAPSHOT+".json"]
	v.Snapshot = snapMeta.Version
	switch {
	case v.Timestamp < opts.Last.Timestamp:
		return Versions{}, refuse(Rollback, Path(TimestampFile), "5.4.3", fmt.Errorf("timestamp version %d is older than version %d, seen last", v.Timestamp, opts.Last.Timestamp))
	case v.Snapshot < opts.Last.Snapshot:
		return Versions{}, refuse(Rollback, Path(TimestampFile), "5.4.3", fmt.Errorf("snapshot version %d is older than version %d, seen last", v.Snapshot, opts.Last.Snapshot))
	}
	snapName := versioned(v.Snapshot, metadata.SNAPSHOT)
	snapData, err := read(snapName)
	if err != nil {
		return Versions{}, err
	}
	snap, err := tm.UpdateSnapshot(snapData, false)
	if err != nil {
		return Versions{}, refuse(threatOf(err, WrongKey), Path(snapName), "5.5", err)
	}
	v.Targets = snap.Signed.Meta[metadata.TARGETS+".json"].Version
	if v.Targets < opts.Last.Targets {
		return Versions{}, refuse(Rollback, Path(snapName), "5.5.5", fmt.Errorf("targets version %d is older than version %d, seen last", v.Targets, opts.Last.Targets))
	}
	targetsName := versioned(v.Targets, metadata.TARGETS)
	targetsData, err := read(targetsName)
	if err != nil {
		return Versions{}, err
	}
	targets, err := tm.UpdateTargets(targetsData)
	if err != nil {
		return Versions{}, refuse(threatOf(err, WrongKey), Path(targetsName), "5.6", err)
	}
	// §5.7: the files. index.json first: it vouches for the rest.
	signed := targets.Signed.Targets
	index, ok := signed[manifest.FileName]
	if !ok {
		return Versions{}, refuse(Tamper, manifest.FileName, "5.7", fmt.Errorf("%s does not list it", Path(targetsName)))
	}
	if err := index.VerifyLengthHashes(t.Index()); err != nil {
		return Versions{}, refuse(MixAndMatch, manifest.FileName, "5.7.3", fmt.Errorf("not the one %s signs (%s: index.json of another generation, or a forged one): %w", Path(targetsName), versionsOf(v), err))
	}
	m := t.Manifest()
	for _, name := range slices.Sorted(maps.Keys(m.Files)) {
		f := m.Files[name]
		tf, ok := signed[name]
		if name == manifest.FileName {
			continue
		}
		sum, _ := hex.DecodeString(f.SHA256)
		if !ok || tf.Length != f.Size || !tf.Hashes.Equal(metadata.Hashes{"sha256": sum}) {
			return Versions{}, refuse(Tamper, name, "5.7.3", fmt.Errorf("index.json lists it with a size or sha256 that %s does not", Path(targetsName)))
		}
	}
	for name := range signed {
		if _, ok := m.Files[name]; !ok && name != manifest.FileName {
			return Versions{}, refuse(Tamper, name, "5.7", fmt.Errorf("%s lists it and index.json does not", Path(targetsName)))
		}
	}
	if opts.Files {
		if err := readAll(ctx, t, m, refuse); err != nil {
			return Versions{}, err
		}
	}
	return v, nil
}

// readAll reads every file of m through t, which checks each against
// index.json, 8 at a time; the first bad file is refused as tampered.
func readAll(ctx context.Context, t tree.Tree, m *manifest.Manifest, refuse func(Threat, string, string, error) error) error {
	names := slices.Sorted(maps.Keys(m.Files))
	var mu sync.Mutex
	var bad []string
	var first error
	err := parallel.Run(ctx, 8, len(names), func(ctx context.Context, _, i int) error {
		if names[i] == manifest.FileName {
			return nil
		}
		if _, err := t.ReadFile(ctx, names[i]); err != nil {
			mu.Lock()
			defer mu.Unlock()
			bad = append(bad, names[i])
			if first == nil {
				first = err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return refuse(Tamper, bad[0], "5.7.3", fmt.Errorf("%d file(s) do not match targets (a changed file, or one of another generation): %w", len(bad), first))
	}
	return nil
}

// threatOf classifies an error of trustedmetadata: expired metadata is a
// freeze, a bad version a rollback, a length or hash mismatch a mix of
// generations, a missing signature threshold def (a wrong key, or a root
// rotated without the old threshold).
func threatOf(err error, def Threat) Threat {
	var (
		expired  *metadata.ErrExpiredMetadata
		version  *metadata.ErrBadVersionNumber
		equal    *metadata.ErrEqualVersionNumber
		mismatch *metadata.ErrLengthOrHashMismatch
	)
	switch {
	case errors.As(err, &expired):
		return Freeze
	case errors.As(err, &version), errors.As(err, &equal):
		if def == RootRotation {
			return RootRotation
		}
		return MixAndMatch
	case errors.As(err, &mismatch):
		return MixAndMatch
	}
	return def
}

func versionsOf(v Versions) string {
	return fmt.Sprintf("timestamp %d, snapshot %d, targets %d", v.Timestamp, v.Snapshot, v.Targets)
}

// ReadState reads a state file verify --state keeps: zero versions when
// it does not exist yet.
func ReadState(p string) (Versions, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Versions{}, nil
	}
	if err != nil {
		return Versions{}, err
	}
	var v Versions
	if err := json.Unmarshal(data, &v); err != nil {
		return Versions{}, fmt.Errorf("%s: %w", p, err)
	}
	return v, nil
}

// WriteState replaces the state file p with v, by rename, never lowering
// a version it holds.
func WriteState(p string, v Versions) error {
	old, err := ReadState(p)
	if err != nil {
		return err
	}
	v.Root, v.Targets = max(v.Root, old.Root), max(v.Targets, old.Targets)
	v.Snapshot, v.Timestamp = max(v.Snapshot, old.Snapshot), max(v.Timestamp, old.Timestamp)
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeReplace(p, append(data, '\n'), 0o644)
}

// Check is what an importer requires of a tree: verify --trust ROOT.json
// [--state FILE].
type Check struct {
	// TrustFile is the trusted root; StateFile, when set, the versions
	// accepted last, raised on every acceptance.
	TrustFile, StateFile string
	Now                  time.Time
}

// Verify verifies t as Verify does with the trusted root and state of c,
// and raises the state file's versions to t's when it is accepted.
func (c Check) Verify(ctx context.Context, t tree.Tree, files bool) (Versions, error) {
	trusted, err := os.ReadFile(c.TrustFile)
	if err != nil {
		return Versions{}, fmt.Errorf("--trust: %w", err)
	}
	var last Versions
	if c.StateFile != "" {
		if last, err = ReadState(c.StateFile); err != nil {
			return Versions{}, fmt.Errorf("--state: %w", err)
		}
	}
	v, err := Verify(ctx, t, VerifyOptions{Trusted: trusted, Last: last, Now: c.Now, Files: files})
	if err != nil {
		return Versions{}, err
	}
	if c.StateFile != "" {
		if err := WriteState(c.StateFile, v); err != nil {
			return Versions{}, fmt.Errorf("--state: %w", err)
		}
	}
	return v, nil
}

// VerifyLocation opens the tree at location and verifies it, every file
// too when files is set.
func (c Check) VerifyLocation(ctx context.Context, location string, opts tree.Options, files bool) (Versions, error) {
	t, err := tree.Open(ctx, location, opts)
	if err != nil {
		return Versions{}, err
	}
	defer t.Close()
	return c.Verify(ctx, t, files)
}
