package site

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// metrics are exported in the Prometheus text format. A handful of series
// do not need a client library.
type metrics struct {
	requests sync.Map // requestKey → *atomic.Int64; lock-free on the request path

	mu        sync.Mutex
	fallbacks map[string]*atomic.Int64 // reason
	reloads   map[string]*atomic.Int64 // result

	filesChanged atomic.Int64             // files found not to match index.json (stamp.go)
	refused      map[string]*atomic.Int64 // generations Offer refused, by reason (under mu)

	buckets []float64
	counts  []atomic.Int64 // per bucket, cumulative at export
	count   atomic.Int64
	sumNs   atomic.Int64
}

var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}

func newMetrics() *metrics {
	return &metrics{
		fallbacks: map[string]*atomic.Int64{},
		reloads:   map[string]*atomic.Int64{},
		refused:   map[string]*atomic.Int64{},
		buckets:   latencyBuckets,
		counts:    make([]atomic.Int64, len(latencyBuckets)),
	}
}

func counter[K comparable](mu *sync.Mutex, m map[K]*atomic.Int64, k K) *atomic.Int64 {
	mu.Lock()
	defer mu.Unlock()
	c, ok := m[k]
	if !ok {
		c = &atomic.Int64{}
		m[k] = c
	}
	return c
}

type requestKey struct {
	route  string
	status int
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	k := requestKey{route, status}
	c, ok := m.requests.Load(k)
	if !ok {
		c, _ = m.requests.LoadOrStore(k, &atomic.Int64{})
	}
	c.(*atomic.Int64).Add(1)
	s := d.Seconds()
	for i, b := range m.buckets {
		if s <= b {
			m.counts[i].Add(1)
			break
		}
	}
	m.count.Add(1)
	m.sumNs.Add(d.Nanoseconds())
}

func (m *metrics) fallback(reason string) { counter(&m.mu, m.fallbacks, reason).Add(1) }
func (m *metrics) reload(result string)   { counter(&m.mu, m.reloads, result).Add(1) }

// write renders every series; gen may be nil before the first load.
func (m *metrics) write(w io.Writer, gen *Generation, cacheBytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintln(w, "# HELP upgraph_http_requests_total Requests by route and status.")
	fmt.Fprintln(w, "# TYPE upgraph_http_requests_total counter")
	var keys []requestKey
	m.requests.Range(func(k, _ any) bool { keys = append(keys, k.(requestKey)); return true })
	slices.SortFunc(keys, func(a, b requestKey) int {
		if a.route != b.route {
			return strings.Compare(a.route, b.route)
		}
		return a.status - b.status
	})
	for _, k := range keys {
		c, _ := m.requests.Load(k)
		fmt.Fprintf(w, "upgraph_http_requests_total{route=%q,status=\"%d\"} %d\n", k.route, k.status, c.(*atomic.Int64).Load())
	}
	fmt.Fprintln(w, "# HELP upgraph_http_request_duration_seconds Time to answer a request.")
	fmt.Fprintln(w, "# TYPE upgraph_http_request_duration_seconds histogram")
	var cum int64
	for i, b := range m.buckets {
		cum += m.counts[i].Load()
		fmt.Fprintf(w, "upgraph_http_request_duration_seconds_bucket{le=%q} %d\n", strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	fmt.Fprintf(w, "upgraph_http_request_duration_seconds_bucket{le=\"+Inf\"} %d\n", m.count.Load())
	fmt.Fprintf(w, "upgraph_http_request_duration_seconds_sum %g\n", float64(m.sumNs.Load())/1e9)
	fmt.Fprintf(w, "upgraph_http_request_duration_seconds_count %d\n", m.count.Load())
	writeLabelled(w, "upgraph_graph_fallbacks_total", "Graph requests answered with a fallback: unknown_channel (empty graph) or unknown_version (channel graph).", "reason", m.fallbacks)
	writeLabelled(w, "upgraph_generation_reloads_total", "Attempts to load a new generation, by result.", "result", m.reloads)
	writeLabelled(w, "upgraph_generations_refused_total", "New generations refused, by reason: shrink (they would shrink or empty what clusters see), or the threat their TUF metadata failed to rule out (serve --trust: tamper, mix-and-match, rollback, freeze, wrong-key, root-rotation, unsigned).", "reason", m.refused)
	writeCounter(w, "upgraph_files_changed_total", "Times a file of the served tree was found to no longer match its size or digest in index.json.", m.filesChanged.Load())
	fmt.Fprintln(w, "# HELP upgraph_cache_bytes Bytes of file content held in memory.")
	fmt.Fprintln(w, "# TYPE upgraph_cache_bytes gauge")
	fmt.Fprintf(w, "upgraph_cache_bytes %d\n", cacheBytes)
	if gen != nil {
		fmt.Fprintln(w, "# HELP upgraph_generation_age_seconds Age of the served generation (since generatedAt).")
		fmt.Fprintln(w, "# TYPE upgraph_generation_age_seconds gauge")
		fmt.Fprintf(w, "upgraph_generation_age_seconds %g\n", math.Max(0, time.Since(gen.GeneratedAt).Seconds()))
		fmt.Fprintln(w, "# HELP upgraph_generation_info The served generation.")
		fmt.Fprintln(w, "# TYPE upgraph_generation_info gauge")
		fmt.Fprintf(w, "upgraph_generation_info{id=%q} 1\n", gen.ID)
		if left := gen.aheadLeft.Load(); left >= 0 {
			fmt.Fprintln(w, "# HELP upgraph_verify_ahead_remaining_files Files of the served generation the background digest check has still to read.")
			fmt.Fprintln(w, "# TYPE upgraph_verify_ahead_remaining_files gauge")
			fmt.Fprintf(w, "upgraph_verify_ahead_remaining_files %d\n", left)
		}
	}
}

func writeCounter(w io.Writer, name, help string, v int64) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
}

func writeLabelled(w io.Writer, name, help, label string, m map[string]*atomic.Int64) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%s{%s=%q} %d\n", name, label, k, m[k].Load())
	}
}

// refuse counts a generation refused for reason.
func (m *metrics) refuse(reason string) { counter(&m.mu, m.refused, reason).Add(1) }
