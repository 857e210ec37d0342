// Package mirror re-hosts an existing Cincinnati endpoint (the
// "cincinnati:URL" release source): it fetches every requested
// channel × arch graph from a policy-engine and reassembles the graph a
// graph-builder would have served, as far as the endpoint reveals it, so
// that the generator renders the same tree from it.
//
// A policy-engine answer is a filtered view (spec §6.6, §6.7): only the
// channel's releases of one arch, with "+arch" stripped from versions and
// the arch metadata key removed. Fetch undoes the arch filter on each
// answer and takes the union; the channel filter needs no undoing because
// every release keeps its channels metadata key, which is what the
// generator's own channel filter reads.
package mirror

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/upgraph/upgraph/internal/httpget"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/policy"
)

// DefaultArches are the architectures OpenShift publishes graphs for.
var DefaultArches = []string{"amd64", "arm64", "multi", "ppc64le", "s390x"}

// ErrInconsistent marks answers that contradict each other, which
// happens when the endpoint's graph changes while it is being mirrored;
// running the mirror again usually succeeds.
var ErrInconsistent = errors.New("the endpoint's graphs disagree (did it change between requests?)")

// Options configure Fetch.
type Options struct {
	// URL is the policy-engine graph endpoint, e.g.
	// https://api.openshift.com/api/upgrades_info/v1/graph. Its query, if
	// any, is kept; channel and arch are appended.
	URL      string
	Channels []string
	// Arches default to DefaultArches.
	Arches []string
	// Client nil: a client with connect, header and overall timeouts.
	Client *http.Client
	// Workers bounds concurrent requests (default 4).
	Workers int
	// Attempts per request, counting the first (default 3). Transport
	// errors, 5xx and 429 are retried.
	Attempts int
	// Backoff is the delay before the first retry, doubled for each
	// further one (default 1s); a Retry-After header replaces it.
	Backoff time.Duration
	Logger  *slog.Logger
}

// Fetch downloads every channel × arch graph of opts and returns their
// union as a graph-builder graph: versions carry "+arch" again, releases
// carry the arch metadata key, and conditional edges are regrouped by
// risk list, as edge-add-remove groups them. The graph is checked to
// reproduce every answer when the generator filters it for that channel
// and arch; answers that contradict each other are an ErrInconsistent.
func Fetch(ctx context.Context, opts Options) (*graph.Graph, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.Client == nil {
		c := httpget.DefaultClient(opts.Workers)
		defer c.CloseIdleConnections()
		opts.Client = c
	}
	var jobs []job
	for _, c := range opts.Channels {
		for _, a := range opts.Arches {
			jobs = append(jobs, job{channel: c, arch: a, url: requestURL(opts.URL, c, a)})
		}
	}
	start := time.Now()
	u := newUnion(opts.Logger)
	err = fetchAll(ctx, opts, jobs, u.add)
	if err != nil {
		return nil, err
	}
	g, err := u.finish()
	if err != nil {
		return nil, err
	}
	opts.Logger.Info("mirrored", "url", opts.URL, "graphs", len(jobs), "releases", g.Len(),
		"edges", g.EdgeCount(), "conditionalGroups", len(g.Conditional), "duration", time.Since(start))
	return g, nil
}

func (o Options) withDefaults() (Options, error) {
	u, err := url.Parse(o.URL)
	if err != nil {
		return o, fmt.Errorf("mirror: endpoint URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, fmt.Errorf("mirror: endpoint URL %q: want http:// or https:// and a host", o.URL)
	}
	u.Fragment, u.RawFragment = "", ""
	o.URL = u.String()
	if o.Arches == nil {
		o.Arches = DefaultArches
	}
	o.Channels, o.Arches = unique(o.Channels), unique(o.Arches)
	if len(o.Channels) == 0 || len(o.Arches) == 0 {
		return o, fmt.Errorf("mirror: %s: no channels or no arches to fetch", o.URL)
	}
	// The endpoint would answer 400 for these; saying so before any request
	// names the culprit without a round trip per arch.
	for _, c := range o.Channels {
		if !policy.ChannelPattern.MatchString(c) {
			return o, fmt.Errorf("mirror: channel %q does not match %s", c, policy.ChannelPattern)
		}
	}
	for _, a := range o.Arches {
		if !policy.ArchPattern.MatchString(a) {
			return o, fmt.Errorf("mirror: arch %q does not match %s", a, policy.ArchPattern)
		}
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

func unique(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// job is one request.
type job struct{ channel, arch, url string }

// requestURL appends the parameters to the raw query instead of
// re-encoding it, so the endpoint sees its own parameters exactly as
// configured; the policy-engine lets the last of repeated keys win, so
// ours take precedence over any already there.
func requestURL(base, channel, arch string) string {
	u, _ := url.Parse(base) // validated by withDefaults
	q := "channel=" + url.QueryEscape(channel) + "&arch=" + url.QueryEscape(arch)
	if u.RawQuery != "" {
		q = u.RawQuery + "&" + q
	}
	u.RawQuery, u.ForceQuery = q, false
	return u.String()
}

// fetchAll fetches jobs on a bounded pool and hands the answers to merge
// in job order (parallel.InOrder), so that the union and any error it
// reports do not depend on timing. The first error stops the rest.
// Errors name the channel and arch, and the URL through the underlying
// error.
func fetchAll(ctx context.Context, opts Options, jobs []job, merge func(job, *served) error) error {
	get := &httpget.Getter{Client: opts.Client, Attempts: opts.Attempts, Backoff: opts.Backoff, Logger: opts.Logger}
	err := parallel.InOrder(ctx, opts.Workers, len(jobs), func(ctx context.Context, i int) (*served, error) {
		j, start := jobs[i], time.Now()
		body, err := get.Get(ctx, j.url)
		var doc *served
		if err == nil {
			doc, err = decode(j.url, body)
		}
		if err != nil {
			return nil, fmt.Errorf("channel %s, arch %s: %w", j.channel, j.arch, err)
		}
		opts.Logger.Debug("fetched", "url", j.url, "releases", len(doc.nodes), "edges", len(doc.edges), "bytes", len(body), "duration", time.Since(start))
		return doc, nil
	}, func(i int, doc *served) error { return merge(jobs[i], doc) })
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return fmt.Errorf("mirror %s: %w", opts.URL, err)
	}
	return err
}
