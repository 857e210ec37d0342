package site

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/tree/manifest"
)

// BucketHeader names the phased-rollout bucket an answer is for, on every
// graph answer of a generation with rollouts (docs/rollouts.md): the
// answer depends on the query's id, node_uuid or rollout_wariness, so a
// cache in front must key on the query string (or on this header's value
// computed the same way), never on the path alone.
const BucketHeader = "Upgraph-Rollout-Bucket"

// withVariants wraps served so that a graph file also carries the
// per-bucket copies index.json lists for it, each checked to be among the
// files.
func withVariants(m *manifest.Manifest, served func(string) *servedFile) (func(string) *servedFile, error) {
	ro := m.Rollouts
	if ro.Buckets < 1 || ro.Buckets > 10000 {
		return nil, fmt.Errorf("index.json: rollouts.buckets %d: want 1 to 10000", ro.Buckets)
	}
	for name, ks := range ro.Variants {
		for _, k := range ks {
			if k < 0 || k > ro.Buckets {
				return nil, fmt.Errorf("index.json: rollouts.variants[%s]: bucket %d not in 0..%d", name, k, ro.Buckets)
			}
			if _, ok := m.Files[manifest.RolloutPath(k, name)]; !ok {
				return nil, fmt.Errorf("index.json: rollouts.variants[%s]: %s is not among the files", name, manifest.RolloutPath(k, name))
			}
		}
	}
	return func(name string) *servedFile {
		f := served(name)
		if ks := ro.Variants[name]; len(ks) > 0 {
			f.variants = make(map[int]*servedFile, len(ks))
			for _, k := range ks {
				f.variants[k] = served(manifest.RolloutPath(k, name))
			}
		}
		return f
	}, nil
}

// forBucket picks the copy of f a query's bucket reads, and the bucket
// (-1 when gen has no rollouts).
func forBucket(gen *Generation, f *servedFile, q graphQuery) (*servedFile, int) {
	ro := gen.Manifest.Rollouts
	if ro == nil {
		return f, -1
	}
	k := rollout.Bucket(q.rollout, ro.Buckets)
	if v := f.variants[k]; v != nil {
		return v, k
	}
	return f, k
}

// setBucket adds BucketHeader for bucket k (none for -1).
func setBucket(w http.ResponseWriter, k int) {
	if k >= 0 {
		w.Header().Set(BucketHeader, strconv.Itoa(k))
	}
}

// hasRollouts tells whether the generation being served has rollouts:
// the fast path leaves their answers to net/http, which adds the bucket
// header.
func (h *Handler) hasRollouts() bool {
	g := h.gen.Load()
	return g != nil && g.Manifest.Rollouts != nil
}
