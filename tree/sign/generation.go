package sign

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"

	"github.com/upgraph/upgraph/tree/manifest"
)

// Default expiries of a generation's metadata. The timestamp is the
// freshness a scheduler renews (upgraph sign --timestamp, online key);
// targets and snapshot, signed with each generation, last longer so that
// renewing the timestamp alone keeps a generation valid that long.
const (
	DefaultTimestampExpiry = 24 * time.Hour
	DefaultTargetsExpiry   = 30 * 24 * time.Hour
)

// Versions are the versions of a generation's metadata: what the next
// generation must exceed, and what a verifier's state file remembers.
type Versions struct {
	Root      int64 `json:"root"`
	Targets   int64 `json:"targets"`
	Snapshot  int64 `json:"snapshot"`
	Timestamp int64 `json:"timestamp"`
}

// GenerationOptions configure Keys.Generation.
type GenerationOptions struct {
	// At is the generation's time (generate's: SOURCE_DATE_EPOCH or
	// now); each role expires its expiry later.
	At              time.Time
	TimestampExpiry time.Duration
	TargetsExpiry   time.Duration
	// Previous are the versions of the generation replaced (zero for
	// none): each role's version is one more.
	Previous Versions
}

// Path is the tree path of metadata file name.
func Path(name string) string { return manifest.MetadataDir + "/" + name }

// Generation signs the generation whose index.json is index (m parsed):
// it returns the files of tuf/, by tree path: the root chain of kd,
// N.targets.json listing index.json and every file m lists with its size
// and sha256, N.snapshot.json and timestamp.json. It needs kd's targets,
// snapshot and timestamp keys. The same keys, index and options give the
// same bytes (with ed25519 keys).
func (kd *Keys) Generation(index []byte, m *manifest.Manifest, opts GenerationOptions) (map[string][]byte, error) {
	targets := metadata.Targets(expiry(opts.At, opts.TargetsExpiry, DefaultTargetsExpiry))
	targets.Signed.Version = opts.Previous.Targets + 1
	targets.Signed.Targets[manifest.FileName] = targetFile(int64(len(index)), manifest.SHA256(index))
	for name, f := range m.Files {
		if name == manifest.FileName {
			continue
		}
		targets.Signed.Targets[name] = targetFile(f.Size, f.SHA256)
	}
	out := map[string][]byte{}
	for i, b := range kd.Chain {
		out[Path(RootName(int64(i+1)))] = b
	}
	targetsData, err := kd.signed(targets, metadata.TARGETS)
	if err != nil {
		return nil, err
	}
	out[Path(versioned(targets.Signed.Version, metadata.TARGETS))] = targetsData

	snapshot := metadata.Snapshot(expiry(opts.At, opts.TargetsExpiry, DefaultTargetsExpiry))
	snapshot.Signed.Version = opts.Previous.Snapshot + 1
	snapshot.Signed.Meta[metadata.TARGETS+".json"] = metaFile(targets.Signed.Version, targetsData)
	snapshotData, err := kd.signed(snapshot, metadata.SNAPSHOT)
	if err != nil {
		return nil, err
	}
	out[Path(versioned(snapshot.Signed.Version, metadata.SNAPSHOT))] = snapshotData

	ts := metadata.Timestamp(expiry(opts.At, opts.TimestampExpiry, DefaultTimestampExpiry))
	ts.Signed.Version = opts.Previous.Timestamp + 1
	ts.Signed.Meta[metadata.SNAPSHOT+".json"] = metaFile(snapshot.Signed.Version, snapshotData)
	tsData, err := kd.signed(ts, metadata.TIMESTAMP)
	if err != nil {
		return nil, err
	}
	out[Path(TimestampFile)] = tsData
	return out, nil
}

// TimestampFile is the one unversioned metadata file (spec §6.2): what
// a client reads first.
const TimestampFile = metadata.TIMESTAMP + ".json"

// Timestamp re-signs the timestamp of the signed tree in directory dir
// alone, with kd's timestamp key: version one more, expiring expiry after
// at, the same snapshot. It replaces dir/tuf/timestamp.json by rename, so
// a reader sees the old timestamp or the new one. It returns the new
// versions.
func (kd *Keys) Timestamp(dir string, at time.Time, exp time.Duration) (Versions, error) {
	p := filepath.Join(dir, manifest.MetadataDir, TimestampFile)
	data, err := os.ReadFile(p)
	if err != nil {
		return Versions{}, fmt.Errorf("%w (is %s a tree signed with generate --sign?)", err, dir)
	}
	ts, err := metadata.Timestamp().FromBytes(data)
	if err != nil {
		return Versions{}, fmt.Errorf("%s: %w", p, err)
	}
	if err := kd.Root.VerifyDelegate(metadata.TIMESTAMP, ts); err != nil {
		return Versions{}, fmt.Errorf("%s is not signed by the timestamp keys of %s: a tree of another key directory? %w", p, filepath.Join(kd.Dir, RootFile), err)
	}
	ts.ClearSignatures()
	ts.Signed.Version++
	ts.Signed.Expires = expiry(at, exp, DefaultTimestampExpiry)
	out, err := kd.signed(ts, metadata.TIMESTAMP)
	if err != nil {
		return Versions{}, err
	}
	if err := writeReplace(p, out, 0o644); err != nil {
		return Versions{}, err
	}
	v, err := Previous(dir)
	return v, err
}

// Previous reads the versions of the signed generation in directory dir:
// zero when dir has no tuf/timestamp.json (a first generation, or an
// unsigned one) or is "".
func Previous(dir string) (Versions, error) {
	if dir == "" {
		return Versions{}, nil // no previous generation: a bundle's scratch tree
	}
	tsPath := filepath.Join(dir, manifest.MetadataDir, TimestampFile)
	data, err := os.ReadFile(tsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return Versions{}, nil
	}
	if err != nil {
		return Versions{}, err
	}
	ts, err := metadata.Timestamp().FromBytes(data)
	if err != nil {
		return Versions{}, fmt.Errorf("%s: %w (remove %s to start the versions again at 1)", tsPath, err, filepath.Join(dir, manifest.MetadataDir))
	}
	v := Versions{Timestamp: ts.Signed.Version}
	sm, ok := ts.Signed.Meta[metadata.SNAPSHOT+".json"]
	if !ok {
		return Versions{}, fmt.Errorf("%s lists no snapshot.json", tsPath)
	}
	v.Snapshot = sm.Version
	snapPath := filepath.Join(dir, manifest.MetadataDir, versioned(sm.Version, metadata.SNAPSHOT))
	if data, err = os.ReadFile(snapPath); err != nil {
		return Versions{}, err
	}
	snap, err := metadata.Snapshot().FromBytes(data)
	if err != nil {
		return Versions{}, fmt.Errorf("%s: %w", snapPath, err)
	}
	tm, ok := snap.Signed.Meta[metadata.TARGETS+".json"]
	if !ok {
		return Versions{}, fmt.Errorf("%s lists no targets.json", snapPath)
	}
	v.Targets = tm.Version
	for v.Root = 1; ; v.Root++ {
		if _, err := os.Stat(filepath.Join(dir, manifest.MetadataDir, RootName(v.Root+1))); err != nil {
			break
		}
	}
	return v, nil
}

// signed signs meta with role's keys of kd and returns its bytes.
func (kd *Keys) signed(meta interface {
	ToBytes(bool) ([]byte, error)
}, role string) ([]byte, error) {
	signers, err := kd.signers(role)
	if err != nil {
		return nil, fmt.Errorf("signing %s: %w", role, err)
	}
	var signErr error
	switch m := meta.(type) {
	case *metadata.Metadata[metadata.TargetsType]:
		signErr = signAll(m, signers)
	case *metadata.Metadata[metadata.SnapshotType]:
		signErr = signAll(m, signers)
	case *metadata.Metadata[metadata.TimestampType]:
		signErr = signAll(m, signers)
	default:
		signErr = fmt.Errorf("cannot sign %T", meta)
	}
	if signErr != nil {
		return nil, fmt.Errorf("signing %s: %w", role, signErr)
	}
	// Compact: targets of a large tree are megabytes, read by every
	// verifier.
	return meta.ToBytes(false)
}

func versioned(v int64, role string) string {
	return strconv.FormatInt(v, 10) + "." + role + ".json"
}

func targetFile(size int64, sha string) *metadata.TargetFiles {
	h, _ := hex.DecodeString(sha)
	return &metadata.TargetFiles{Length: size, Hashes: metadata.Hashes{"sha256": h}}
}

func metaFile(version int64, data []byte) *metadata.MetaFiles {
	h, _ := hex.DecodeString(manifest.SHA256(data))
	return &metadata.MetaFiles{Version: version, Length: int64(len(data)), Hashes: metadata.Hashes{"sha256": h}}
}

// Signer returns what generator.RenderOptions.Sign calls for a
// generation replacing the one in directory out (resolved, as
// writer.Resolve returns it): the key directory keyDir opened, the
// versions of out's signed generation read, now, so that a key or a
// previous generation that cannot be read fails the run before anything
// is rendered.
func Signer(keyDir, out string, opts GenerationOptions) (func(index []byte, m *manifest.Manifest) (map[string][]byte, error), error) {
	kd, err := OpenKeys(keyDir)
	if err != nil {
		return nil, err
	}
	for _, role := range []string{metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
		if _, err := kd.signers(role); err != nil {
			return nil, fmt.Errorf("signing %s: %w", role, err)
		}
	}
	prev, err := Previous(out)
	if err != nil {
		return nil, err
	}
	opts.Previous = prev
	return func(index []byte, m *manifest.Manifest) (map[string][]byte, error) {
		return kd.Generation(index, m, opts)
	}, nil
}
