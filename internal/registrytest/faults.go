package registrytest

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// FaultKind selects how a Fault misbehaves.
type FaultKind int

const (
	// Status answers Fault.Code (default 503) without contacting the
	// registry, with a registry-style JSON error body.
	Status FaultKind = iota + 1
	// TooManyRequests answers 429 with "Retry-After: Fault.RetryAfter"
	// (seconds) without contacting the registry.
	TooManyRequests
	// Stall accepts the request and sends nothing, not even headers, for
	// Fault.Duration, then forwards it normally. With Duration 0 it waits
	// until the client gives up or the proxy closes.
	Stall
	// StallBody forwards the registry's headers and the first Fault.Bytes of
	// its body, then hangs for Fault.Duration before sending the rest. With
	// Duration 0 it hangs until the client gives up or the proxy closes.
	StallBody
	// Truncate forwards the registry's headers, including the full
	// Content-Length, and the first Fault.Bytes of the body, then closes the
	// connection, so the client reads io.ErrUnexpectedEOF. Bytes must be
	// smaller than the body for the cut to show.
	Truncate
)

func (k FaultKind) String() string {
	switch k {
	case Status:
		return "Status"
	case TooManyRequests:
		return "TooManyRequests"
	case Stall:
		return "Stall"
	case StallBody:
		return "StallBody"
	case Truncate:
		return "Truncate"
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// Fault describes one injected misbehaviour. Requests still count in Counts
// when a fault answers them.
type Fault struct {
	Kind FaultKind
	// Method matches the request method exactly; "" matches any.
	Method string
	// Path is a regexp matched against the URL path (no query), e.g.
	// `/blobs/` or `/manifests/4\.1\.0$`; "" matches any.
	Path string
	// Times is how many matching requests the fault fires for; 0 is forever.
	Times int

	Code       int           // Status: HTTP status, default 503
	RetryAfter int           // TooManyRequests: Retry-After seconds
	Duration   time.Duration // Stall, StallBody: hang time, 0 = until abandoned
	Bytes      int64         // StallBody, Truncate: body bytes sent first
}

func (f Fault) String() string {
	return fmt.Sprintf("%s %s %q x%d", f.Kind, f.Method, f.Path, f.Times)
}

type faultState struct {
	Fault
	path *regexp.Regexp
	used int
}

// Inject appends f to the fault list. For each request the first matching,
// not yet exhausted fault fires, so faults are consumed in injection order.
func (p *Proxy) Inject(f Fault) {
	p.t.Helper()
	if f.Kind < Status || f.Kind > Truncate {
		p.t.Fatalf("registrytest: Inject: unknown fault kind %v", f.Kind)
	}
	re, err := regexp.Compile(f.Path)
	if err != nil {
		p.t.Fatalf("registrytest: Inject %v: bad path regexp: %v", f, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, &faultState{Fault: f, path: re})
}

// ClearFaults removes all faults; the fired count is kept.
func (p *Proxy) ClearFaults() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = nil
}

// Faults returns how many times faults fired since the proxy started.
func (p *Proxy) Faults() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fired
}

func (p *Proxy) takeFault(r *http.Request) (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, fs := range p.faults {
		if fs.Times > 0 && fs.used >= fs.Times {
			continue
		}
		if fs.Method != "" && fs.Method != r.Method {
			continue
		}
		if !fs.path.MatchString(r.URL.Path) {
			continue
		}
		fs.used++
		p.fired++
		return fs.Fault, true
	}
	return Fault{}, false
}

func (p *Proxy) serveFault(w *countingWriter, r *http.Request, kind requestKind, f Fault) {
	ctx := r.Context()
	switch f.Kind {
	case Status:
		code := f.Code
		if code == 0 {
			code = http.StatusServiceUnavailable
		}
		writeRegistryError(w, code, "UNAVAILABLE", "registrytest: injected fault")
	case TooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
		writeRegistryError(w, http.StatusTooManyRequests, "TOOMANYREQUESTS", "registrytest: injected rate limit")
	case Stall:
		if !p.wait(ctx, f.Duration) {
			// Returning normally would send an empty 200; drop the
			// connection instead so a still-waiting client sees an error.
			panic(http.ErrAbortHandler)
		}
		p.forward(w, r, kind, relayAll)
	case StallBody:
		p.forward(w, r, kind, relayMode{limit: f.Bytes, then: func() bool { return p.wait(ctx, f.Duration) }})
	case Truncate:
		p.forward(w, r, kind, relayMode{limit: f.Bytes, then: func() bool { return false }})
	}
}

// writeRegistryError answers like distribution does, so clients exercise
// their real error parsing.
func writeRegistryError(w http.ResponseWriter, code int, errCode, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"errors":[{"code":%q,"message":%q}]}`+"\n", errCode, msg)
}
