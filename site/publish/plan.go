package publish

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Reason says why an object is uploaded or deleted.
type Reason string

const (
	// New: not in the published index.json (or nothing is published yet).
	New Reason = "new"
	// Changed: its sha256 differs from the published index.json's.
	Changed Reason = "changed"
	// HeadersChanged: same content, published with other header rules.
	HeadersChanged Reason = "headers"
	// Missing: the published index.json lists it, but the object is gone.
	Missing Reason = "missing"
	// Drift: the object's content or headers are not what the published
	// index.json says (an interrupted publish, a change behind our back).
	Drift Reason = "drift"
	// Stale: in the published index.json, not in the new tree.
	Stale Reason = "stale"
	// Orphan: under the prefix, in neither index.json.
	Orphan Reason = "orphan"
)

// Op is what an Action does.
type Op string

const (
	Upload Op = "upload"
	Delete Op = "delete"
)

// Action is one object to upload or delete.
type Action struct {
	Op     Op
	Path   string // tree path; the key is prefix/Path
	Reason Reason
	Size   int64  // uploads: bytes
	SHA256 string // uploads: hex digest of the content
}

func (a Action) String() string {
	if a.Op == Upload {
		return fmt.Sprintf("upload %s (%s, %d bytes)", a.Path, a.Reason, a.Size)
	}
	return fmt.Sprintf("delete %s (%s)", a.Path, a.Reason)
}

// Plan is what a publish does, in order. A dry run computes it and stops;
// a real run computes the same plan and carries it out, nothing more.
type Plan struct {
	Bucket, Prefix string
	// First is set when nothing was published under the prefix yet.
	First bool
	// Uploads, in upload order: leaves, channel graphs, index.json last.
	Uploads []Action
	// Deletes are carried out after index.json is replaced.
	Deletes []Action
	// Unchanged counts the tree's objects already published as they are.
	Unchanged int
	// Verified counts objects checked with a HEAD instead of trusting the
	// published index.json (after an interrupted publish, or Verify).
	Verified int
	// Kept counts stale objects left in place because Delete is off.
	Kept int
	// DeleteErr, when set, refuses the deletions (too many): a real run
	// still uploads, then returns it.
	DeleteErr error

	tree         *source
	bucket       *bucket
	rules        *Rules
	base         string          // digest of the published index.json, "" if none
	index        *object         // the published index.json, nil if none (or unreadable)
	flagged      bool            // index has metaJournal: a publish did not finish
	pending      map[string]bool // paths of an unfinished publish's journal
	journalFound bool
}

// UploadBytes totals the bytes to upload.
func (p *Plan) UploadBytes() int64 {
	var n int64
	for _, a := range p.Uploads {
		n += a.Size
	}
	return n
}

// WriteTo prints one line per action, then a summary.
func (p *Plan) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	for _, a := range p.Uploads {
		fmt.Fprintln(&b, a)
	}
	for _, a := range p.Deletes {
		fmt.Fprintln(&b, a)
	}
	fmt.Fprintln(&b, p.Summary())
	if p.DeleteErr != nil {
		fmt.Fprintln(&b, "refused:", p.DeleteErr)
	}
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// Summary is the plan in one line.
func (p *Plan) Summary() string {
	byReason := map[Reason]int{}
	for _, a := range p.Uploads {
		byReason[a.Reason]++
	}
	var reasons []string
	for _, r := range []Reason{New, Changed, HeadersChanged, Missing, Drift} {
		if byReason[r] > 0 {
			reasons = append(reasons, fmt.Sprintf("%d %s", byReason[r], r))
		}
	}
	s := fmt.Sprintf("s3://%s/%s: %d to upload", p.Bucket, p.Prefix, len(p.Uploads))
	if len(reasons) > 0 {
		s += " (" + strings.Join(reasons, ", ") + ")"
	}
	s += fmt.Sprintf(", %d bytes; %d to delete; %d unchanged", p.UploadBytes(), len(p.Deletes), p.Unchanged)
	if p.Verified > 0 {
		s += fmt.Sprintf(" (%d verified)", p.Verified)
	}
	if p.Kept > 0 {
		s += fmt.Sprintf("; %d stale kept (deletion off)", p.Kept)
	}
	return s
}

// prepare computes the plan: it reads the published index.json and, when
// index.json is flagged or missing, the journal of an unfinished publish
// (see JournalPath), applies the shrink guard, checks objects the index
// cannot vouch for, and lists the prefix for deletions. It only reads from
// the bucket.
func prepare(ctx context.Context, opts *Options, t *source, b *bucket, rules *Rules, log *slog.Logger) (*Plan, error) {
	p := &Plan{Bucket: b.Name, Prefix: b.Prefix, tree: t, bucket: b, rules: rules}

	remoteIndex, err := b.get(ctx, manifest.FileName)
	if err != nil {
		return nil, err
	}
	var published *manifest.Manifest
	if remoteIndex != nil {
		published, err = manifest.Parse(remoteIndex.body)
		if err != nil {
			if !opts.Force {
				return nil, fmt.Errorf("%s: %w: %w", b.URL(manifest.FileName), ErrUnreadableIndex, err)
			}
			log.Warn("published index.json unreadable; publishing everything", "key", b.URL(manifest.FileName), "err", err)
			remoteIndex = nil
		}
	}
	p.First = published == nil
	if remoteIndex != nil {
		p.base = manifest.Digest(remoteIndex.body)
	}
	if published != nil && !opts.Force {
		if err := manifest.CheckShrink(published, t.manifest, opts.ShrinkThreshold); err != nil {
			return nil, err
		}
	}

	if remoteIndex != nil {
		p.index, p.flagged = remoteIndex, remoteIndex.meta[metaJournal] != ""
	}
	// Without a flag on index.json no publish is unfinished (see
	// JournalPath), so the common run skips the journal's GET. Without an
	// index.json there is nothing to flag: a first publish may have been
	// interrupted, so the journal is looked for.
	var pending map[string]bool
	var found, ok bool
	if remoteIndex == nil || p.flagged {
		if pending, found, ok, err = readJournal(ctx, b); err != nil {
			return nil, err
		}
	}
	p.pending, p.journalFound = pending, found
	// A flag without a readable journal: a run stopped between flagging
	// and writing the journal, or the journal is damaged or gone.
	verifyAll := opts.Verify || (found && !ok) || (p.flagged && !found)
	if found || p.flagged {
		log.Info("an earlier publish did not finish; checking the objects it may have changed",
			"key", b.URL(JournalPath), "objects", len(pending), "all", verifyAll)
	}

	// Header rules are compared as a whole: their digest is on index.json.
	rulesChanged := remoteIndex != nil && remoteIndex.meta[metaRules] != rules.Digest()
	var check []string
	for _, path := range slices.Sorted(maps.Keys(t.manifest.Files)) {
		f := t.manifest.Files[path]
		if verifyAll || pending[path] {
			check = append(check, path)
			continue
		}
		old, listed := filesOf(published)[path]
		switch {
		case !listed:
			p.add(path, f, New)
		case old.SHA256 != f.SHA256:
			p.add(path, f, Changed)
		case rulesChanged:
			p.add(path, f, HeadersChanged)
		default:
			p.Unchanged++
		}
	}
	if err := p.verify(ctx, check, published, opts.workers()); err != nil {
		return nil, err
	}

	switch {
	case remoteIndex == nil:
		p.add(manifest.FileName, fileOf(t.index), New)
	case !bytes.Equal(remoteIndex.body, t.index):
		p.add(manifest.FileName, fileOf(t.index), Changed)
	case rulesChanged:
		p.add(manifest.FileName, fileOf(t.index), HeadersChanged)
	case p.flagged:
		// Uploaded again, without the flag, even when nothing else is:
		// else every later run would read the journal, then find it
		// removed and check every object.
		p.add(manifest.FileName, fileOf(t.index), Drift)
	default:
		p.Unchanged++
	}
	slices.SortStableFunc(p.Uploads, func(x, y Action) int {
		return cmp.Or(cmp.Compare(t.phase(x.Path), t.phase(y.Path)), cmp.Compare(x.Path, y.Path))
	})

	if err := p.planDeletes(ctx, opts, published); err != nil {
		return nil, err
	}
	return p, nil
}

// filesOf is m's files, none when nothing is published (m nil).
func filesOf(m *manifest.Manifest) map[string]manifest.File {
	if m == nil {
		return nil
	}
	return m.Files
}

func (p *Plan) add(path string, f manifest.File, r Reason) {
	p.Uploads = append(p.Uploads, Action{Op: Upload, Path: path, Reason: r, Size: f.Size, SHA256: f.SHA256})
}

// verify decides each path with a HEAD: the object's stored sha256 and
// headers against the tree's. An object already right is left alone
// whatever the published index.json says about it.
func (p *Plan) verify(ctx context.Context, paths []string, published *manifest.Manifest, workers int) error {
	if len(paths) == 0 {
		return nil
	}
	objs := make([]*object, len(paths))
	err := parallel.Run(ctx, workers, len(paths), func(ctx context.Context, _, i int) error {
		var err error
		objs[i], err = p.bucket.head(ctx, paths[i])
		return err
	})
	if err != nil {
		return err
	}
	for i, path := range paths {
		f := p.tree.manifest.Files[path]
		old, listed := filesOf(published)[path]
		p.Verified++
		obj := objs[i]
		// The size is checked too: it costs nothing, and some stores keep
		// the old user metadata when a PUT without any overwrites an object.
		same := obj != nil && obj.meta[metaSHA256] == f.SHA256 && obj.size == f.Size
		switch {
		case obj == nil && listed:
			p.add(path, f, Missing)
		case obj == nil:
			p.add(path, f, New)
		case same && obj.headers == p.rules.Resolve(path):
			p.Unchanged++
		case same:
			p.add(path, f, HeadersChanged)
		case !listed:
			p.add(path, f, New)
		case old.SHA256 != f.SHA256:
			p.add(path, f, Changed)
		default:
			p.add(path, f, Drift)
		}
	}
	return nil
}

// planDeletes lists what is under the directories the trees use (graph/,
// schema/, signatures/; never the prefix's root, where index.json lives
// and other tools may keep files) and plans the deletion of whatever the
// new tree does not hold. Listing, rather than diffing the two manifests, also
// finds what an interrupted run left: an object uploaded for a tree that
// was never published, or a deletion that never happened.
func (p *Plan) planDeletes(ctx context.Context, opts *Options, published *manifest.Manifest) error {
	if !opts.Delete {
		for path := range filesOf(published) {
			if _, ok := p.tree.manifest.Files[path]; !ok {
				p.Kept++
			}
		}
		return nil
	}
	var deletes []Action
	for _, dir := range dirs(p.tree.manifest, published) {
		paths, err := p.bucket.list(ctx, dir)
		if err != nil {
			return err
		}
		for _, path := range paths {
			if _, ok := p.tree.manifest.Files[path]; ok {
				continue
			}
			r := Orphan
			if _, ok := filesOf(published)[path]; ok {
				r = Stale
			}
			deletes = append(deletes, Action{Op: Delete, Path: path, Reason: r})
		}
	}
	slices.SortFunc(deletes, func(x, y Action) int { return cmp.Compare(x.Path, y.Path) })
	if opts.MaxDeletes >= 0 && len(deletes) > opts.MaxDeletes {
		p.DeleteErr = fmt.Errorf("%w: %d objects under s3://%s/%s are not in the new tree, more than the limit of %d; nothing deleted",
			ErrTooManyDeletes, len(deletes), p.Bucket, p.Prefix, opts.MaxDeletes)
		return nil
	}
	p.Deletes = deletes
	return nil
}

// ErrUnreadableIndex is returned (wrapped) when the published index.json
// cannot be parsed; Force publishes over it as if nothing were published.
var ErrUnreadableIndex = errors.New("published index.json unreadable")

// ErrTooManyDeletes is returned (wrapped) when the deletions a publish would
// make exceed Options.MaxDeletes. The uploads are done by then: the new
// index.json is live and consistent, only the stale objects remain.
var ErrTooManyDeletes = errors.New("too many deletions")

// fileOf describes bytes as the manifest describes a file.
func fileOf(data []byte) manifest.File {
	return manifest.File{SHA256: manifest.SHA256(data), Size: int64(len(data))}
}

// addMetadata adds the uploads of a signed tree's TUF metadata
// (tree.MetadataFiles), unless the published timestamp.json is already
// the tree's: the timestamp pins the snapshot, which pins the targets. A
// plan with no upload but these (a timestamp re-signed alone) uploads
// timestamp.json only.
func (p *Plan) addMetadata(ctx context.Context, t tree.Tree) error {
	files, err := tree.MetadataFiles(ctx, t)
	if err != nil || len(files) == 0 {
		return err
	}
	p.tree.metadata = files
	ts := manifest.MetadataDir + "/timestamp.json"
	published, err := p.bucket.get(ctx, ts)
	if err != nil {
		return fmt.Errorf("%s: %w", p.bucket.URL(ts), err)
	}
	if published != nil && bytes.Equal(published.body, files[ts]) {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p.add(name, fileOf(files[name]), New)
	}
	return nil
}
