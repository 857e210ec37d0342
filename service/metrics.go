package service

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/upgraph/upgraph/release/scrape"
	"github.com/upgraph/upgraph/site/publish"
)

// Metrics is what the service adds to serve's /metrics: the inputs,
// the refreshes and the publishes. None of it bears on /readyz, which
// only says whether a generation is served: a registry outage must not
// take a serving replica out of its Service.
type Metrics struct {
	mu          sync.Mutex
	inputs      map[string]*inputMetrics
	results     map[string]int64
	lastSuccess time.Time // last refresh that ended generated or unchanged
	phases      map[string]time.Duration
	scrape      struct{ tags, releases, inspected, cacheHits int }
	publishes   map[string]int64
	uploaded    int
	uploadBytes int64
	lastPublish time.Time
}

type inputMetrics struct {
	source, digest string
	up             bool
	errors         int64
	lastSuccess    time.Time
}

// NewMetrics returns metrics with no refresh counted yet.
func NewMetrics() *Metrics {
	return &Metrics{inputs: map[string]*inputMetrics{}, results: map[string]int64{},
		phases: map[string]time.Duration{}, publishes: map[string]int64{}}
}

// input records one attempt to resolve an input.
func (m *Metrics) input(name, source, digest string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	in := m.inputs[name]
	if in == nil {
		in = &inputMetrics{}
		m.inputs[name] = in
	}
	in.source, in.up = source, err == nil
	if err != nil {
		in.errors++
		return
	}
	in.digest, in.lastSuccess = digest, time.Now()
}

func (m *Metrics) phase(name string, start time.Time) {
	m.mu.Lock()
	m.phases[name] = time.Since(start)
	m.mu.Unlock()
}

func (m *Metrics) scraped(s scrape.Stats, releases int) {
	m.mu.Lock()
	m.scrape.tags, m.scrape.releases, m.scrape.inspected, m.scrape.cacheHits = s.Tags, releases, s.Inspected, s.CacheHits
	m.mu.Unlock()
}

func (m *Metrics) refreshed(result string, start time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.results[result]++
	m.phases["total"] = time.Since(start)
	if result == Generated || result == Unchanged {
		m.lastSuccess = time.Now()
	}
}

func (m *Metrics) published(rep *publish.Report, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.publishes["failed"]++
		return
	}
	m.publishes["ok"]++
	m.uploaded, m.uploadBytes, m.lastPublish = rep.Uploaded, rep.UploadedBytes, time.Now()
}

// Write renders the series in Prometheus' text format, each family in a
// fixed order and its series sorted, so that two scrapes compare.
func (m *Metrics) Write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.inputs))
	for n := range m.inputs {
		names = append(names, n)
	}
	slices.Sort(names)
	family(w, "upgraph_input_info", "gauge", "Each input, where it is read from and the digest it resolved to last.")
	for _, n := range names {
		in := m.inputs[n]
		fmt.Fprintf(w, "upgraph_input_info{input=%q,source=%q,digest=%q} 1\n", n, in.source, in.digest)
	}
	family(w, "upgraph_input_up", "gauge", "1 if the input's last read succeeded, 0 if it failed (a registry outage).")
	for _, n := range names {
		fmt.Fprintf(w, "upgraph_input_up{input=%q} %d\n", n, b2i(m.inputs[n].up))
	}
	family(w, "upgraph_input_errors_total", "counter", "Failed reads of each input.")
	for _, n := range names {
		fmt.Fprintf(w, "upgraph_input_errors_total{input=%q} %d\n", n, m.inputs[n].errors)
	}
	family(w, "upgraph_input_last_success_timestamp_seconds", "gauge", "When each input was last read successfully.")
	for _, n := range names {
		fmt.Fprintf(w, "upgraph_input_last_success_timestamp_seconds{input=%q} %s\n", n, unix(m.inputs[n].lastSuccess))
	}
	family(w, "upgraph_refresh_total", "counter", "Refreshes by result: generated, unchanged, refused (shrink guard), failed.")
	for _, r := range []string{Generated, Unchanged, Refused, Failed} {
		fmt.Fprintf(w, "upgraph_refresh_total{result=%q} %d\n", r, m.results[r])
	}
	family(w, "upgraph_refresh_last_success_timestamp_seconds", "gauge", "When a refresh last ended with every input read (generated or unchanged).")
	fmt.Fprintf(w, "upgraph_refresh_last_success_timestamp_seconds %s\n", unix(m.lastSuccess))
	family(w, "upgraph_refresh_phase_seconds", "gauge", "Time each phase of the last refresh that reached it took.")
	phases := make([]string, 0, len(m.phases))
	for p := range m.phases {
		phases = append(phases, p)
	}
	slices.Sort(phases)
	for _, p := range phases {
		fmt.Fprintf(w, "upgraph_refresh_phase_seconds{phase=%q} %g\n", p, m.phases[p].Seconds())
	}
	family(w, "upgraph_scrape_tags", "gauge", "Tags of the releases repository at the last scrape.")
	fmt.Fprintf(w, "upgraph_scrape_tags %d\n", m.scrape.tags)
	family(w, "upgraph_scrape_releases", "gauge", "Release images found at the last scrape.")
	fmt.Fprintf(w, "upgraph_scrape_releases %d\n", m.scrape.releases)
	family(w, "upgraph_scrape_inspected", "gauge", "Images the last scrape read (not in the cache).")
	fmt.Fprintf(w, "upgraph_scrape_inspected %d\n", m.scrape.inspected)
	if len(m.publishes) > 0 {
		family(w, "upgraph_publish_total", "counter", "Publishes to --publish by result.")
		for _, r := range []string{"ok", "failed"} {
			fmt.Fprintf(w, "upgraph_publish_total{result=%q} %d\n", r, m.publishes[r])
		}
		family(w, "upgraph_publish_uploaded_objects", "gauge", "Objects the last successful publish uploaded.")
		fmt.Fprintf(w, "upgraph_publish_uploaded_objects %d\n", m.uploaded)
		family(w, "upgraph_publish_uploaded_bytes", "gauge", "Bytes the last successful publish uploaded.")
		fmt.Fprintf(w, "upgraph_publish_uploaded_bytes %d\n", m.uploadBytes)
		family(w, "upgraph_publish_last_success_timestamp_seconds", "gauge", "When a publish last succeeded.")
		fmt.Fprintf(w, "upgraph_publish_last_success_timestamp_seconds %s\n", unix(m.lastPublish))
	}
}

func family(w io.Writer, name, kind, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unix is a timestamp in seconds, 0 for never.
func unix(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return fmt.Sprintf("%.3f", float64(t.UnixMilli())/1000)
}
