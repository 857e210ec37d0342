package edge

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/tree/manifest"
)

//go:embed cloudfront_rollouts.js
var cloudFrontRolloutsJS string

// rolloutHead says what the function is, kept by compactJS. The import
// comes first: CloudFront wants it in the first lines of a function that
// reads a KeyValueStore.
const rolloutHead = "import cf from 'cloudfront';\n/* upgraph: the graph API with phased rollouts (docs/rollouts.md); per-bucket copies listed in its KeyValueStore. */\n"

// rolloutAnchor is the end of cloudfront.js's handler, where the rollout
// function takes the URI it rewrote and may move it to the bucket's copy.
const rolloutAnchor = "  req.querystring = {};\n  return req;\n}\n"

// rolloutHandler is cloudfront.js's handler line: the rollout function's
// is async, as it awaits the KeyValueStore.
const rolloutHandler = "function handler(event) {\n"

// CloudFront KeyValueStore's limits (AWS CloudFront Developer Guide,
// "Quotas: key value stores"): a key of at most 512 bytes, a value of at
// most 1 KB, a store (and its import file) of at most 5 MB.
const (
	KVSMaxKey   = 512
	KVSMaxValue = 1 << 10
	KVSMaxSize  = 5 << 20
)

// CloudFrontRolloutFunction returns the graph API function of
// CloudFrontFunction for trees with phased rollouts over n buckets
// (docs/rollouts.md): the same answers, each from the query's bucket's
// copy of its file where the tree has one. Which files have copies, for
// which buckets, it reads from the CloudFront KeyValueStore associated
// with it, loaded from CloudFrontRolloutKVS's import file: the function
// depends on n alone, and only the store changes with each generation,
// so its size does not grow with the tree.
func CloudFrontRolloutFunction(n int) (string, error) {
	if err := rollout.CheckBuckets(n); err != nil {
		return "", err
	}
	if !strings.Contains(cloudFrontJS, rolloutAnchor) || strings.Count(cloudFrontJS, rolloutHandler) != 1 {
		return "", fmt.Errorf("cloudfront.js: its handler has changed; the rollout function cannot be attached")
	}
	fn := strings.Replace(cloudFrontJS, rolloutAnchor, "  req.uri = await rolloutURI(req.uri, q);\n"+rolloutAnchor, 1)
	fn = strings.Replace(fn, rolloutHandler, "async "+rolloutHandler, 1)
	fn += strings.Replace(cloudFrontRolloutsJS, "var ROLLOUT_N = 10;\n", "var ROLLOUT_N = "+strconv.Itoa(n)+";\n", 1)
	// The graph function alone is near CloudFront's limit: comments and
	// indentation go (no line of the sources is a comment inside a string
	// or depends on leading white space).
	fn = rolloutHead + compactJS(fn)
	if len(fn) > CloudFrontMaxSize {
		return "", fmt.Errorf("the rollout function is %d bytes, more than CloudFront's %d", len(fn), CloudFrontMaxSize)
	}
	return fn, nil
}

// kvsEntry is one entry of a KeyValueStore import file.
type kvsEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// CloudFrontRolloutKVS returns the CloudFront KeyValueStore import file
// (the documented source format, {"data":[{"key":…,"value":…}]}) of a
// tree's rollouts: a key per graph file that has per-bucket copies, its
// path in the tree (graph/<arch>/<channel>.json or
// graph/<arch>/<channel>/<version>.json), whose value names the buckets
// that read rollout/<k>/<path> instead: "K-" for K..N (as they are: a
// bucket hides what the bucket below hides), else "K1,K2,…". Files
// without copies have no key. Keys are sorted, so the file is
// deterministic. An entry or a file past the store's limits is refused,
// naming the file.
func CloudFrontRolloutKVS(ro *manifest.Rollouts) ([]byte, error) {
	if ro == nil {
		return nil, fmt.Errorf("the tree has no phased rollouts")
	}
	names := make([]string, 0, len(ro.Variants))
	for name, ks := range ro.Variants {
		if strings.HasPrefix(name, "graph/") && strings.HasSuffix(name, ".json") && len(ks) > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	data := make([]kvsEntry, 0, len(names))
	for _, name := range names {
		ks := ro.Variants[name]
		var value string
		if suffix(ks, ro.Buckets) {
			value = strconv.Itoa(ks[0]) + "-"
		} else {
			parts := make([]string, len(ks))
			for i, k := range ks {
				parts[i] = strconv.Itoa(k)
			}
			value = strings.Join(parts, ",")
		}
		if len(name) > KVSMaxKey {
			return nil, fmt.Errorf("%s: a path of %d bytes, longer than a CloudFront KeyValueStore key (%d bytes): serve this tree with nginx or upgraph serve", name, len(name), KVSMaxKey)
		}
		if len(value) > KVSMaxValue {
			return nil, fmt.Errorf("%s: its buckets (%d) take %d bytes, more than a CloudFront KeyValueStore value (%d bytes): use fewer --rollout-buckets, or serve this tree with nginx or upgraph serve", name, len(ks), len(value), KVSMaxValue)
		}
		data = append(data, kvsEntry{Key: name, Value: value})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Data []kvsEntry `json:"data"`
	}{data}); err != nil {
		return nil, err
	}
	if b.Len() > KVSMaxSize {
		return nil, fmt.Errorf("the KeyValueStore import file for %d varying graph files is %d bytes, more than CloudFront's %d: serve this tree with nginx or upgraph serve, or roll out in fewer channels at once", len(data), b.Len(), KVSMaxSize)
	}
	return b.Bytes(), nil
}

// CloudFrontRollouts is the graph function and the KeyValueStore import
// file for the tree at root, which must have phased rollouts (upgraph
// edge cloudfront --root --kvs).
func CloudFrontRollouts(root string) (fn string, kvs []byte, err error) {
	m, err := manifest.Read(root)
	if err != nil {
		return "", nil, err
	}
	if m.Rollouts == nil {
		return "", nil, fmt.Errorf("%s: the tree has no phased rollouts", root)
	}
	if kvs, err = CloudFrontRolloutKVS(m.Rollouts); err != nil {
		return "", nil, fmt.Errorf("%s: %w", root, err)
	}
	if fn, err = CloudFrontRolloutFunction(m.Rollouts.Buckets); err != nil {
		return "", nil, fmt.Errorf("%s: %w", root, err)
	}
	return fn, kvs, nil
}

// suffix reports whether ks is exactly ks[0]..n.
func suffix(ks []int, n int) bool {
	return slices.IsSorted(ks) && ks[len(ks)-1] == n && len(ks) == n-ks[0]+1
}

// compactJS drops comment lines, blank lines and indentation.
func compactJS(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		t := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(t, "//") || strings.TrimSpace(t) == "" {
			continue
		}
		b.WriteString(t)
	}
	return b.String()
}
