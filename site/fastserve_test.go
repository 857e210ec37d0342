package site_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// servers starts the same handler behind net/http alone (site.Server
// without its fast path: what serve runs with an access log) and behind
// site.Server, both with CORS, on loopback.
func servers(t *testing.T, h *site.Handler) (plain, fast string, srv *site.Server) {
	t.Helper()
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}
	lp, lf := listen(), listen()
	hs := &site.Server{Handler: h, Fallback: site.CORS(h), NoFastPath: true, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	srv = &site.Server{Handler: h, Fallback: site.CORS(h), CORS: true, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	go hs.Serve(lp)
	go srv.Serve(lf)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
		srv.Shutdown(ctx)
	})
	return lp.Addr().String(), lf.Addr().String(), srv
}

// exchange writes raw on a new connection and reads n responses.
func exchange(t *testing.T, addr, raw string, n int, head bool) []*http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var out []*http.Response
	for range n {
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		res, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("%q: reading response %d: %v", raw, len(out)+1, err)
		}
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatalf("%q: reading body: %v", raw, err)
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
		out = append(out, res)
	}
	return out
}

// describe renders a response without its Date for comparison.
func describe(res *http.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", res.Proto, res.Status)
	for _, k := range slices.Sorted(maps.Keys(res.Header)) {
		if k != "Date" {
			fmt.Fprintf(&b, "%s: %q\n", k, res.Header[k])
		}
	}
	if len(res.Header["Date"]) != 1 {
		fmt.Fprintf(&b, "Date: %d values\n", len(res.Header["Date"]))
	}
	body, _ := io.ReadAll(res.Body)
	fmt.Fprintf(&b, "close=%v length=%d body=%q", res.Close, res.ContentLength, body)
	return b.String()
}

// TestFastPathAnswersAsNetHTTP sends the same raw requests to both servers
// and wants the same answers (but for Date), twice each so that both a
// file's first, verified read and the sendfile path answer. Requests the
// fast path must take must not be handed to net/http, and the others must.
func TestFastPathAnswersAsNetHTTP(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	plain, fast, srv := servers(t, h)
	m, err := manifest.Read(treeDir)
	if err != nil {
		t.Fatal(err)
	}
	g := m.Graphs[0]
	v := g.Versions[len(g.Versions)-1]
	q := "channel=" + g.Channel + "&arch=" + g.Arch
	etag := `"` + m.Files[manifest.GraphPath(g.Arch, g.Channel)].SHA256[:32] + `"`
	const host = "Host: upgraph.test\r\n"
	req := func(target, headers string) string {
		return "GET " + target + " HTTP/1.1\r\n" + host + headers + "\r\n"
	}

	cases := []struct {
		name, raw string
		fast      bool // answered without net/http
		head      bool
	}{
		{"channel graph", req("/graph?"+q, ""), true, false},
		{"version graph", req("/graph?"+q+"&version="+v+"&id=0f0e0d0c-0b0a-0908-0706-050403020100", "Accept: application/json\r\n"), true, false},
		{"v1 under the production prefix", req("/api/upgrades_info/v1/graph?"+q+"&version="+v, "Accept: application/vnd.redhat.cincinnati.v1+json\r\n"), true, false},
		{"unknown version", req("/graph?"+q+"&version=9.9.9", ""), true, false},
		{"unknown channel: empty graph", req("/graph?channel=nope-1.0", ""), true, false},
		{"gzip", req("/graph?"+q, "Accept-Encoding: gzip, deflate\r\n"), true, false},
		{"gzip of the empty graph", req("/graph?channel=nope-1.0", "Accept-Encoding: gzip\r\n"), true, false},
		{"first Accept-Encoding wins, even empty", req("/graph?"+q, "Accept-Encoding: \r\nAccept-Encoding: gzip\r\n"), true, false},
		{"repeated Accept lines are joined", req("/graph?"+q, "Accept: text/html\r\nAccept: application/json;q=0.5\r\n"), true, false},
		{"empty Accept: 406", req("/graph?"+q, "Accept:\r\n"), false, false},
		{"lower-case names, odd spacing", req("/graph?"+q, "accept:   application/json  \r\norigin:\thttps://console.example\r\n"), true, false},
		{"CORS origin echoed", req("/graph?"+q, "Origin: https://console.example\r\n"), true, false},
		{"If-None-Match: 304", req("/graph?"+q, "If-None-Match: W/"+etag+"\r\n"), true, false},
		{"If-None-Match other", req("/graph?"+q, "If-None-Match: \"x\", "+etag+"\r\n"), true, false},
		{"HEAD", "HEAD /graph?" + q + " HTTP/1.1\r\n" + host + "\r\n", true, true},
		{"HEAD gzip", "HEAD /graph?" + q + " HTTP/1.1\r\n" + host + "Accept-Encoding: gzip\r\n\r\n", true, true},
		{"form decoding", req("/graph?channel="+strings.Replace(g.Channel, "-", "%2D", 1)+"&arch="+g.Arch+"&version="+v+"+", ""), true, false},

		{"406", req("/graph?"+q, "Accept: text/html\r\n"), false, false},
		{"missing channel", req("/graph?arch=amd64", ""), false, false},
		{"channel without a dash", req("/graph?channel=nodash", ""), true, false},
		{"invalid channel", req("/graph?channel=a-1%0A", ""), false, false},
		{"invalid arch", req("/graph?channel=a-1&arch=x/y", ""), false, false},
		{"POST", "POST /graph?" + q + " HTTP/1.1\r\n" + host + "Content-Length: 2\r\n\r\n{}", false, false},
		{"body on GET", "GET /graph?" + q + " HTTP/1.1\r\n" + host + "Content-Length: 2\r\n\r\n{}", false, false},
		{"chunked", "GET /graph?" + q + " HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false, false},
		{"Connection: close", req("/graph?"+q, "Connection: close\r\n"), false, false},
		{"HTTP/1.0", "GET /graph?" + q + " HTTP/1.0\r\n\r\n", false, false},
		{"no Host", "GET /graph?" + q + " HTTP/1.1\r\n\r\n", false, false},
		{"two Hosts", req("/graph?"+q, host), false, false},
		{"bare LF", "GET /graph?" + q + " HTTP/1.1\n" + host + "\n", false, false},
		{"percent path", req("/gr%61ph?"+q, ""), false, false},
		{"semicolon", req("/graph?"+q+";x=1", ""), false, false},
		{"absolute form", req("http://upgraph.test/graph?"+q, ""), false, false},
		{"folded header", req("/graph?"+q, "Accept: application/json,\r\n text/html\r\n"), false, false},
		{"preflight", "OPTIONS /graph HTTP/1.1\r\n" + host + "Origin: https://x\r\nAccess-Control-Request-Method: GET\r\n\r\n", false, false},
		{"openapi", req("/openapi", ""), false, false},
		{"signature", req("/signatures/"+strings.TrimPrefix(sigName, "signatures/"), ""), false, false},
		{"healthz", req("/healthz", ""), false, false},
		{"unknown path", req("/nope", ""), false, false},
		{"leading empty line", "\r\n" + req("/graph?"+q, ""), false, false},
		{"huge header", req("/graph?"+q, "X-Big: "+strings.Repeat("a", 5000)+"\r\n"), false, false},
		{"HTTP/2.0 request line", "GET /graph?channel=a HTTP/2.0\r\n\r\n", false, false},
		{"HTTP/0.9 request line", "GET /graph?" + q + " HTTP/0.9\r\n" + host + "\r\n", false, false},
		{"malformed request line", "GET\r\n" + host + "\r\n", false, false},
		{"unknown transfer coding", "POST /graph HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\n\r\n", false, false},
		{"invalid header name", req("/graph?"+q, "Bad Name: x\r\n"), false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.Handoffs()
			for round := range 2 {
				res := exchange(t, plain, tc.raw, 1, tc.head)[0]
				checkRefusal(t, res)
				want := describe(res)
				got := describe(exchange(t, fast, tc.raw, 1, tc.head)[0])
				if got != want {
					t.Errorf("round %d: fast path answered\n%s\nnet/http answered\n%s", round, got, want)
				}
			}
			if handed := srv.Handoffs() - before; tc.fast && handed != 0 || !tc.fast && handed != 2 {
				t.Errorf("%d of 2 connections handed to net/http, want fast path: %v", handed, tc.fast)
			}
		})
	}
}

// checkRefusal: every refusal is upstream's {"kind","value"} JSON, but a
// 404 (empty, as upstream's).
func checkRefusal(t *testing.T, res *http.Response) {
	t.Helper()
	if res.StatusCode < 400 || res.StatusCode == 404 {
		return
	}
	body, _ := io.ReadAll(res.Body)
	res.Body = io.NopCloser(bytes.NewReader(body))
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%d answered with Content-Type %q: %q", res.StatusCode, ct, body)
	}
	checkErrorBody(t, body)
}

// TestNetHTTPRefusalsAreJSON: requests net/http refuses before any
// handler runs get the JSON body of every other refusal, on both paths,
// the request line's HTTP/2.0 among them, and a head over net/http's
// limit (431), which the client is still sending when it is refused.
func TestNetHTTPRefusalsAreJSON(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	plain, fast, _ := servers(t, h)
	for _, addr := range []string{plain, fast} {
		res := exchange(t, addr, "GET /graph?channel=a HTTP/2.0\r\n\r\n", 1, false)[0]
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 505 || res.Header.Get("Content-Type") != "application/json" ||
			string(body) != `{"kind":"http_version_not_supported","value":"unsupported protocol version: this server speaks HTTP/1.1"}` {
			t.Errorf("HTTP/2.0 request line: %d %q %q", res.StatusCode, res.Header.Get("Content-Type"), body)
		}

		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		// Written in the background: the server stops reading at its limit.
		go io.WriteString(c, "GET /graph?channel=a-1 HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 2<<20)+"\r\n\r\n")
		res, err = http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: head over the limit: %v", addr, err)
		}
		body, _ = io.ReadAll(res.Body)
		c.Close()
		if res.StatusCode != 431 || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("head over the limit: %d %q %q", res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		checkErrorBody(t, body)
	}
}

// TestFastPathKeepAlive pipelines requests on one connection: fast ones,
// then one the fast path hands over, then fast ones again (now answered by
// net/http, which owns the connection from then on).
func TestFastPathKeepAlive(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	plain, fast, _ := servers(t, h)
	m, err := manifest.Read(treeDir)
	if err != nil {
		t.Fatal(err)
	}
	var raw strings.Builder
	n := 0
	for _, g := range m.Graphs {
		for _, v := range g.Versions {
			fmt.Fprintf(&raw, "GET /graph?channel=%s&arch=%s&version=%s HTTP/1.1\r\nHost: x\r\n\r\n", g.Channel, g.Arch, v)
			n++
			if n == 5 {
				raw.WriteString("GET /graph?arch=amd64 HTTP/1.1\r\nHost: x\r\n\r\n")
				n++
			}
		}
	}
	got, want := exchange(t, fast, raw.String(), n, false), exchange(t, plain, raw.String(), n, false)
	for i := range want {
		if g, w := describe(got[i]), describe(want[i]); g != w {
			t.Fatalf("response %d of %d: fast path answered\n%s\nnet/http answered\n%s", i+1, n, g, w)
		}
	}
}

// TestFastPathCountsMetrics: graph requests answered on the fast path
// show in /metrics like the others.
func TestFastPathCountsMetrics(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	_, fast, _ := servers(t, h)
	m, err := manifest.Read(treeDir)
	if err != nil {
		t.Fatal(err)
	}
	g := m.Graphs[0]
	for range 3 {
		exchange(t, fast, "GET /graph?channel="+g.Channel+"&arch="+g.Arch+"&version=9.9.9 HTTP/1.1\r\nHost: x\r\n\r\n", 1, false)
	}
	text := metricsText(t, h)
	if v := metric(text, `upgraph_graph_fallbacks_total{reason="unknown_version"}`); v != 3 {
		t.Errorf("unknown_version fallbacks = %v, want 3\n%s", v, text)
	}
	if !strings.Contains(text, `route="graph"`) {
		t.Errorf("no graph requests in /metrics:\n%s", text)
	}
}

// TestFastPathShutdown: Shutdown closes idle connections, lets a slow
// reader finish its answer, and Serve returns http.ErrServerClosed.
func TestFastPathShutdown(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &site.Server{Handler: h, Fallback: h, IdleTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	idle, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	io.WriteString(idle, "GET /graph?channel=a-1 HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(idle)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("idle connection after Shutdown: read %v, want EOF", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("still accepting after Shutdown")
	}
}

func TestHeadEnd(t *testing.T) {
	for _, tc := range []struct {
		in           string
		end, headLen int
		lax          bool
	}{
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nNEXT", 27, 25, false},
		{"GET / HTTP/1.1\r\n\r\n", 18, 16, false},
		{"GET / HTTP/1.1\r\nHost: x\r\n", -1, 0, false},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r", -1, 0, false},
		{"GET / HTTP/1.1\nHost: x\n\n", 15, 14, true},
		{"\r\nGET / HTTP/1.1\r\n\r\n", 2, 0, true},
		{"", -1, 0, false},
	} {
		end, n, lax := site.HeadEnd([]byte(tc.in))
		if end != tc.end || n != tc.headLen || lax != tc.lax {
			t.Errorf("headEnd(%q) = %d, %d, %v; want %d, %d, %v", tc.in, end, n, lax, tc.end, tc.headLen, tc.lax)
		}
	}
}
