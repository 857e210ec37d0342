package sign

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"

	"github.com/upgraph/upgraph/tree/manifest"
)

// Roles are TUF's four top-level roles, in the order messages list them.
var Roles = []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP}

// Algorithm names a key type keys init and rotate create.
type Algorithm string

const (
	// Ed25519 signatures are deterministic: the same metadata signed
	// twice has the same bytes.
	Ed25519 Algorithm = "ed25519"
	// ECDSAP256 signatures are randomised: metadata signed twice differs
	// in its signatures (and only there).
	ECDSAP256 Algorithm = "ecdsa-p256"
)

// Algorithms lists the algorithms accepted, for flags' usage.
var Algorithms = []Algorithm{Ed25519, ECDSAP256}

// ParseAlgorithm parses a --algorithm value.
func ParseAlgorithm(s string) (Algorithm, error) {
	for _, a := range Algorithms {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("%q is not a key algorithm: want %s or %s", s, Ed25519, ECDSAP256)
}

// Threshold is how many keys a role has and how many of them must sign.
type Threshold struct {
	Keys, Threshold int
}

// ParseThreshold parses ROLE=T or ROLE=T/N (T of N keys; T/T when N is
// not given), a --threshold value.
func ParseThreshold(s string) (string, Threshold, error) {
	role, v, ok := strings.Cut(s, "=")
	if !ok || !slices.Contains(Roles, role) {
		return "", Threshold{}, fmt.Errorf("%q: want ROLE=THRESHOLD[/KEYS] with ROLE one of %s", s, strings.Join(Roles, ", "))
	}
	ts, ns, hasN := strings.Cut(v, "/")
	t, err := strconv.Atoi(ts)
	n := t
	if err == nil && hasN {
		n, err = strconv.Atoi(ns)
	}
	switch {
	case err != nil:
		return "", Threshold{}, fmt.Errorf("%q: want ROLE=THRESHOLD[/KEYS], two whole numbers", s)
	case t < 1 || n < t || n > 16:
		return "", Threshold{}, fmt.Errorf("%q: want 1 ≤ THRESHOLD ≤ KEYS ≤ 16", s)
	}
	return role, Threshold{Keys: n, Threshold: t}, nil
}

// Key directory layout. The public root chain beside the private keys:
// root.json is the newest root, the trust anchor verifiers are given.
const (
	// RootFile is the newest root of a key directory.
	RootFile = "root.json"
	// PrivateDir holds one PKCS #8 PEM file per private key, named by the
	// key's TUF key ID, mode 0600 in a directory of mode 0700.
	PrivateDir = "private"
)

// RootName is the name of version v of the root, in a key directory and
// in a tree's tuf/ (consistent snapshots, spec §6.2).
func RootName(v int64) string { return strconv.FormatInt(v, 10) + ".root.json" }

// InitOptions configure Init.
type InitOptions struct {
	Algorithm Algorithm
	// Thresholds per role; a role not given has one key, threshold 1.
	Thresholds map[string]Threshold
	// At is when the root is made; it expires RootExpiry later.
	At         time.Time
	RootExpiry time.Duration
	// Rand is the source of the keys (nil: crypto/rand).
	Rand io.Reader
}

// DefaultRootExpiry is how long a root made by keys init or rotate is
// valid: a year, since it is signed offline.
const DefaultRootExpiry = 365 * 24 * time.Hour

// Init creates a TUF root in the new or empty directory dir: separate
// keys for root, targets, snapshot and timestamp, the private ones in
// dir/private (0600), the signed root as dir/1.root.json and
// dir/root.json. It refuses a dir inside a tree (private keys never
// travel with one) and a dir that already holds a root or keys.
func Init(dir string, opts InitOptions) (*metadata.Metadata[metadata.RootType], error) {
	if err := checkKeyDir(dir); err != nil {
		return nil, err
	}
	for _, name := range []string{RootFile, RootName(1), PrivateDir} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return nil, fmt.Errorf("%s already exists: keys init never overwrites keys (use keys rotate for a new root)", filepath.Join(dir, name))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	root := metadata.Root(expiry(opts.At, opts.RootExpiry, DefaultRootExpiry))
	var keys []generated
	for _, role := range Roles {
		th := opts.Thresholds[role]
		if th.Keys == 0 {
			th = Threshold{Keys: 1, Threshold: 1}
		}
		ks, err := addKeys(root, role, th, opts.Algorithm, opts.Rand)
		if err != nil {
			return nil, err
		}
		keys = append(keys, ks...)
	}
	signers, err := signersOf(keys, root.Signed.Roles[metadata.ROOT].KeyIDs)
	if err != nil {
		return nil, err
	}
	if err := signAll(root, signers); err != nil {
		return nil, err
	}
	if err := writeKeys(dir, keys); err != nil {
		return nil, err
	}
	return root, writeRoot(dir, root)
}

// RotateOptions configure Rotate.
type RotateOptions struct {
	// Roles whose keys are replaced by new ones (at least one).
	Roles     []string
	Algorithm Algorithm
	// Thresholds of the rotated roles (default: as before).
	Thresholds map[string]Threshold
	At         time.Time
	RootExpiry time.Duration
	Rand       io.Reader
}

// Rotate makes the next root of the key directory dir: new keys for the
// roles named, the version one more, signed by the threshold of the
// current root's root keys and by the new root keys, as a client walking
// the chain requires (spec §5.3.4). It writes dir/N+1.root.json and then
// dir/root.json; N.root.json and the ones before are kept.
func Rotate(dir string, opts RotateOptions) (*metadata.Metadata[metadata.RootType], error) {
	kd, err := OpenKeys(dir)
	if err != nil {
		return nil, err
	}
	if len(opts.Roles) == 0 {
		return nil, errors.New("rotate: no role named")
	}
	old := kd.Root
	next, err := copyRoot(old)
	if err != nil {
		return nil, err
	}
	next.Signed.Version = old.Signed.Version + 1
	next.Signed.Expires = expiry(opts.At, opts.RootExpiry, DefaultRootExpiry)
	var keys []generated
	for _, role := range opts.Roles {
		if !slices.Contains(Roles, role) {
			return nil, fmt.Errorf("rotate: %q is not a role: want one of %s", role, strings.Join(Roles, ", "))
		}
		r := next.Signed.Roles[role]
		th, ok := opts.Thresholds[role]
		if !ok {
			th = Threshold{Keys: len(r.KeyIDs), Threshold: r.Threshold}
		}
		for _, id := range slices.Clone(r.KeyIDs) {
			if err := next.Signed.RevokeKey(id, role); err != nil {
				return nil, fmt.Errorf("rotate %s: %w", role, err)
			}
		}
		ks, err := addKeys(next, role, th, opts.Algorithm, opts.Rand)
		if err != nil {
			return nil, err
		}
		keys = append(keys, ks...)
	}
	// The old root's threshold, then the new root keys not among them.
	oldSigners, err := kd.signers(metadata.ROOT)
	if err != nil {
		return nil, fmt.Errorf("rotate: the current root (version %d) must sign its successor: %w", old.Signed.Version, err)
	}
	newIDs := next.Signed.Roles[metadata.ROOT].KeyIDs
	newSigners, err := signersOf(append(keys, kd.private(newIDs)...), newIDs)
	if err != nil {
		return nil, err
	}
	signed := map[string]bool{}
	for _, s := range append(oldSigners, newSigners...) {
		id, err := signerID(s)
		if err != nil {
			return nil, err
		}
		if !signed[id] {
			signed[id] = true
			if _, err := next.Sign(s); err != nil {
				return nil, fmt.Errorf("rotate: signing root version %d: %w", next.Signed.Version, err)
			}
		}
	}
	if err := old.VerifyDelegate(metadata.ROOT, next); err != nil {
		return nil, fmt.Errorf("rotate: root version %d is not signed by the threshold of version %d: %w", next.Signed.Version, old.Signed.Version, err)
	}
	if err := next.VerifyDelegate(metadata.ROOT, next); err != nil {
		return nil, fmt.Errorf("rotate: root version %d is not signed by its own threshold: %w", next.Signed.Version, err)
	}
	if err := writeKeys(dir, keys); err != nil {
		return nil, err
	}
	return next, writeRoot(dir, next)
}

// Keys is an opened key directory: its newest root and whichever private
// keys it holds (an online machine holds the timestamp key only).
type Keys struct {
	Dir  string
	Root *metadata.Metadata[metadata.RootType]
	// Chain is every root version 1 … Root's, as their files' bytes.
	Chain [][]byte
}

// OpenKeys opens the key directory dir: root.json and the chain
// 1.root.json … N.root.json it ends.
func OpenKeys(dir string) (*Keys, error) {
	rootPath := filepath.Join(dir, RootFile)
	data, err := os.ReadFile(rootPath)
	if err != nil {
		return nil, fmt.Errorf("key directory %s: %w (make one with upgraph keys init)", dir, err)
	}
	root, err := metadata.Root().FromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rootPath, err)
	}
	kd := &Keys{Dir: dir, Root: root}
	for v := int64(1); v <= root.Signed.Version; v++ {
		p := filepath.Join(dir, RootName(v))
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("key directory %s: the root chain lacks version %d: %w", dir, v, err)
		}
		kd.Chain = append(kd.Chain, b)
	}
	if string(kd.Chain[len(kd.Chain)-1]) != string(data) {
		return nil, fmt.Errorf("%s differs from %s: the newest root of the chain must be root.json", rootPath, filepath.Join(dir, RootName(root.Signed.Version)))
	}
	return kd, nil
}

// signers returns signers for role: every private key of dir listed for
// role by the root, which must be at least its threshold.
func (kd *Keys) signers(role string) ([]signature.Signer, error) {
	r := kd.Root.Signed.Roles[role]
	var out []signature.Signer
	var missing []string
	for _, id := range r.KeyIDs {
		s, err := loadSigner(filepath.Join(kd.Dir, PrivateDir, id+".pem"))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, id)
		case err != nil:
			return nil, err
		default:
			out = append(out, s)
		}
	}
	if len(out) < r.Threshold {
		return nil, fmt.Errorf("%s has %d of the %s keys, threshold %d (missing %s.pem)", filepath.Join(kd.Dir, PrivateDir), len(out), role, r.Threshold, strings.Join(missing, ".pem, "))
	}
	return out, nil
}

// private returns the private keys of dir among ids that it has.
func (kd *Keys) private(ids []string) []generated {
	var out []generated
	for _, id := range ids {
		if s, err := loadSigner(filepath.Join(kd.Dir, PrivateDir, id+".pem")); err == nil {
			out = append(out, generated{id: id, signer: s})
		}
	}
	return out
}

// generated is a key made by Init or Rotate.
type generated struct {
	id     string
	pem    []byte
	signer signature.Signer
}

// addKeys makes th.Keys keys of algorithm alg for role of root.
func addKeys(root *metadata.Metadata[metadata.RootType], role string, th Threshold, alg Algorithm, r io.Reader) ([]generated, error) {
	if r == nil {
		r = rand.Reader
	}
	var out []generated
	for range th.Keys {
		var priv crypto.Signer
		var err error
		switch alg {
		case Ed25519, "":
			_, priv, err = ed25519.GenerateKey(r)
		case ECDSAP256:
			priv, err = ecdsa.GenerateKey(elliptic.P256(), r)
		default:
			err = fmt.Errorf("%q is not a key algorithm", alg)
		}
		if err != nil {
			return nil, fmt.Errorf("making a %s key: %w", role, err)
		}
		key, err := metadata.KeyFromPublicKey(priv.Public())
		if err != nil {
			return nil, err
		}
		id, err := key.ID()
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return nil, err
		}
		s, err := newSigner(priv)
		if err != nil {
			return nil, err
		}
		if err := root.Signed.AddKey(key, role); err != nil {
			return nil, err
		}
		out = append(out, generated{id: id, pem: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), signer: s})
	}
	root.Signed.Roles[role].Threshold = th.Threshold
	return out, nil
}

func newSigner(priv crypto.PrivateKey) (signature.Signer, error) {
	switch k := priv.(type) {
	case ed25519.PrivateKey:
		return signature.LoadED25519Signer(k)
	case *ed25519.PrivateKey:
		return signature.LoadED25519Signer(*k)
	case *ecdsa.PrivateKey:
		return signature.LoadECDSASigner(k, crypto.SHA256)
	}
	return nil, fmt.Errorf("unsupported private key type %T", priv)
}

// loadSigner reads a private key file keys init or rotate wrote.
func loadSigner(p string) (signature.Signer, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%s: not a PEM PRIVATE KEY", p)
	}
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	s, err := newSigner(priv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return s, nil
}

func signerID(s signature.Signer) (string, error) {
	pub, err := s.PublicKey()
	if err != nil {
		return "", err
	}
	key, err := metadata.KeyFromPublicKey(pub)
	if err != nil {
		return "", err
	}
	return key.ID()
}

// signersOf returns the signers of keys whose IDs are among ids.
func signersOf(keys []generated, ids []string) ([]signature.Signer, error) {
	var out []signature.Signer
	for _, k := range keys {
		if slices.Contains(ids, k.id) {
			out = append(out, k.signer)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no private key for the new root's keys")
	}
	return out, nil
}

// signAll signs meta with every signer.
func signAll[T metadata.Roles](meta *metadata.Metadata[T], signers []signature.Signer) error {
	for _, s := range signers {
		if _, err := meta.Sign(s); err != nil {
			return err
		}
	}
	return nil
}

func copyRoot(r *metadata.Metadata[metadata.RootType]) (*metadata.Metadata[metadata.RootType], error) {
	b, err := r.ToBytes(false)
	if err != nil {
		return nil, err
	}
	c, err := metadata.Root().FromBytes(b)
	if err != nil {
		return nil, err
	}
	c.ClearSignatures()
	return c, nil
}

// checkKeyDir refuses a key directory inside a tree: dir or a directory
// above it holding an index.json.
func checkKeyDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, manifest.FileName)); err == nil {
			return fmt.Errorf("key directory %s is inside the tree %s (it has an %s): private keys never go into a tree, which is published", dir, d, manifest.FileName)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// writeKeys writes each key's PEM as dir/private/ID.pem, mode 0600,
// never replacing a file.
func writeKeys(dir string, keys []generated) error {
	p := filepath.Join(dir, PrivateDir)
	if err := os.MkdirAll(p, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(p, 0o700); err != nil {
		return err
	}
	for _, k := range keys {
		if err := writeNew(filepath.Join(p, k.id+".pem"), k.pem, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// writeRoot writes dir/N.root.json (never replacing one) and then
// dir/root.json (replaced by rename).
func writeRoot(dir string, root *metadata.Metadata[metadata.RootType]) error {
	data, err := root.ToBytes(true)
	if err != nil {
		return err
	}
	if err := writeNew(filepath.Join(dir, RootName(root.Signed.Version)), data, 0o644); err != nil {
		return err
	}
	return writeReplace(filepath.Join(dir, RootFile), data, 0o644)
}

func writeNew(p string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// writeReplace replaces p with data atomically: a reader sees the old
// file or the new one.
func writeReplace(p string, data []byte, mode fs.FileMode) error {
	tmp := p + ".tmp"
	_ = os.Remove(tmp)
	if err := writeNew(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// expiry is at plus d (def when 0), in whole seconds of UTC as TUF writes
// it.
func expiry(at time.Time, d, def time.Duration) time.Time {
	if at.IsZero() {
		at = time.Now()
	}
	if d == 0 {
		d = def
	}
	return at.Add(d).UTC().Truncate(time.Second)
}

// Describe says, per role of root, its threshold and number of keys:
// "root 1/1, targets 1/1, snapshot 1/1, timestamp 1/1".
func Describe(root *metadata.Metadata[metadata.RootType]) string {
	var parts []string
	for _, role := range Roles {
		r := root.Signed.Roles[role]
		parts = append(parts, fmt.Sprintf("%s %d/%d", role, r.Threshold, len(r.KeyIDs)))
	}
	return strings.Join(parts, ", ")
}

// ReadRoot reads and parses a root file, such as a --trust ROOT.json.
func ReadRoot(p string) (*metadata.Metadata[metadata.RootType], error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	r, err := metadata.Root().FromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a TUF root: %w", p, err)
	}
	return r, nil
}
