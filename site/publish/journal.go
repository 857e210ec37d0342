package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/upgraph/upgraph/tree/manifest"
)

// JournalPath is where a publish in progress records the objects it is
// about to overwrite, next to index.json.
//
// The remote index.json is the plan's base, and it is replaced last, so
// after an interrupted publish it still describes the previous generation
// while some objects already hold the new one. A re-run of the same tree
// re-uploads them anyway, but a re-run of another tree (say, the previous
// generation again, after the new one was found broken) would think those
// objects unchanged and leave them wrong. The journal names them, so the
// next run checks each against its stored sha256 (a HEAD) instead of
// trusting index.json. It is removed once index.json is replaced.
//
// Looking for a journal on every run would cost an unchanged re-publish a
// second request (a GET answered 404), so a run that writes one first
// flags the published index.json (flagIndex), and later runs read the
// journal only when index.json is flagged or missing. The order is flag,
// journal, uploads: whatever point a run stops at, either nothing was
// uploaded or index.json is flagged and the journal lists the uploads. A
// flagged index.json without a readable journal (a run stopped between
// the two writes, a damaged journal) makes the next run check every
// object. The new index.json is uploaded without the flag, so replacing
// it ends the publish and the flag at once.
const JournalPath = ".upgraph-publish.json"

type journal struct {
	Format    int    `json:"format"`
	StartedAt string `json:"startedAt"`
	// Base and Target are the digests of the index.json replaced and the
	// one being published ("" for a first publish).
	Base   string `json:"base"`
	Target string `json:"target"`
	// Paths may hold content index.json (Base) does not describe.
	Paths []string `json:"paths"`
}

const journalFormat = 1

// readJournal returns the paths a previous, unfinished publish may have
// changed. found reports whether a journal exists at all; an unreadable
// one gives found with ok false, and the caller checks every object.
func readJournal(ctx context.Context, b *bucket) (paths map[string]bool, found, ok bool, err error) {
	obj, err := b.get(ctx, JournalPath)
	if err != nil || obj == nil {
		return nil, false, false, err
	}
	var j journal
	if err := json.Unmarshal(obj.body, &j); err != nil || j.Format != journalFormat {
		return nil, true, false, nil
	}
	paths = make(map[string]bool, len(j.Paths))
	for _, p := range j.Paths {
		paths[p] = true
	}
	return paths, true, true, nil
}

// flagIndex marks the published index.json, as the GET in prepare read it
// (idx), as being replaced by a publish in progress: its metadata gains
// metaJournal, everything else (body, headers, the header rules' digest)
// stays, so clients and the next plan see the same generation.
func flagIndex(ctx context.Context, b *bucket, idx *object) error {
	meta := maps.Clone(idx.meta)
	if meta == nil {
		meta = map[string]string{}
	}
	meta[metaJournal] = "1"
	return b.replaceMeta(ctx, manifest.FileName, idx, meta)
}

func writeJournal(ctx context.Context, b *bucket, j journal) error {
	j.Format = journalFormat
	j.StartedAt = time.Now().UTC().Format(time.RFC3339)
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("%s: %w", b.URL(JournalPath), err)
	}
	return b.put(ctx, JournalPath, data, Headers{ContentType: "application/json", CacheControl: "no-store"}, nil)
}

// journalPaths is what a new journal must list: what this run uploads, and
// everything an earlier unfinished run listed, which index.json still does
// not describe until this run replaces it.
func journalPaths(pending map[string]bool, uploads []Action) []string {
	set := maps.Clone(pending)
	if set == nil {
		set = map[string]bool{}
	}
	for _, a := range uploads {
		// index.json is replaced atomically: never half-published; TUF
		// metadata is checked by its signatures, never against an
		// index.json.
		if a.Path != manifest.FileName && !manifest.IsMetadata(a.Path) {
			set[a.Path] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}
