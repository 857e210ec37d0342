package s3test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
)

// FaultKind selects how a Fault misbehaves.
type FaultKind int

const (
	// InternalError answers 500 with S3's InternalError XML body, without
	// contacting the server.
	InternalError FaultKind = iota + 1
	// SlowDown answers 503 with S3's SlowDown XML body (S3's throttling
	// answer), without contacting the server.
	SlowDown
	// Reset reads half of the request body, then resets the TCP connection
	// (RST, not FIN), so the client sees "connection reset by peer" mid
	// request. The server never sees the request.
	Reset
)

func (k FaultKind) String() string {
	switch k {
	case InternalError:
		return "InternalError"
	case SlowDown:
		return "SlowDown"
	case Reset:
		return "Reset"
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// Fault describes one injected misbehaviour. Requests answered by a fault
// are still logged (Request.Fault is set).
type Fault struct {
	Kind FaultKind
	// Method matches the request method exactly; "" matches any.
	Method string
	// Key is a regexp matched against the object key ("" for bucket
	// requests), e.g. `index\.json$` or `/graph/`; "" matches any request.
	Key string
	// After lets this many matching requests through before firing, e.g.
	// to cut the connection after K uploads.
	After int
	// Times is how many matching requests the fault fires for after that;
	// 0 is forever.
	Times int
}

func (f Fault) String() string {
	return fmt.Sprintf("%s %s %q after %d x%d", f.Kind, f.Method, f.Key, f.After, f.Times)
}

type faultState struct {
	Fault
	key  *regexp.Regexp
	seen int // matching requests so far, let through or not
}

// Inject appends f to the fault list. For each request the first matching
// fault that is not yet exhausted decides, so faults apply in injection
// order; a fault still in its After window lets the request through
// without consulting later faults.
func (p *Proxy) Inject(f Fault) {
	p.t.Helper()
	if f.Kind < InternalError || f.Kind > Reset {
		p.t.Fatalf("s3test: Inject: unknown fault kind %v", f.Kind)
	}
	re, err := regexp.Compile(f.Key)
	if err != nil {
		p.t.Fatalf("s3test: Inject %v: bad key regexp: %v", f, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, &faultState{Fault: f, key: re})
}

// ClearFaults removes all faults; the fired count is kept.
func (p *Proxy) ClearFaults() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = nil
}

// Fired returns how many requests faults answered since the proxy started.
func (p *Proxy) Fired() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fired
}

func (p *Proxy) takeFault(req Request) (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, fs := range p.faults {
		if fs.Method != "" && fs.Method != req.Method {
			continue
		}
		if fs.Fault.Key != "" && !fs.key.MatchString(req.Key) {
			continue
		}
		if fs.Times > 0 && fs.seen >= fs.After+fs.Times {
			continue // exhausted
		}
		fs.seen++
		if fs.seen <= fs.After {
			return Fault{}, false
		}
		p.fired++
		return fs.Fault, true
	}
	return Fault{}, false
}

func (p *Proxy) serveFault(w http.ResponseWriter, r *http.Request, f Fault) {
	switch f.Kind {
	case InternalError:
		writeS3Error(w, r, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
	case SlowDown:
		writeS3Error(w, r, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
	case Reset:
		resetConnection(w, r)
	}
}

// writeS3Error answers as S3 does, so clients exercise their real error
// parsing and retry classification.
func writeS3Error(w http.ResponseWriter, r *http.Request, code int, s3Code, msg string) {
	// Reading the body first keeps the connection reusable, as S3 does.
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("x-amz-request-id", "s3test-fault")
	w.WriteHeader(code)
	if r.Method == http.MethodHead {
		return
	}
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<Error><Code>%s</Code><Message>%s</Message><Resource>%s</Resource><RequestId>s3test-fault</RequestId></Error>`,
		s3Code, msg, r.URL.Path)
}

// resetConnection takes half of the body, then closes the socket with
// SO_LINGER 0, which makes the kernel send RST.
func resetConnection(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > 0 {
		_, _ = io.CopyN(io.Discard, r.Body, r.ContentLength/2)
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // cannot hijack: still cut the connection
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
