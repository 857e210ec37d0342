package tree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/upgraph/upgraph/tree/manifest"
)

// MetadataFiles reads the TUF metadata of t's generation, by tree path
// (tuf/NAME), for a program that carries the tree elsewhere (publish,
// Extract): the root chain 1.root.json, 2.root.json … while there is
// one, timestamp.json, and the snapshot and targets it leads to. A remote
// tree cannot be listed, so the names are followed as a TUF client
// would; nothing is verified here (package tree/sign does that). An
// unsigned tree has none: nil.
func MetadataFiles(ctx context.Context, t Tree) (map[string][]byte, error) {
	return FollowMetadata(ctx, t.String(), func(ctx context.Context, name string) ([]byte, error) {
		return t.ReadMetadata(ctx, name)
	})
}

// FollowMetadata is MetadataFiles over get, which reads tuf/NAME of the
// tree named where (an error wrapping fs.ErrNotExist when it is not
// there), for a reader that is not a Tree (serve --s3's follower).
func FollowMetadata(ctx context.Context, where string, get func(ctx context.Context, name string) ([]byte, error)) (map[string][]byte, error) {
	out := map[string][]byte{}
	read := func(name string) ([]byte, bool, error) {
		data, err := get(ctx, name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		out[manifest.MetadataDir+"/"+name] = data
		return data, true, nil
	}
	ts, ok, err := read("timestamp.json")
	if err != nil || !ok {
		return nil, err
	}
	for v := 1; ; v++ {
		if _, ok, err := read(strconv.Itoa(v) + ".root.json"); err != nil {
			return nil, err
		} else if !ok {
			break
		}
	}
	from := "timestamp.json"
	for _, step := range []struct{ role, next string }{{"snapshot", "snapshot.json"}, {"targets", "targets.json"}} {
		var doc struct {
			Signed struct {
				Meta map[string]struct {
					Version int64 `json:"version"`
				} `json:"meta"`
			} `json:"signed"`
		}
		if err := json.Unmarshal(ts, &doc); err != nil {
			return nil, fmt.Errorf("%s: %s/%s: %w", where, manifest.MetadataDir, from, err)
		}
		meta, ok := doc.Signed.Meta[step.next]
		if !ok || meta.Version < 1 {
			return nil, fmt.Errorf("%s: %s/%s names no %s", where, manifest.MetadataDir, from, step.next)
		}
		name := strconv.FormatInt(meta.Version, 10) + "." + step.role + ".json"
		data, ok, err := read(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%s: %s/%s is missing (the metadata before names it)", where, manifest.MetadataDir, name)
		}
		ts, from = data, name
	}
	return out, nil
}
