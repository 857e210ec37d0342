package site_test

import (
	"bufio"
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/site"
)

// FuzzFastRequest: whatever request head the fast path takes, net/http
// parses too, into the same method, path, query and header values, and
// gives it no body: so answering it on the fast path cannot differ from
// what net/http's path would have been asked.
func FuzzFastRequest(f *testing.F) {
	for _, seed := range []string{
		"GET /graph?channel=stable-4.16&arch=amd64 HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD /api/upgrades_info/v1/graph?channel=a-1 HTTP/1.1\r\nHost: [::1]:8080\r\nAccept: application/json\r\nAccept: */*\r\n\r\n",
		"GET /graph?channel=a-1&version=4.1.0%2Bamd64 HTTP/1.1\r\nhost: x\r\naccept-encoding: \r\nAccept-Encoding: gzip\r\nIf-None-Match: W/\"a\"\r\nOrigin: \thttps://x \r\n\r\n",
		"GET /graph HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
		"GET /gr%61ph HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /graph HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n",
		"GET /graph HTTP/1.1\r\nHost: x\r\nX:\xff\r\n\r\n",
		"GET /graph HTTP/1.1\r\nHost: x\r\nX : y\r\n\r\n",
		"GET /graph?%zz HTTP/1.1\r\nHost: x y\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	h := site.NewHandler(site.Options{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		end, n, lax := site.HeadEnd(raw)
		if end < 0 || lax {
			return
		}
		got, ok := h.ParseFastRequest(raw[:n])
		if !ok {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw[:end])))
		if err != nil {
			t.Fatalf("fast path takes %q, net/http rejects it: %v", raw[:end], err)
		}
		accept, present := req.Header["Accept"]
		want := site.FastRequest{
			Head: req.Method == http.MethodHead, Path: req.URL.Path, RawQuery: req.URL.RawQuery,
			Accept: strings.Join(accept, ", "), AcceptPresent: present,
			AcceptEncoding: req.Header.Get("Accept-Encoding"), IfNoneMatch: req.Header.Get("If-None-Match"),
			Origin: req.Header.Get("Origin"), Route: got.Route,
		}
		if got != want {
			t.Fatalf("%q:\nfast path read %+v\nnet/http read  %+v", raw[:end], got, want)
		}
		if req.Method != http.MethodGet && req.Method != http.MethodHead || req.ContentLength > 0 || req.Close || req.ProtoMinor != 1 {
			t.Fatalf("%q: fast path takes a request net/http reads as %s %s, length %d, close %v", raw[:end], req.Method, req.Proto, req.ContentLength, req.Close)
		}
	})
}
