package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Stats counts what went over the wire, for the scrape summary and the
// benchmark's "requests and bytes" figures.
type Stats struct {
	Requests atomic.Int64
	Retries  atomic.Int64
	// BodyBytes counts response body bytes read by the caller.
	BodyBytes atomic.Int64
}

// retryTransport retries idempotent requests on 5xx, 429 (honouring
// Retry-After), 408 and network failures, and fails requests whose
// response stalls. go-containerregistry's own retry is switched off
// because it ignores Retry-After.
type retryTransport struct {
	inner http.RoundTripper
	opts  Options
	stats *Stats
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// Only reads are retried; a token POST is not repeated behind the
	// caller's back.
	retryable := req.Method == http.MethodGet || req.Method == http.MethodHead
	wait := t.opts.Backoff
	for attempt := 1; ; attempt++ {
		resp, cancel, err := t.once(req)
		if attempt >= t.opts.Attempts || !retryable {
			return resp, err
		}
		var delay time.Duration
		switch {
		case err != nil:
			if !retryableError(err) || req.Context().Err() != nil {
				return nil, err
			}
			delay = wait
		case retryableStatus(resp.StatusCode):
			var ok bool
			if delay, ok = retryAfter(resp.Header.Get("Retry-After"), wait, t.opts.MaxWait); !ok {
				// Asked to come back later than we are willing to wait:
				// coming back early would only use up the attempts.
				return resp, nil
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			cancel()
		default:
			return resp, nil
		}
		t.stats.Retries.Add(1)
		t.opts.Logger.Debug("registry request retried", "method", req.Method, "url", req.URL.Redacted(), "attempt", attempt, "wait", delay, "error", describe(resp, err))
		timer := time.NewTimer(delay)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
		wait *= 2
	}
}

// once sends one attempt under a watchdog that cancels it if no header or
// body byte arrives for StallTimeout. The clock runs between the caller's
// reads, so callers must consume bodies promptly (the scraper and the
// graph-data reader stream straight into decompressors). The returned cancel releases the
// attempt when the caller discards the response.
func (t *retryTransport) once(req *http.Request) (*http.Response, context.CancelFunc, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	stall := fmt.Errorf("%s %s: no data for %s: %w", req.Method, req.URL.Redacted(), t.opts.StallTimeout, errStalled)
	watchdog := time.AfterFunc(t.opts.StallTimeout, func() { cancel(stall) })
	t.stats.Requests.Add(1)
	resp, err := t.inner.RoundTrip(req.WithContext(ctx))
	if err != nil {
		watchdog.Stop()
		if cause := context.Cause(ctx); errors.Is(cause, errStalled) {
			err = cause
		}
		cancel(nil)
		return nil, func() {}, err
	}
	watchdog.Reset(t.opts.StallTimeout)
	release := func() { watchdog.Stop(); cancel(nil) }
	resp.Body = &watchedBody{ReadCloser: resp.Body, ctx: ctx, watchdog: watchdog, stall: t.opts.StallTimeout, release: release, stats: t.stats}
	if strings.HasSuffix(req.URL.Path, "/tags/list") {
		resp.Body = &boundedBody{ReadCloser: resp.Body, left: MaxTagListPage, url: req.URL.Redacted()}
	}
	return resp, release, nil
}

// MaxTagListPage bounds one page of a repository's tag list, which
// go-containerregistry decodes whole from the body: about two million
// tags, where registries page by the hundred or thousand.
const MaxTagListPage = 64 << 20

// boundedBody fails a read once more than left bytes have come.
type boundedBody struct {
	io.ReadCloser
	left int64
	url  string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("GET %s: more than %d bytes in one page of the tag list", b.url, MaxTagListPage)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, fmt.Errorf("GET %s: more than %d bytes in one page of the tag list", b.url, MaxTagListPage)
	}
	return n, err
}

var errStalled = errors.New("stalled")

type watchedBody struct {
	io.ReadCloser
	ctx      context.Context
	watchdog *time.Timer
	stall    time.Duration
	release  func()
	stats    *Stats
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.stats.BodyBytes.Add(int64(n))
	if n > 0 {
		b.watchdog.Reset(b.stall)
	}
	if err != nil && err != io.EOF {
		if cause := context.Cause(b.ctx); errors.Is(cause, errStalled) {
			err = cause
		}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500 && code != http.StatusNotImplemented
}

// retryableError is true for failures a second attempt may not meet:
// resets, timeouts, stalls, truncated responses. TLS and protocol
// mismatches are not retried (go-containerregistry probes https and http
// in parallel on loopback and expects one of them to fail fast).
func retryableError(err error) bool {
	var netErr net.Error
	return errors.Is(err, errStalled) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &netErr) && netErr.Timeout()
}

// Retryable reports whether a failed registry operation is worth another
// attempt from the top, e.g. a blob whose body was cut off mid-stream
// (which the transport cannot retry: it has already returned the response).
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return retryableError(err)
}

// retryAfter reads a Retry-After header (seconds or an HTTP date); ok is
// false when it asks for more than limit.
func retryAfter(h string, fallback, limit time.Duration) (d time.Duration, ok bool) {
	d = fallback
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		d = time.Duration(s) * time.Second
	} else if at, err := http.ParseTime(h); err == nil {
		d = time.Until(at)
	}
	return max(d, 0), d <= limit
}

func describe(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}
