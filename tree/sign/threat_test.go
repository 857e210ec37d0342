package sign

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/bundletest"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/ocitree"
	"github.com/upgraph/upgraph/tree/s3tree"
	"github.com/upgraph/upgraph/tree/writer"
)

// victim is the file the tamper rows change.
const victim = "graph/amd64/fast-4.16.json"

var demoBuilt = sync.OnceValues(func() (*generator.Built, error) {
	return generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
})

// generate renders the demo into out at time at, signed with the key
// directory keys ("": unsigned), channels limited to those matching
// channels (nil: all).
func generate(t *testing.T, out, keys string, at time.Time, channels *regexp.Regexp) {
	t.Helper()
	b, err := demoBuilt()
	if err != nil {
		t.Fatal(err)
	}
	opts := generator.RenderOptions{Store: writer.DirStore{Dir: out}, GeneratedAt: at, Channels: channels}
	if keys != "" {
		if opts.Sign, err = Signer(keys, out, GenerationOptions{At: at}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := generator.Render(t.Context(), b, opts); err != nil {
		t.Fatal(err)
	}
}

// snapshotTree copies the tree in dir to a new directory.
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "tree")
	bundletest.CopyTree(t, dir, dst)
	return dst
}

// TestSigningAddsFilesOnly: a signed generation is the unsigned one plus
// tuf/, byte for byte; the same keys, inputs and time give the same
// metadata; each generation's versions are one more than the previous
// one's at the same output.
func TestSigningAddsFilesOnly(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	if _, err := Init(keys, InitOptions{At: at}); err != nil {
		t.Fatal(err)
	}
	plain, signed, again := filepath.Join(t.TempDir(), "plain"), filepath.Join(t.TempDir(), "signed"), filepath.Join(t.TempDir(), "again")
	generate(t, plain, "", at, nil)
	generate(t, signed, keys, at, nil)
	generate(t, again, keys, at, nil)
	plainFiles, signedFiles, againFiles := files(t, plain), files(t, signed), files(t, again)
	var tuf int
	for name, data := range signedFiles {
		if strings.HasPrefix(name, "tuf/") {
			tuf++
			if !manifest.IsMetadata(name) {
				t.Errorf("%s: not a metadata file name", name)
			}
			continue
		}
		if !bytes.Equal(data, plainFiles[name]) {
			t.Errorf("%s differs with --sign", name)
		}
	}
	if len(signedFiles)-tuf != len(plainFiles) || tuf != 4 {
		t.Errorf("%d files signed (%d in tuf/), %d unsigned; want 4 more", len(signedFiles), tuf, len(plainFiles))
	}
	for name, data := range signedFiles {
		if !bytes.Equal(data, againFiles[name]) {
			t.Errorf("%s differs between two runs with the same keys, inputs and time", name)
		}
	}
	v1, err := Previous(signed)
	if err != nil || v1 != (Versions{Root: 1, Targets: 1, Snapshot: 1, Timestamp: 1}) {
		t.Fatalf("first generation's versions %+v, %v", v1, err)
	}
	generate(t, signed, keys, at.Add(time.Minute), nil)
	if v2, err := Previous(signed); err != nil || v2 != (Versions{Root: 1, Targets: 2, Snapshot: 2, Timestamp: 2}) {
		t.Errorf("second generation's versions %+v, %v; want each one more", v2, err)
	}
	if _, err := os.Stat(filepath.Join(signed, "tuf", "1.targets.json")); err == nil {
		t.Error("the previous generation's targets are still in tuf/")
	}
}

// files reads every file under dir, by slash path.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// scenario is what the threat rows are made from: two signed
// generations of different content, the key directories, and the
// versions of the second.
type scenario struct {
	keys, otherKeys, rotated string
	gen1, gen2, gen3         string // gen3: signed after keys rotate
	unsigned                 string
	v2                       Versions
	trusted                  []byte
	at                       time.Time
}

func newScenario(t *testing.T) *scenario {
	t.Helper()
	work := t.TempDir()
	s := &scenario{keys: filepath.Join(work, "keys"), otherKeys: filepath.Join(work, "other"), rotated: filepath.Join(work, "rotated"), at: at}
	for _, k := range []string{s.keys, s.otherKeys} {
		if _, err := Init(k, InitOptions{At: at}); err != nil {
			t.Fatal(err)
		}
	}
	s.trusted = readFile(t, filepath.Join(s.keys, RootFile))
	out := filepath.Join(work, "out")
	generate(t, out, s.keys, at, regexp.MustCompile(`^stable-`))
	s.gen1 = snapshotTree(t, out)
	generate(t, out, s.keys, at.Add(time.Hour), nil)
	s.gen2 = snapshotTree(t, out)
	var err error
	if s.v2, err = Previous(out); err != nil {
		t.Fatal(err)
	}
	bundletest.CopyTree(t, s.keys, s.rotated)
	if _, err := Rotate(s.rotated, RotateOptions{Roles: []string{"root", "targets"}, At: at}); err != nil {
		t.Fatal(err)
	}
	generate(t, out, s.rotated, at.Add(2*time.Hour), nil)
	s.gen3 = snapshotTree(t, out)
	s.unsigned = filepath.Join(work, "unsigned")
	generate(t, s.unsigned, "", at, nil)
	return s
}

// threatRow is one attack: a tree made from the scenario, what the
// verifier saw last, its clock, and the threat it must be refused for
// ("" to be accepted).
type threatRow struct {
	name string
	make func(t *testing.T, s *scenario) string
	last func(s *scenario) Versions
	// after is how long after the second generation the verifier's
	// clock is.
	after time.Duration
	want  Threat
	file  string // the file the refusal names
}

var threatRows = []threatRow{
	{name: "the newest generation", make: func(t *testing.T, s *scenario) string { return s.gen2 }},
	{name: "seen again", make: func(t *testing.T, s *scenario) string { return s.gen2 }, last: func(s *scenario) Versions { return s.v2 }},
	{
		name: "a changed file", want: Tamper, file: victim,
		make: func(t *testing.T, s *scenario) string {
			dir := snapshotTree(t, s.gen2)
			flip(t, filepath.Join(dir, victim))
			return dir
		},
	},
	{
		name: "a changed file, index.json rewritten to match", want: MixAndMatch, file: manifest.FileName,
		make: func(t *testing.T, s *scenario) string {
			dir := snapshotTree(t, s.gen2)
			flip(t, filepath.Join(dir, victim))
			relist(t, dir, victim)
			return dir
		},
	},
	{
		name: "files of another generation under the newest metadata", want: MixAndMatch, file: manifest.FileName,
		make: func(t *testing.T, s *scenario) string {
			dir := snapshotTree(t, s.gen1)
			replaceDir(t, filepath.Join(s.gen2, "tuf"), filepath.Join(dir, "tuf"))
			return dir
		},
	},
	{
		name: "the snapshot of another generation under the newest timestamp", want: MixAndMatch, file: "tuf/2.snapshot.json",
		make: func(t *testing.T, s *scenario) string {
			dir := snapshotTree(t, s.gen2)
			copyFile(t, filepath.Join(s.gen1, "tuf", "1.snapshot.json"), filepath.Join(dir, "tuf", "2.snapshot.json"))
			return dir
		},
	},
	{
		name: "an older generation", want: Rollback, file: "tuf/timestamp.json",
		make: func(t *testing.T, s *scenario) string { return s.gen1 },
		last: func(s *scenario) Versions { return s.v2 },
	},
	{
		name: "an expired timestamp", want: Freeze, file: "tuf/timestamp.json", after: 25 * time.Hour,
		make: func(t *testing.T, s *scenario) string { return s.gen2 },
	},
	{
		name: "a timestamp renewed with sign --timestamp", after: 25 * time.Hour,
		make: func(t *testing.T, s *scenario) string {
			dir := snapshotTree(t, s.gen2)
			kd, err := OpenKeys(s.keys)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := kd.Timestamp(dir, s.at.Add(24*time.Hour), 0); err != nil {
				t.Fatal(err)
			}
			return dir
		},
	},
	{
		name: "metadata signed by keys the root does not list", want: WrongKey, file: "tuf/timestamp.json",
		make: func(t *testing.T, s *scenario) string {
			dir := snapshotTree(t, s.gen2)
			os.RemoveAll(filepath.Join(dir, "tuf"))
			generate(t, dir, s.otherKeys, s.at.Add(time.Hour), nil)
			return dir
		},
	},
	{
		name: "only the timestamp key, changing a file", want: WrongKey, file: "tuf/3.snapshot.json",
		make: func(t *testing.T, s *scenario) string {
			dir := snapshotTree(t, s.gen2)
			flip(t, filepath.Join(dir, victim))
			relist(t, dir, victim)
			timestampKeyOnly(t, s, dir)
			return dir
		},
	},
	{
		name: "keys rotated with the old root's threshold",
		make: func(t *testing.T, s *scenario) string { return s.gen3 },
	},
	{
		name: "a root rotated without the old root's threshold", want: RootRotation, file: "tuf/2.root.json",
		make: func(t *testing.T, s *scenario) string {
			dir := snapshotTree(t, s.gen3)
			forgeRoot(t, s, filepath.Join(dir, "tuf", "2.root.json"))
			return dir
		},
	},
	{
		name: "an unsigned tree", want: Unsigned, file: "tuf/timestamp.json",
		make: func(t *testing.T, s *scenario) string { return s.unsigned },
	},
}

// TestThreats runs each row against the tree in a directory, served over
// http, uploaded to a real S3 server (versitygw) by an attacker who can
// write the bucket, packed as a bundle and pushed as an image to a real
// registry (registryd).
func TestThreats(t *testing.T) {
	s := newScenario(t)
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	s3opts := tree.Options{S3: s3tree.ClientOptions{Endpoint: srv.URL, PathStyle: true, Credentials: srv.Credentials(), MaxBackoff: 5 * time.Millisecond}}
	reg := rt.Start(t)
	for i, row := range threatRows {
		dir := row.make(t, s)
		web := httptest.NewServer(http.FileServer(http.Dir(dir)))
		t.Cleanup(web.Close)
		prefix := "rows/" + string(rune('a'+i))
		upload(t, srv, bucket, prefix, dir)
		bundleFile := filepath.Join(t.TempDir(), "tree.tar.gz")
		ref := push(t, reg.Host+"/rows/"+string(rune('a'+i))+":v1", dir, bundleFile)
		for _, loc := range []struct{ kind, location string }{
			{"dir", dir}, {"http", web.URL}, {"s3", "s3://" + bucket + "/" + prefix},
			{"bundle", bundleFile}, {"oci", "oci://" + ref},
		} {
			t.Run(row.name+"/"+loc.kind, func(t *testing.T) {
				var last Versions
				if row.last != nil {
					last = row.last(s)
				}
				tr, err := tree.Open(t.Context(), loc.location, s3opts)
				if err != nil && row.want == Tamper && strings.Contains(err.Error(), row.file) {
					// A bundle or an image is checked whole against
					// index.json as it is extracted: refused on Open.
					t.Log(err)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				_, err = Verify(t.Context(), tr, VerifyOptions{Trusted: s.trusted, Last: last, Now: s.at.Add(time.Hour + row.after), Files: true})
				checkRefusal(t, err, row.want, row.file)
			})
		}
	}
}

func checkRefusal(t *testing.T, err error, want Threat, file string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	var r *Refusal
	switch {
	case err == nil:
		t.Fatalf("accepted, want a %s refusal", want)
	case !errors.As(err, &r):
		t.Fatalf("%v: not a refusal, want %s", err, want)
	case r.Threat != want || r.File != file:
		t.Fatalf("refused for %s naming %s, want %s naming %s: %v", r.Threat, r.File, want, file, err)
	case !strings.Contains(err.Error(), string(want)) || !strings.Contains(err.Error(), file):
		t.Errorf("the message does not name the threat and the file: %v", err)
	}
	t.Log(err)
}

// upload puts every file of dir under prefix, as an attacker with write
// access to the bucket (or upgraph publish) would.
func upload(t *testing.T, srv *s3test.Server, bucket, prefix, dir string) {
	t.Helper()
	for name, data := range files(t, dir) {
		srv.Put(t, bucket, prefix+"/"+name, data)
	}
}

// push packs dir as an attacker would, index.json first and every other
// file as it is (tuf/ included), into bundleFile, and pushes it as an
// image to ref.
func push(t *testing.T, ref, dir, bundleFile string) string {
	t.Helper()
	all := files(t, dir)
	entries := []bundletest.Entry{{Header: tar.Header{Typeflag: tar.TypeReg, Name: manifest.FileName, Mode: 0o644}, Data: all[manifest.FileName]}}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		if name != manifest.FileName {
			entries = append(entries, bundletest.Entry{Header: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644}, Data: all[name]})
		}
	}
	bundletest.WriteEntries(t, bundleFile, entries)
	m, err := manifest.Parse(all[manifest.FileName])
	if err != nil {
		t.Fatal(err)
	}
	img, err := ocitree.Image(bundleFile, m, all[manifest.FileName])
	if err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(r, img); err != nil {
		t.Fatal(err)
	}
	return ref
}

// flip changes a byte of file p, keeping its size.
func flip(t *testing.T, p string) {
	t.Helper()
	data := readFile(t, p)
	data[len(data)/2] ^= 0x20
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// relist rewrites dir's index.json with name's new sha256 and size.
func relist(t *testing.T, dir, name string) {
	t.Helper()
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := readFile(t, filepath.Join(dir, name))
	m.Files[name] = manifest.File{SHA256: manifest.SHA256(data), Size: int64(len(data))}
	index, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), index, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.WriteFile(to, readFile(t, from), 0o644); err != nil {
		t.Fatal(err)
	}
}

func replaceDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.RemoveAll(to); err != nil {
		t.Fatal(err)
	}
	bundletest.CopyTree(t, from, to)
}

// timestampKeyOnly re-signs dir's metadata as an attacker holding only
// the timestamp key would: targets listing dir's index.json, snapshot
// and timestamp, each the next version, all signed with that key.
func timestampKeyOnly(t *testing.T, s *scenario, dir string) {
	t.Helper()
	kd, err := OpenKeys(s.keys)
	if err != nil {
		t.Fatal(err)
	}
	stolen := &Keys{Dir: kd.Dir, Root: kd.Root, Chain: kd.Chain}
	// A root of the attacker's own, listing the stolen timestamp key for
	// every role, gives Generation its signers; only its metadata is
	// kept.
	fake, err := copyRoot(kd.Root)
	if err != nil {
		t.Fatal(err)
	}
	id := kd.Root.Signed.Roles[metadata.TIMESTAMP].KeyIDs[0]
	for _, role := range []string{metadata.TARGETS, metadata.SNAPSHOT} {
		fake.Signed.Roles[role].KeyIDs = []string{id}
	}
	stolen.Root = fake
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	prev, err := Previous(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := stolen.Generation(readFile(t, filepath.Join(dir, manifest.FileName)), m, GenerationOptions{At: s.at.Add(time.Hour), Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range out {
		if strings.Contains(name, ".root.json") {
			continue // the genuine chain stays
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// forgeRoot replaces the root at p (version 2, rotated properly) by one
// with the same content signed only by new keys of the attacker's.
func forgeRoot(t *testing.T, s *scenario, p string) {
	t.Helper()
	r, err := metadata.Root().FromBytes(readFile(t, p))
	if err != nil {
		t.Fatal(err)
	}
	r.ClearSignatures()
	for _, id := range slices.Clone(r.Signed.Roles[metadata.ROOT].KeyIDs) {
		if err := r.Signed.RevokeKey(id, metadata.ROOT); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := addKeys(r, metadata.ROOT, Threshold{Keys: 1, Threshold: 1}, Ed25519, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := signAll(r, []signature.Signer{keys[0].signer}); err != nil {
		t.Fatal(err)
	}
	data, err := r.ToBytes(true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
