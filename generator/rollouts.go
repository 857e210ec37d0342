package generator

import (
	"context"
	"path"
	"slices"
	"time"

	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/release/views"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// cutGraph is the graph of the buckets that hide one set of releases,
// with its index and renderer.
type cutGraph struct {
	ix *policy.Index
	r  *views.Renderer
}

// renderRollouts adds, after the tree of every release offered (upstream's
// answer), each bucket's copy of every graph file whose content differs for
// it (rollout/<k>/<path>), and records the rollouts in m. A bucket's graphs
// are those of the graph without the edges, conditional or not, into the
// releases it is not offered (rollout.Cut), channel by channel, since a
// rollout may be limited to some channels. Buckets hiding the same
// releases share one rendering; copies with equal content are linked when
// the store can.
func renderRollouts(ctx context.Context, b *Built, plan *rollout.Plan, channels, arches []string, st writer.Staging, m *manifest.Manifest, gz *copier) error {
	n := plan.Buckets
	ro := &manifest.Rollouts{
		Buckets:    n,
		At:         time.Unix(plan.At, 0).UTC().Format(time.RFC3339),
		NoIDBucket: rollout.NoIDBucket(n),
		Releases:   []manifest.RolloutRelease{},
		Variants:   map[string][]int{},
	}
	if next, ok := rollout.NextChange(plan.Rollouts, n, plan.At); ok {
		ro.NextChange = time.Unix(next, 0).UTC().Format(time.RFC3339)
	}
	targets := make([][]int, len(plan.Rollouts))
	for i := range plan.Rollouts {
		r := &plan.Rollouts[i]
		targets[i] = rollout.Targets(b.Graph, r.Version)
		rel := manifest.RolloutRelease{
			Version: r.Version, Channels: r.Channels, File: r.File,
			StartEpoch: r.StartEpoch, StartPercentage: r.StartValue, DurationMinutes: r.DurationMinutes,
			Throttling: r.Throttling(plan.At), OpenBuckets: r.OpenBuckets(n, plan.At),
			Opens: make([]string, n),
		}
		for k := 1; k <= n; k++ {
			if t, ok := r.Opens(k, n); ok {
				rel.Opens[k-1] = time.Unix(t, 0).UTC().Format(time.RFC3339)
			}
		}
		ro.Releases = append(ro.Releases, rel)
	}
	links, canLink := st.(writer.Linker)
	cuts := map[string]*cutGraph{}
	owners := map[string]string{} // content digest → first variant file
	for _, channel := range channels {
		// Buckets hiding the same releases in this channel, by key.
		groups := map[string][]int{}
		var keys []string
		hiddenOf := map[string][]int{}
		for k := 0; k <= n; k++ {
			hidden := plan.Hidden(k, channel)
			if len(hidden) == 0 {
				continue
			}
			key := rollout.Key(hidden)
			if _, ok := groups[key]; !ok {
				keys = append(keys, key)
				hiddenOf[key] = hidden
			}
			groups[key] = append(groups[key], k)
		}
		for _, key := range keys {
			cg := cuts[key]
			if cg == nil {
				var nodes []int
				for _, i := range hiddenOf[key] {
					nodes = append(nodes, targets[i]...)
				}
				g := rollout.Cut(b.Graph, nodes)
				cg = &cutGraph{ix: policy.NewIndex(g), r: views.NewRenderer(g)}
				cuts[key] = cg
			}
			for _, arch := range arches {
				if err := ctx.Err(); err != nil {
					return err
				}
				v := cg.ix.View(channel, arch)
				if len(v.Nodes) == 0 {
					continue
				}
				l := views.NewLayout(v)
				dir := path.Join("graph", arch, channel)
				for p := -1; p < len(v.Versions); p++ {
					var name string
					var data []byte
					if p < 0 {
						name, data = manifest.GraphPath(arch, channel), cg.r.Channel(nil, v)
					} else {
						name, data = path.Join(dir, manifest.VersionFileName(v.Versions[p])), cg.r.Version(nil, l, p)
					}
					base, ok := m.Files[name]
					sum := manifest.SHA256(data)
					if !ok || base.SHA256 == sum {
						continue
					}
					info := manifest.File{SHA256: sum, Size: int64(len(data))}
					for _, k := range groups[key] {
						copyName := manifest.RolloutPath(k, name)
						if owner, seen := owners[sum]; seen && canLink {
							if err := links.Link(ctx, owner, copyName); err != nil {
								return err
							}
						} else {
							if err := st.Put(ctx, copyName, data); err != nil {
								return err
							}
							if !seen {
								owners[sum] = copyName
								m.Counts.DistinctFiles++
								m.Counts.DistinctBytes += info.Size
								ro.DistinctVariants++
							}
						}
						m.Files[copyName] = info
						m.Counts.Files++
						m.Counts.Bytes += info.Size
						if err := putRolloutCopy(ctx, st, m, gz, owners[sum], copyName, data); err != nil {
							return err
						}
						ro.Variants[name] = append(ro.Variants[name], k)
						ro.VariantFiles++
					}
				}
			}
		}
	}
	for name := range ro.Variants {
		slices.Sort(ro.Variants[name])
	}
	for _, g := range m.Graphs {
		for _, f := range append([]string{g.Path}, versionPaths(g)...) {
			if _, varies := ro.Variants[f]; !varies {
				ro.SharedFiles++
			}
		}
	}
	m.Rollouts = ro
	return nil
}

func versionPaths(g manifest.Graph) []string {
	dir := path.Join("graph", g.Arch, g.Channel)
	out := make([]string, len(g.Versions))
	for i, v := range g.Versions {
		out[i] = path.Join(dir, manifest.VersionFileName(v))
	}
	return out
}

// putRolloutCopy stores the gzip copy of a bucket's file (copyName, data)
// when the generation makes copies (RenderOptions.Precompress), linked to
// the copy of the first variant with the same content (firstVariant,
// possibly copyName itself) where the store
// links, so that every variant is served gzip like the file it replaces.
func putRolloutCopy(ctx context.Context, st writer.Staging, m *manifest.Manifest, gz *copier, firstVariant, copyName string, data []byte) error {
	if gz == nil || !precompress.Wanted(copyName, len(data)) {
		return nil
	}
	name := precompress.Name(copyName)
	owner := precompress.Name(firstVariant)
	if prev, ok := m.Files[owner]; ok && owner != name {
		if links, canLink := st.(writer.Linker); canLink {
			if err := links.Link(ctx, owner, name); err != nil {
				return err
			}
			m.Files[name] = prev
			m.Counts.Files++
			m.Counts.Bytes += prev.Size
			return nil
		}
	}
	c := gz.gz.GzipFile(nil, copyName, data)
	if err := st.Put(ctx, name, c); err != nil {
		return err
	}
	info := manifest.File{SHA256: manifest.SHA256(c), Size: int64(len(c))}
	m.Files[name] = info
	m.Counts.Files++
	m.Counts.Bytes += info.Size
	if owner == name {
		m.Counts.DistinctFiles++
		m.Counts.DistinctBytes += info.Size
	}
	return nil
}
