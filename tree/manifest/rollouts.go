package manifest

import (
	"path"
	"strconv"
)

// RolloutDir holds the per-bucket copies of the files that differ
// between buckets: rollout/<k>/<path of the file>.
const RolloutDir = "rollout/"

// RolloutPath is bucket k's copy of the file at name.
func RolloutPath(k int, name string) string {
	return path.Join(RolloutDir, strconv.Itoa(k), name)
}

// Rollouts is what index.json records of a generation with phased
// rollouts (docs/rollouts.md). The files at their usual paths are
// upstream's answer (every release offered); bucket k reads
// rollout/<k>/<path> instead wherever Variants lists k for the path.
type Rollouts struct {
	// Buckets is N: bucket k (1..N) holds the clients of wariness in
	// ((k−1)/N, k/N]; bucket 0 is wariness 0, the canary.
	Buckets int `json:"buckets"`
	// At is the time the buckets were computed for (RFC 3339, UTC).
	At string `json:"at"`
	// NextChange is when some bucket is next offered a release (RFC 3339,
	// UTC): regenerate then. Omitted when no answer changes any more.
	NextChange string `json:"nextChange,omitempty"`
	// NoIDBucket answers clients that send neither rollout_wariness nor
	// id nor node_uuid.
	NoIDBucket int `json:"noIdBucket"`
	// Releases are the rollouts, in graph-data order.
	Releases []RolloutRelease `json:"releases"`
	// Variants lists, by path, the buckets that have their own copy.
	Variants map[string][]int `json:"variants"`
	// SharedFiles counts the graph files every bucket reads at their
	// usual path; VariantFiles the per-bucket copies (distinct contents:
	// DistinctVariants).
	SharedFiles      int `json:"sharedFiles"`
	VariantFiles     int `json:"variantFiles"`
	DistinctVariants int `json:"distinctVariants"`
}

// RolloutRelease is one rollout and its state at Rollouts.At.
type RolloutRelease struct {
	Version         string   `json:"version"`
	Channels        []string `json:"channels,omitempty"`
	File            string   `json:"file"`
	StartEpoch      int64    `json:"startEpoch"`
	StartPercentage float64  `json:"startPercentage"`
	DurationMinutes int64    `json:"durationMinutes,omitempty"`
	// Throttling is FCOS's share offered at At, from 0 to 1.
	Throttling float64 `json:"throttling"`
	// OpenBuckets counts the buckets 1..N offered the release at At.
	OpenBuckets int `json:"openBuckets"`
	// Opens[k−1] is when bucket k is first offered it (RFC 3339, UTC),
	// "" if never.
	Opens []string `json:"opens"`
}
