package publish

import "github.com/upgraph/upgraph/tree/manifest"

// ErrShrink is returned (wrapped, with the numbers) when the tree to publish
// drops more of the published releases, channels or per-version graphs
// than the threshold allows, or drops an architecture (manifest.CheckShrink:
// the same guard generate and mirror apply to the tree they replace).
var ErrShrink = manifest.ErrShrink

// DefaultShrinkThreshold is the fraction of published releases, channels or
// per-version graphs a new tree may drop without Force.
const DefaultShrinkThreshold = manifest.DefaultShrinkThreshold
