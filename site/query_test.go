package site_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/upgraph/upgraph/site"
)

const (
	channelRegex = `^[0-9a-z\-\.]+$`
	archRegex    = `^[0-9a-z]+$`
)

func badChannel(v string) string {
	return errBody("invalid_params", "invalid client parameters: channel '"+v+"' does not match regex '"+channelRegex+"'")
}

func badArch(v string) string {
	return errBody("invalid_params", "invalid client parameters: arch '"+v+"' does not match regex '"+archRegex+"'")
}

// TestQueryErrors: every 400 of the graph endpoint with its exact body
// (spec §6.3, §6.6, §6.7, §6.8).
func TestQueryErrors(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	cases := []struct {
		name, query, body string
	}{
		{"no query", "", bodyNoChan},
		{"empty query", "?", bodyNoChan},
		{"arch only", "?arch=amd64", bodyNoChan},
		{"other params only", "?version=4.16.0&id=x", bodyNoChan},
		{"channel key in a value", "?id=channel", bodyNoChan},
		{"channel prefix key", "?channels=fast-4.16", bodyNoChan},
		{"channel upper-case key", "?Channel=fast-4.16", bodyNoChan},
		{"empty channel", "?channel=", badChannel("")},
		{"bare channel key", "?channel", badChannel("")},
		{"empty channel with arch", "?channel=&arch=amd64", badChannel("")},
		{"Stable-4.9", "?channel=Stable-4.9", badChannel("Stable-4.9")},
		{"invalid_channel", "?channel=invalid_channel", badChannel("invalid_channel")},
		{"invalid:channel", "?channel=invalid:channel", badChannel("invalid:channel")},
		{"invalid%3Achannel", "?channel=invalid%3Achannel", badChannel("invalid:channel")},
		{"invalid=channel", "?channel=invalid=channel", badChannel("invalid=channel")},
		{"invalid%3Dchannel", "?channel=invalid%3Dchannel", badChannel("invalid=channel")},
		{"stable+4.9", "?channel=stable+4.9", badChannel("stable 4.9")},
		{"stable%204.9", "?channel=stable%204.9", badChannel("stable 4.9")},
		{"quote and backslash are escaped", `?channel=a%22b%5Cc`, badChannel(`a"b\c`)},
		{"non-ASCII", "?channel=st%C3%A4ble", badChannel("stäble")},
		{"last of repeated channels is invalid", "?channel=fast-4.16&channel=Fast", badChannel("Fast")},
		{"empty arch", "?channel=fast-4.16&arch=", badArch("")},
		{"x86_64", "?channel=fast-4.16&arch=x86_64", badArch("x86_64")},
		{"AMD64", "?channel=fast-4.16&arch=AMD64", badArch("AMD64")},
		{"arch with dash", "?channel=fast-4.16&arch=ppc64-le", badArch("ppc64-le")},
		{"last of repeated arches is invalid", "?channel=fast-4.16&arch=amd64&arch=x86_64", badArch("x86_64")},
		{"channel checked before arch", "?arch=x86_64&channel=Bad", badChannel("Bad")},
		{"channel checked before arch, empty", "?channel=&arch=", badChannel("")},
		{"missing channel before bad arch", "?arch=x86_64", bodyNoChan},
	}
	for _, c := range clients(t, h) {
		for _, tc := range cases {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				for _, path := range []string{"/graph", "/api/upgrades_info/v1/graph"} {
					res, body := c.do(t, http.MethodGet, path+tc.query, nil)
					if res.StatusCode != http.StatusBadRequest || string(body) != tc.body {
						t.Fatalf("%s%s: got %d %s\nwant 400 %s", path, tc.query, res.StatusCode, body, tc.body)
					}
					if ct := res.Header.Get("Content-Type"); ct != mediaJSON {
						t.Errorf("Content-Type %q, want %q", ct, mediaJSON)
					}
					checkErrorBody(t, body)
				}
			})
		}
	}
}

// TestQueryValidValues: values the spec calls valid are served (as an
// empty graph when the tree lacks them), never rejected.
func TestQueryValidValues(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	for _, q := range []string{
		"channel=stable-4.9", "channel=validchannel", "channel=validchannel-0.0",
		"channel=-", "channel=.", "channel=..", "channel=0",
		"channel=fast-4.16&arch=multi", "channel=fast-4.16&arch=s390x", "channel=fast-4.16&arch=0",
	} {
		res, body := get(t, h, "/graph?"+q, nil)
		if res.StatusCode != 200 || string(body) != emptyGraph {
			t.Errorf("%s: got %d %.100s, want 200 empty graph", q, res.StatusCode, body)
		}
	}
}

// TestQueryHostile: traversal attempts and odd input are answered with the
// right status and never with a file outside the tree, or one the request
// did not name.
func TestQueryHostile(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	fast := string(treeFile(t, "graph/amd64/fast-4.16.json"))
	longValid := strings.Repeat("a", 100_000)
	longInvalid := strings.Repeat("_", 100_000)
	const any = "*"
	cases := []struct {
		name, target string
		status       int
		body         string // any: only checked to be a graph or an error body
	}{
		{"dotdot channel", "/graph?channel=../..", 400, badChannel("../..")},
		{"encoded dotdot channel", "/graph?channel=..%2F..%2Fetc", 400, badChannel("../../etc")},
		{"encoded dotdot channel passwd", "/graph?channel=..%2F..%2F..%2F..%2Fetc%2Fpasswd", 400, badChannel("../../../../etc/passwd")},
		{"dots-only channel", "/graph?channel=..", 200, emptyGraph},
		{"index as channel", "/graph?channel=index", 200, emptyGraph},
		{"empty as channel", "/graph?channel=empty", 200, emptyGraph},
		{"channel with .json", "/graph?channel=fast-4.16.json", 200, emptyGraph},
		{"channel naming a version dir", "/graph?channel=fast-4.16/4.16.0", 400, badChannel("fast-4.16/4.16.0")},
		{"encoded slash arch", "/graph?channel=fast-4.16&arch=..%2F", 400, badArch("../")},
		{"dotdot arch", "/graph?channel=fast-4.16&arch=..", 400, badArch("..")},
		{"arch naming the empty graph dir", "/graph?channel=empty&arch=graph", 200, emptyGraph},
		{"encoded slashes in the path", "/graph%2F..%2Findex.json", 404, ""},
		// Routes match the decoded path: an encoded slash separates
		// segments (upstream's actix router keeps %2F; harmless here,
		// the answer is the graph the query names).
		{"encoded slashes in the prefixed path", "/api/upgrades_info%2Fgraph?channel=fast-4.16", 200, fast},
		{"encoded slash before a dotdot", "/api/upgrades_info%2F..%2Fgraph?channel=fast-4.16", 404, ""},
		{"dotdot in the path", "/graph/../index.json", 404, ""},
		{"path into the tree", "/graph/amd64/fast-4.16.json", 404, ""},
		{"index.json", "/index.json", 404, ""},
		{"trailing slash", "/graph/?channel=fast-4.16", 404, ""},
		{"prefixed trailing slash", "/api/upgrades_info/graph/?channel=fast-4.16", 404, ""},
		{"double slash", "//graph?channel=fast-4.16", 404, ""},
		{"NUL in channel", "/graph?channel=a%00b", 400, badChannel("a\x00b")},
		{"NUL in arch", "/graph?channel=fast-4.16&arch=a%00", 400, badArch("a\x00")},
		{"newline in channel", "/graph?channel=a%0Ab", 400, badChannel("a\nb")},
		{"over-long valid channel", "/graph?channel=" + longValid, 200, emptyGraph},
		{"over-long invalid channel", "/graph?channel=" + longInvalid, 400, badChannel(longInvalid)},
		{"over-long arch", "/graph?channel=fast-4.16&arch=" + longValid, 200, emptyGraph},
		{"many repeated params", "/graph?" + strings.Repeat("channel=nope&arch=x&", 2000) + "channel=fast-4.16&arch=amd64", 200, fast},
		{"repeated, last wins", "/graph?channel=nope-1.0&channel=fast-4.16", 200, fast},
		{"repeated, last wins over a bad one", "/graph?channel=Bad&channel=fast-4.16", 200, fast},
		{"version traversal", "/graph?channel=fast-4.16&version=../../index", 200, fast},
		{"version encoded traversal", "/graph?channel=fast-4.16&version=..%2F..%2Findex", 200, fast},
		{"version with slash", "/graph?channel=fast-4.16&version=4.16.0%2F..", 200, fast},
		{"version naming a channel file", "/graph?channel=fast-4.16&version=..%2Ffast-4.16", 200, fast},
		{"version with NUL", "/graph?channel=fast-4.16&version=4.16.0%00", 200, fast},
		{"version empty", "/graph?channel=fast-4.16&version=", 200, fast},
		{"over-long version", "/graph?channel=fast-4.16&version=4.16.0-" + longValid, 200, fast},
		{"semicolon separator", "/graph?channel=fast-4.16;arch=arm64", 400, any},
		// Upstream decodes leniently: a bad escape in an ignored parameter is harmless.
		{"bad escape", "/graph?channel=fast-4.16&x=%zz", 200, any},
		{"signature traversal", "/signatures/..%2F..%2Findex.json", 400, any},
		{"signature dotdot", "/signatures/sha256=" + sigDigest + "/../../index.json", 400, any},
	}
	files := walkTree(t, treeDir)
	for _, c := range clients(t, h) {
		for _, tc := range cases {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				res, body := c.do(t, http.MethodGet, tc.target, nil)
				if res.StatusCode != tc.status {
					t.Fatalf("%.200s: got %d %.200q, want %d", tc.target, res.StatusCode, body, tc.status)
				}
				switch {
				case tc.body == any && res.StatusCode == 200:
					checkGraphBody(t, body)
				case tc.body == any:
					checkErrorBody(t, body)
				case string(body) != tc.body:
					t.Fatalf("%.200s: body %.200q, want %.200q", tc.target, body, tc.body)
				}
				if res.StatusCode == 200 {
					// A 200 body is a graph file of the tree, never
					// index.json or anything else.
					if string(body) == string(files["index.json"]) {
						t.Fatal("served index.json")
					}
					checkGraphBody(t, body)
				}
			})
		}
	}
}

// TestQueryUpstreamDecoding: upstream decodes the query leniently
// (form_urlencoded: an invalid %-escape stays as it is, ';' is an ordinary
// character, so decoding "practically never" fails, §6.3 step 3), checks
// the mandatory parameter against the keys of the raw query string
// (§6.3 step 2), and ignores unknown parameters (§6.3).
func TestQueryUpstreamDecoding(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	fast := string(treeFile(t, "graph/amd64/fast-4.16.json"))
	for _, tc := range []struct{ query, body string }{
		{"channel=%zz", badChannel("%zz")},
		{"channel=fast-4.16;arch=arm64", badChannel("fast-4.16;arch=arm64")},
		{"channel=fast-4.16&x=%zz", fast},
		{"channel=fast-4.16&id=a;b", fast},
	} {
		_, body := get(t, h, "/graph?"+tc.query, nil)
		if string(body) != tc.body {
			t.Errorf("%s: got %.120s, want %.120s", tc.query, body, tc.body)
		}
	}
}

// TestErrorBodyUTF8: an error body echoing a parameter is valid UTF-8 JSON
// (RFC 8259 §8.1) even when the decoded parameter is not UTF-8; upstream
// decodes the query lossily (§6.3 step 3), so it echoes U+FFFD.
func TestErrorBodyUTF8(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	for _, q := range []string{"channel=%FF", "channel=fast-4.16&arch=%C3", "channel=a%ED%A0%80b"} {
		res, body := get(t, h, "/graph?"+q, nil)
		if res.StatusCode != 400 {
			t.Fatalf("%s: %d", q, res.StatusCode)
		}
		checkErrorBody(t, body)
		if !utf8.Valid(body) {
			t.Errorf("%s: error body is not UTF-8: %q", q, body)
		}
	}
}
