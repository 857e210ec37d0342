// Package registry is how upgraph talks to container registries: the
// credentials, trust roots, plain-HTTP policy, retries and stall timeouts
// shared by the release scraper and graph-data images. It configures
// go-containerregistry; it does not wrap its API.
package registry

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Options configure registry access. The zero value uses the docker
// config's credentials, the system trust roots, HTTPS (plain HTTP only for
// loopback, as go-containerregistry decides), four attempts per request,
// Retry-After honoured up to 2 minutes and a 60 s stall timeout.
type Options struct {
	// Keychain finds credentials (nil: authn.DefaultKeychain, i.e.
	// $DOCKER_CONFIG/config.json and credential helpers).
	Keychain authn.Keychain
	// CAFile is a PEM bundle trusted in addition to the system roots.
	CAFile string
	// PlainHTTP talks HTTP instead of HTTPS to every registry.
	PlainHTTP bool
	// Attempts per request, including the first (0: 4).
	Attempts int
	// Backoff is the wait before the first retry, doubled each time
	// (0: 500 ms). A Retry-After header is honoured up to MaxWait.
	Backoff time.Duration
	MaxWait time.Duration
	// Jobs bounds concurrent blob downloads (0: 16). go-containerregistry's
	// default of 4 would throttle a scrape with more workers.
	Jobs int
	// StallTimeout fails a request that receives no bytes, headers or
	// body, for this long (0: 60 s).
	StallTimeout time.Duration
	Logger       *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Keychain == nil {
		o.Keychain = authn.DefaultKeychain
	}
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 2 * time.Minute
	}
	if o.Jobs <= 0 {
		o.Jobs = 16
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = 60 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Client is a configured connection to registries: a go-containerregistry
// Puller (which keeps one authenticated transport per repository, so a
// scrape of thousands of tags pings and authenticates once) and counters.
type Client struct {
	Puller *remote.Puller
	Stats  *Stats
	opts   Options
}

// TLSConfig trusts the system's roots and the PEM certificates in caFile
// (nil when caFile is empty: the default configuration).
func TLSConfig(caFile string) (*tls.Config, error) {
	if caFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca-file %s: no PEM certificates found", caFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// New builds a Client.
func New(opts Options) (*Client, error) {
	opts = opts.withDefaults()
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.ResponseHeaderTimeout = opts.StallTimeout
	base.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	base.MaxIdleConnsPerHost = 64
	tlsConfig, err := TLSConfig(opts.CAFile)
	if err != nil {
		return nil, err
	}
	if tlsConfig != nil {
		base.TLSClientConfig = tlsConfig
	}
	stats := &Stats{}
	rt := &retryTransport{inner: base, opts: opts, stats: stats}
	puller, err := remote.NewPuller(
		remote.WithTransport(rt),
		remote.WithAuthFromKeychain(opts.Keychain),
		remote.WithUserAgent("upgraph"),
		remote.WithJobs(opts.Jobs),
		// Retries are ours: go-containerregistry's ignore Retry-After.
		remote.WithRetryBackoff(remote.Backoff{Steps: 1}),
		remote.WithRetryPredicate(func(error) bool { return false }),
		remote.WithRetryStatusCodes(),
	)
	if err != nil {
		return nil, err
	}
	return &Client{Puller: puller, Stats: stats, opts: opts}, nil
}

// Options returns the options the client was built with, defaults filled in.
func (c *Client) Options() Options { return c.opts }

// Repository parses "HOST/REPO" (an optional http:// or https:// scheme
// sets the protocol, as upstream's registry setting does).
func (c *Client) Repository(s string) (name.Repository, error) {
	s, opts := c.nameOptions(s)
	repo, err := name.NewRepository(s, opts...)
	if err != nil {
		return name.Repository{}, fmt.Errorf("repository %q: %w", s, err)
	}
	return repo, nil
}

// Reference parses an image reference ("HOST/REPO:TAG" or "…@sha256:…").
func (c *Client) Reference(s string) (name.Reference, error) {
	s, opts := c.nameOptions(s)
	ref, err := name.ParseReference(s, opts...)
	if err != nil {
		return nil, fmt.Errorf("image reference %q: %w", s, err)
	}
	return ref, nil
}

func (c *Client) nameOptions(s string) (string, []name.Option) {
	opts := []name.Option{name.StrictValidation}
	switch {
	case len(s) > 7 && s[:7] == "http://":
		s = s[7:]
		opts = append(opts, name.Insecure)
	case len(s) > 8 && s[:8] == "https://":
		s = s[8:]
	case c.opts.PlainHTTP:
		opts = append(opts, name.Insecure)
	}
	return s, opts
}
