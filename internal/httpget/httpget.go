// Package httpget fetches whole bodies over HTTP the way every reader of
// remote graphs and trees needs it: timeouts on each phase, a size bound,
// transient failures retried with backoff (honouring Retry-After), and a
// non-2xx answer as a *StatusError carrying the API's {"kind","value"}.
package httpget

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	// maxBody bounds one answer: the largest public channel graphs are a
	// few MiB, so anything near this is not a graph or a tree's file.
	maxBody = 256 << 20
	// maxRetryAfter is the longest Retry-After honoured; a server asking
	// for more is treated as down rather than stalling the mirror.
	maxRetryAfter = 5 * time.Minute
)

// DefaultClient has timeouts for every phase, so an endpoint that stops
// answering fails the request (and it is retried) instead of hanging.
// The overall limit leaves room for multi-MiB graphs on slow links.
func DefaultClient(workers int) *http.Client {
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment, // air-gapped sites often reach out through one
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: time.Minute,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   workers,
	}
	return &http.Client{Transport: t, Timeout: 5 * time.Minute}
}

// StatusError is a non-2xx answer, after retries if it was retryable.
type StatusError struct {
	URL        string
	StatusCode int
	Status     string // e.g. "500 Internal Server Error"
	// Kind and Value are the endpoint's error body {"kind","value"}
	// (spec §6.8), when it sent one.
	Kind, Value string
	// Body is the start of any other body, for diagnostics.
	Body       string
	retryAfter time.Duration
}

func (g *Getter) withDefaults() *Getter {
	f := *g
	if f.Client == nil {
		f.Client = DefaultClient(4)
	}
	if f.Attempts <= 0 {
		f.Attempts = 3
	}
	if f.Backoff <= 0 {
		f.Backoff = time.Second
	}
	if f.Logger == nil {
		f.Logger = slog.New(slog.DiscardHandler)
	}
	return &f
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("GET %s: %s", e.URL, e.Status)
	switch {
	case e.Kind != "":
		s += ": " + e.Kind + ": " + e.Value
	case e.Body != "":
		s += ": " + strconv.Quote(e.Body)
	}
	return s
}

// Getter gets URLs. Zero fields get defaults: DefaultClient(4), 3
// attempts, 1 s first backoff, no logging.
type Getter struct {
	Client   *http.Client
	Attempts int
	Backoff  time.Duration
	Logger   *slog.Logger
}

// Get returns url's body, retrying transient failures with exponential
// backoff. A decoding problem is the caller's and is not retried: the
// same bytes would come back.
func (g *Getter) Get(ctx context.Context, url string) ([]byte, error) {
	f := g.withDefaults()
	delay := f.Backoff
	for attempt := 1; ; attempt++ {
		body, err := f.once(ctx, url)
		if err == nil {
			return body, nil
		}
		wait, retry := delay, ctx.Err() == nil
		var se *StatusError
		if errors.As(err, &se) {
			// The same request may succeed later after a server error or 429.
			retry = retry && (se.StatusCode >= 500 || se.StatusCode == http.StatusTooManyRequests)
			if se.retryAfter > maxRetryAfter {
				return nil, fmt.Errorf("%w (server asks to retry after %s)", err, se.retryAfter)
			}
			if se.retryAfter > 0 {
				wait = se.retryAfter
			}
		}
		if !retry || attempt >= f.Attempts {
			if attempt > 1 {
				return nil, fmt.Errorf("%w (after %d attempts)", err, attempt)
			}
			return nil, err
		}
		f.Logger.Warn("retrying", "url", url, "attempt", attempt, "err", err, "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (giving up retrying after: %v)", ctx.Err(), err)
		}
		delay *= 2
	}
}

func (f *Getter) once(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	// application/json is the one media type both a policy-engine and a
	// graph-builder accept (spec §5, §6.4).
	req.Header.Set("Accept", "application/json")
	resp, err := f.Client.Do(req)
	if err != nil {
		return nil, err // *url.Error names the URL
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the body: %w", url, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, statusError(url, resp, body)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("GET %s: body larger than %d MiB", url, maxBody>>20)
	}
	return body, nil
}

func statusError(url string, resp *http.Response, body []byte) *StatusError {
	e := &StatusError{URL: url, StatusCode: resp.StatusCode, Status: resp.Status}
	var apiErr struct{ Kind, Value string }
	if json.Unmarshal(body, &apiErr) == nil && apiErr.Kind != "" {
		e.Kind, e.Value = apiErr.Kind, apiErr.Value
	} else {
		b := bytes.TrimSpace(body)
		if len(b) > 200 {
			b = append(b[:200:200], "…"...)
		}
		e.Body = strings.ToValidUTF8(string(b), "\uFFFD")
	}
	e.retryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	return e
}

// retryAfter reads delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}
