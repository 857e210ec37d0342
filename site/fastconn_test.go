package site_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// graphRequests returns n requests for the tree's graphs, round robin.
func graphRequests(t *testing.T, n int, headers string) []string {
	t.Helper()
	m, err := manifest.Read(treeDir)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, g := range m.Graphs {
		all = append(all, fmt.Sprintf("GET /graph?channel=%s&arch=%s HTTP/1.1\r\nHost: x\r\n%s\r\n", g.Channel, g.Arch, headers))
		for _, v := range g.Versions {
			all = append(all, fmt.Sprintf("GET /graph?channel=%s&arch=%s&version=%s HTTP/1.1\r\nHost: x\r\n%s\r\n", g.Channel, g.Arch, v, headers))
		}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = all[i%len(all)]
	}
	return out
}

// exchangeChunks writes chunks on one connection, each once the server
// has had time to read the one before on its own, then reads n responses.
func exchangeChunks(t *testing.T, addr string, chunks []string, n int) []string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	go func() {
		for _, chunk := range chunks {
			if _, err := io.WriteString(c, chunk); err != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	br := bufio.NewReader(c)
	var out []string
	for range n {
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: reading response %d of %d: %v", addr, len(out)+1, n, err)
		}
		out = append(out, describe(res))
	}
	return out
}

// TestFastPathPartialReads: requests that arrive in pieces, several to a
// read, or more than the fast path's buffer holds at once are answered as
// net/http answers them, in order.
func TestFastPathPartialReads(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	plain, fast, srv := servers(t, h)
	reqs := graphRequests(t, 120, "Accept-Encoding: gzip\r\n")
	one := reqs[0]
	bytewise := strings.Split(one, "")
	big := "GET /graph?channel=a-1 HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("p", 5000) + "\r\n\r\n"
	cases := []struct {
		name    string
		chunks  []string
		n       int
		handoff bool
	}{
		{"a byte at a time", bytewise, 1, false},
		{"split in the empty line", []string{one[:len(one)-1], one[len(one)-1:]}, 1, false},
		{"two heads and a half, then the rest", []string{reqs[0] + reqs[1] + reqs[2][:20], reqs[2][20:]}, 3, false},
		{"pipelined past the buffer", []string{strings.Join(reqs, "")}, len(reqs), false},
		{"pipelined past the buffer, split mid-head", []string{strings.Join(reqs[:60], "") + reqs[60][:7], reqs[60][7:] + strings.Join(reqs[61:], "")}, len(reqs), false},
		{"a head larger than the buffer", []string{big[:3000], big[3000:]}, 1, true},
		{"answered, then one larger than the buffer", []string{reqs[0] + big[:4000], big[4000:]}, 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.Handoffs()
			want := exchangeChunks(t, plain, tc.chunks, tc.n)
			got := exchangeChunks(t, fast, tc.chunks, tc.n)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("response %d of %d: fast path answered\n%s\nnet/http answered\n%s", i+1, tc.n, got[i], want[i])
				}
			}
			if handed := srv.Handoffs() - before; handed != 0 != tc.handoff {
				t.Errorf("%d connections handed to net/http, want a handoff: %v", handed, tc.handoff)
			}
		})
	}
}

// TestFastPathReadsOncePerRequest: a client that sends its next request
// once it has the answer to the last (as wrk and clusters do) costs one
// read per request. After a read that emptied the socket the fast path
// waits for the poller instead of reading again to find nothing (EAGAIN),
// which doubled its reads.
func TestFastPathReadsOncePerRequest(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("plain reads on", runtime.GOOS)
	}
	h := newHandler(t, "", site.Options{})
	_, fast, srv := servers(t, h)
	const n = 50
	c, err := net.Dial("tcp", fast)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	for i, req := range graphRequests(t, n, "") {
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i+1, err)
		}
		io.Copy(io.Discard, res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("response %d: %s", i+1, res.Status)
		}
	}
	c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for srv.Reads() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	// n requests, the end of the connection, and a first read that may
	// come before the first request: n+2 in 30 of 30 runs. A readiness
	// event that comes twice for one request (the answer's ACK reports
	// the socket readable too) costs a read that finds nothing: a tenth
	// is allowed for those, well short of the 2n of reading first.
	if reads := srv.Reads(); reads < n+1 || reads > n+2+n/10 {
		t.Errorf("%d reads for %d requests, want %d to %d", reads, n, n+1, n+2+n/10)
	}
	if srv.Handoffs() != 0 {
		t.Errorf("%d connections handed to net/http", srv.Handoffs())
	}
}

// TestFastPathTimeouts: a connection idle past IdleTimeout is closed; a
// head that takes longer than ReadHeaderTimeout to arrive, a byte at a
// time, is cut off (the deadline runs from its first byte, not its last),
// as is one that stops halfway.
func TestFastPathTimeouts(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const headerTimeout, idleTimeout = 200 * time.Millisecond, 300 * time.Millisecond
	srv := &site.Server{Handler: h, Fallback: h, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	req := graphRequests(t, 1, "")[0]
	// closedAfter sends what send sends on a new connection, reads the
	// answers, and returns how long the server took to close it.
	closedAfter := func(t *testing.T, send func(c net.Conn), answers int) time.Duration {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		c.SetDeadline(start.Add(10 * time.Second))
		go send(c)
		br := bufio.NewReader(c)
		for i := range answers {
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("response %d: %v", i+1, err)
			}
			io.Copy(io.Discard, res.Body)
		}
		// What follows (net/http's refusal of a head it timed out) is
		// read to the end of the connection, or its reset (the client was
		// still writing).
		_, err = io.ReadAll(br)
		if err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("reading to the end: %v", err)
		}
		return time.Since(start)
	}
	t.Run("idle", func(t *testing.T) {
		d := closedAfter(t, func(c net.Conn) { io.WriteString(c, req) }, 1)
		if d < idleTimeout || d > idleTimeout+2*time.Second {
			t.Errorf("idle connection closed after %v, want about %v", d, idleTimeout)
		}
	})
	t.Run("a byte at a time", func(t *testing.T) {
		d := closedAfter(t, func(c net.Conn) {
			for i := range len(req) {
				if _, err := io.WriteString(c, req[i:i+1]); err != nil {
					return
				}
				time.Sleep(headerTimeout / 20)
			}
		}, 0)
		// The fast path hands the head over after headerTimeout; net/http
		// allows it as long again from then.
		if d < headerTimeout || d > 2*headerTimeout+2*time.Second || d > time.Duration(len(req))*headerTimeout/20 {
			t.Errorf("trickled head cut off after %v, want about %v", d, 2*headerTimeout)
		}
	})
	t.Run("stopped halfway", func(t *testing.T) {
		before := srv.Handoffs()
		d := closedAfter(t, func(c net.Conn) { io.WriteString(c, req[:len(req)/2]) }, 0)
		if d < headerTimeout || d > 2*headerTimeout+2*time.Second {
			t.Errorf("half a head cut off after %v, want about %v", d, 2*headerTimeout)
		}
		if srv.Handoffs() != before+1 {
			t.Errorf("handed to net/http %d times, want once", srv.Handoffs()-before)
		}
	})
}
