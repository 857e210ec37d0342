package site_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/site"
)

// acceptCase is one Accept negotiation: accept nil means no header; want
// is the response media type, "" for 406.
type acceptCase struct {
	name   string
	accept []string
	want   string
}

var acceptCases = []acceptCase{
	// Spec §6.4, every row: an exact, whole-value comparison upstream.
	{"absent", nil, mediaV1},
	{"json", []string{"application/json"}, mediaJSON},
	{"v1", []string{"application/vnd.redhat.cincinnati.v1+json"}, mediaV1},
	{"star/star", []string{"*/*"}, mediaJSON},
	{"star", []string{"*"}, mediaJSON},
	{"application/star", []string{"application/*"}, mediaJSON},
	{"text/html", []string{"text/html"}, ""},
	{"v2", []string{"application/vnd.redhat.cincinnati.v2+json"}, ""},
	{"empty value", []string{""}, ""},

	// Extension (accept.go): real-world lists, RFC 9110 q-values and
	// case-insensitive types. Upstream answers these rows of §6.4 with 406.
	{"json then text/plain", []string{"application/json, text/plain"}, mediaJSON},
	{"json q=0.9", []string{"application/json;q=0.9"}, mediaJSON},
	{"Application/JSON", []string{"Application/JSON"}, mediaJSON},
	{"browser-like list", []string{"text/html, application/json;q=0.9"}, mediaJSON},
	{"v1 preferred by q", []string{"application/vnd.redhat.cincinnati.v1+json;q=1, application/json;q=0.5"}, mediaV1},
	{"json preferred by q", []string{"application/vnd.redhat.cincinnati.v1+json;q=0.4, application/json;q=0.5"}, mediaJSON},
	{"json q=0", []string{"application/json;q=0"}, ""},
	{"json q=0 then any", []string{"application/json;q=0, */*"}, mediaV1},
	{"JSON q=0 then any", []string{"APPLICATION/JSON; Q=0, */*"}, mediaV1},
	{"v1 q=0 then any", []string{"application/vnd.redhat.cincinnati.v1+json;q=0, */*"}, mediaJSON},
	{"both q=0 then any", []string{"application/json;q=0, application/vnd.redhat.cincinnati.v1+json;q=0, */*"}, ""},
	{"any q=0", []string{"*/*;q=0"}, ""},
	{"spaces and charset", []string{" application/json ; charset=utf-8 "}, mediaJSON},
	{"equal q: the more specific range wins", []string{"*/*;q=0.8, application/vnd.redhat.cincinnati.v1+json;q=0.8"}, mediaV1},
	// A full tie (same q, same specificity) goes to the range listed first;
	// accept.go's comment says application/json (reported, not asserted).
	{"full tie, json first", []string{"application/json, application/vnd.redhat.cincinnati.v1+json"}, mediaJSON},
	{"invalid q ignored range", []string{"application/json;q=2"}, ""},
	{"unparsable q", []string{"application/json;q=x"}, ""},
	{"two header lines", []string{"text/html", "application/json"}, mediaJSON},
	{"two header lines v1", []string{"text/html", "application/vnd.redhat.cincinnati.v1+json"}, mediaV1},
	{"only commas", []string{",,,"}, ""},
	{"no subtype", []string{"application"}, ""},
	{"text/star", []string{"text/*"}, ""},
}

func TestNegotiate(t *testing.T) {
	for _, tc := range acceptCases {
		t.Run(tc.name, func(t *testing.T) {
			got := site.Negotiate(strings.Join(tc.accept, ", "), tc.accept != nil)
			if got != tc.want {
				t.Errorf("Accept %q: got %q, want %q", tc.accept, got, tc.want)
			}
		})
	}
}

// TestAcceptHTTP runs every Accept case through the whole handler, over a
// recorder and over TCP.
func TestAcceptHTTP(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	channelFile := treeFile(t, "graph/amd64/fast-4.16.json")
	for _, c := range clients(t, h) {
		for _, tc := range acceptCases {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				var hd http.Header
				if tc.accept != nil {
					hd = http.Header{"Accept": tc.accept}
				}
				res, body := c.do(t, http.MethodGet, "/graph?channel=fast-4.16", hd)
				ct := res.Header.Get("Content-Type")
				if tc.want == "" {
					if res.StatusCode != http.StatusNotAcceptable || ct != mediaJSON || string(body) != body406 {
						t.Fatalf("got %d %q %q, want 406 %q %q", res.StatusCode, ct, body, mediaJSON, body406)
					}
					return
				}
				if res.StatusCode != http.StatusOK || ct != tc.want {
					t.Fatalf("got %d %q, want 200 %q (body %.200s)", res.StatusCode, ct, tc.want, body)
				}
				if string(body) != string(channelFile) {
					t.Fatalf("body differs from the channel file")
				}
				if !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Accept") {
					t.Errorf("Vary %q lacks Accept", res.Header.Values("Vary"))
				}
			})
		}
	}
}

// TestAcceptBeforeParams: negotiation comes first (§6.3 step 1), so a bad
// Accept with a bad query is a 406, not a 400.
func TestAcceptBeforeParams(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	for _, target := range []string{"/graph", "/graph?channel=Bad", "/graph?channel=fast-4.16&arch=x86_64"} {
		res, body := get(t, h, target, hdr("Accept", "text/html"))
		if res.StatusCode != 406 || string(body) != body406 {
			t.Errorf("%s: got %d %s, want 406", target, res.StatusCode, body)
		}
	}
}

// TestAcceptMostSpecificRange: RFC 9110 §12.5.1 gives a media type the
// quality of the most specific range that matches it, so
// "*/*, application/*;q=0" makes both offers unacceptable. Upstream (§6.4,
// exact comparison) also answers 406 for these values.
func TestAcceptMostSpecificRange(t *testing.T) {
	for _, accept := range []string{"*/*, application/*;q=0", "application/*;q=0, */*"} {
		if got := site.Negotiate(accept, true); got != "" {
			t.Errorf("Accept %q: got %q, want 406", accept, got)
		}
	}
}

// TestAcceptUpstreamValuesKeepTheirAnswer: the values upstream accepts
// give upstream's answer whatever else the extension does.
func TestAcceptUpstreamValuesKeepTheirAnswer(t *testing.T) {
	for accept, want := range upstreamAccepted {
		if got := site.Negotiate(accept, true); got != want {
			t.Errorf("Accept %q: got %q, want %q", accept, got, want)
		}
	}
	if got := site.Negotiate("", false); got != mediaV1 {
		t.Errorf("no Accept: got %q, want %q", got, mediaV1)
	}
}

// upstreamAccepted lists every Accept value upstream answers with 200 and
// its content type (spec §6.4).
var upstreamAccepted = map[string]string{
	"application/json": mediaJSON,
	"*/*":              mediaJSON,
	"*":                mediaJSON,
	"application/*":    mediaJSON,
	mediaV1:            mediaV1,
}

func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"x-gzip", true},
		{"gzip, deflate, br", true},
		{"br;q=1.0, gzip;q=0.8, *;q=0.1", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"identity", false},
		{"deflate, br", false},
		{"*", true},
		{"*;q=0", false},
		{"*, gzip;q=0", false},
		{"gzip;q=0, *", false},
		{"identity;q=0, *;q=0", false},
	} {
		if got := site.AcceptsGzip(tc.header); got != tc.want {
			t.Errorf("Accept-Encoding %q: got %v, want %v", tc.header, got, tc.want)
		}
	}
}
