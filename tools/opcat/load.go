package opcat

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tools/mirrorset"
)

// Read is a catalog a command reads: its Arg, and the packages of a
// tree's catalog to read (nil: all of it).
type Read struct {
	Arg  Arg
	Pkgs []string
}

// maxReaders bounds the catalogs read at once: each read already decodes
// its files on every core, so more readers only fill the gaps between
// files (a catalog's largest package) and add to the memory.
const maxReaders = 4

// LoadAll reads the catalogs of reads as Load does, a few at a time (a
// catalog set of four catalogs at two minors is eight reads of YAML, most
// of plan's time), and returns them in the order of reads. Reads of the
// same source (and, for a tree, the same packages) read it once: a
// catalog set that gives a catalog one source for every minor reads it
// once; each read gets its own Catalog, sharing the Config and Model,
// which no command changes. On failure it returns the error of the first
// read, in the order of reads, that fails, and its index, as reading them
// in turn would: reads after a failure are not started. With modelsOnly,
// each catalog's Config is dropped once converted, so that the decoded
// FBC of a catalog already read is not kept while the others are, and the
// Catalogs have no Config. opts may be called from several goroutines.
func LoadAll(ctx context.Context, src *mirror.Source, reads []Read, modelsOnly bool, opts func() (source.Options, error)) ([]*mirrorset.Catalog, int, error) {
	first := make([]int, len(reads)) // the read whose result read i takes
	var unique []int
	seen := map[string]int{}
	for i, r := range reads {
		key := readKey(r)
		j, ok := seen[key]
		if !ok {
			j = i
			seen[key] = i
			unique = append(unique, i)
		}
		first[i] = j
	}
	cats := make([]*mirrorset.Catalog, len(reads))
	errs := make([]error, len(reads))
	var (
		mu     sync.Mutex
		next   int
		failed = len(reads) // the first read that failed
	)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxReaders, len(unique)) {
		wg.Go(func() {
			for {
				mu.Lock()
				if next == len(unique) || unique[next] > failed {
					mu.Unlock()
					return
				}
				i := unique[next]
				next++
				mu.Unlock()
				cats[i], errs[i] = Load(ctx, src, reads[i].Arg, reads[i].Pkgs, opts)
				if errs[i] == nil && modelsOnly {
					cats[i].Config = nil
				}
				if errs[i] != nil {
					mu.Lock()
					failed = min(failed, i)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if failed < len(reads) {
		return nil, failed, errs[failed]
	}
	out := make([]*mirrorset.Catalog, len(reads))
	for i := range reads {
		cat := *cats[first[i]]
		cat.Name = reads[i].Arg.Name // Load's name
		out[i] = &cat
	}
	return out, 0, nil
}

// readKey is what makes two reads read the same: the tree's catalog and
// the packages, or the source (which reads its catalog whole).
func readKey(r Read) string {
	if r.Arg.Tree {
		key := "tree\x00" + r.Arg.Name + "\x00"
		if r.Pkgs != nil {
			key += "pkgs\x00" + strings.Join(r.Pkgs, "\x00")
		}
		return key
	}
	return "source\x00" + r.Arg.Spec
}
