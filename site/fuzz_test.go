package site_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/version"
)

// serve sends a request built field by field (so any raw query or path
// reaches the handler, even one no client would send) to h.
func serve(h http.Handler, p, rawQuery string, header http.Header) *httptest.ResponseRecorder {
	if header == nil {
		header = http.Header{}
	}
	req := &http.Request{
		Method:     http.MethodGet,
		URL:        &url.URL{Path: p, RawQuery: rawQuery},
		Proto:      "HTTP/1.1",
		ProtoMajor: 1, ProtoMinor: 1,
		Header:     header,
		Host:       "example.com",
		RemoteAddr: "192.0.2.1:1234",
	}
	req.RequestURI = req.URL.RequestURI()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var graphQuerySeeds = []string{
	"", "channel", "channel=", "channel=fast-4.16", "channel=fast-4.16&arch=arm64",
	"arch=amd64", "channel=fast-4.16&version=4.16.0", "channel=fast-4.16&version=4.16.0%2Bamd64",
	"arch=amd64&channel=stable-4.16&id=5a1ba2d3-6e1c-4bd9-a8f3-5cc6bb2e2a46&version=4.15.2",
	"channel=stable-4.16&version=4.16.2", "channel=fast-4.16&version=4.99.0", "channel=fast-4.16&version=four",
	"channel=fast-4.16&version=%204.16.0%20", "channel=stable-9.9", "channel=fast-4.16&arch=s390x",
	"channel=Stable-4.9", "channel=invalid_channel", "channel=invalid:channel", "channel=invalid=channel",
	"channel=stable+4.9", "channel=fast-4.16&arch=", "channel=fast-4.16&arch=x86_64", "arch=x86_64&channel=Bad",
	"channel=nope-1.0&channel=fast-4.16", "channel=../..", "channel=..%2F..%2Fetc", "channel=fast-4.16&arch=..%2F",
	"channel=a%00b", "channel=fast-4.16&version=../../index", "channel=fast-4.16&version=4.16.0%2F..",
	"channel=%zz", "channel=fast-4.16&x=%zz", "channel=fast-4.16;arch=arm64", "channel=%FF", "channel=%E2%80%A8",
	"channel=fast-4.16&&&", "&channel=fast-4.16", "=&=&channel=fast-4.16", "chan%6Eel=fast-4.16",
	"channel=fast-4.16&arch=arm64&arch=amd64", "channel=fast-4.16&version=4.16.0&version=",
	"channel=fast-4.16&version=4.16.0-rc.1", "channel=fast-4.16&version=04.16.0", "channel=fast-4.16&content_type=x",
	"channel=" + strings.Repeat("a", 300), "channel=" + strings.Repeat("%", 300),
}

// FuzzGraphQuery sends random raw query strings through the whole handler:
// it never panics, answers 200 or 400, a 200 is exactly the file the
// query names (the channel file, one of its per-version files, or the
// empty graph), and a 400 is an upstream error body.
func FuzzGraphQuery(f *testing.F) {
	for _, s := range graphQuerySeeds {
		f.Add(s)
	}
	h := site.CORS(newHandler(f, "", site.Options{}))
	m, err := manifest.Read(treeDir)
	if err != nil {
		f.Fatal(err)
	}
	files := walkTree(f, treeDir)
	type key struct{ channel, arch string }
	graphs := map[key]manifest.Graph{}
	for _, g := range m.Graphs {
		graphs[key{g.Channel, g.Arch}] = g
	}
	channelRe := regexp.MustCompile(`^[0-9a-z\-\.]+$`)
	archRe := regexp.MustCompile(`^[0-9a-z]+$`)
	f.Fuzz(func(t *testing.T, rawQuery string) {
		rec := serve(h, "/graph", rawQuery, nil)
		body := rec.Body.Bytes()
		switch rec.Code {
		case 200:
			checkGraphBody(t, body)
		case 400:
			kind, _ := checkErrorBody(t, body)
			if kind != "missing_params" && kind != "invalid_params" {
				t.Fatalf("400 of kind %q", kind)
			}
			if ct := rec.Header().Get("Content-Type"); ct != mediaJSON {
				t.Fatalf("400 Content-Type %q", ct)
			}
			return
		default:
			t.Fatalf("query %q: status %d %q", rawQuery, rec.Code, body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != mediaV1 {
			t.Fatalf("200 Content-Type %q", ct)
		}
		// Which file answers, from the decoded query (last value wins).
		values, _ := url.ParseQuery(rawQuery)
		last := func(k string) (string, bool) {
			vs, ok := values[k]
			if !ok {
				return "", false
			}
			return vs[len(vs)-1], true
		}
		channel, ok := last("channel")
		if !ok || !channelRe.MatchString(channel) {
			t.Fatalf("query %q: 200 without a valid channel", rawQuery)
		}
		arch := "amd64"
		if a, ok := last("arch"); ok {
			if !archRe.MatchString(a) {
				t.Fatalf("query %q: 200 with an invalid arch", rawQuery)
			}
			arch = a
		}
		g, known := graphs[key{channel, arch}]
		want := emptyGraph
		if known {
			want = string(files[g.Path])
			if v, _ := last("version"); v != "" {
				if pv, err := version.Parse(v); err == nil {
					for _, lv := range g.Versions {
						if version.MustParse(lv).Key() == pv.Key() {
							want = string(files[path.Join("graph", arch, channel, manifest.VersionFileName(lv))])
							break
						}
					}
				}
			}
		}
		if string(body) != want {
			t.Fatalf("query %q: body %.120s\nwant %.120s", rawQuery, body, want)
		}
	})
}

var acceptSeeds = []string{
	"", "application/json", "*/*", "*", "application/*", mediaV1,
	"text/html", "application/vnd.redhat.cincinnati.v2+json", "Application/JSON",
	"application/json, text/plain", "application/json;q=0.9", "text/html, application/json;q=0.9",
	mediaV1 + ";q=1, application/json;q=0.5", "application/json;q=0", "application/json;q=0, */*",
	"*/*;q=0", "application/json;q=NaN", "application/json;q=1e-400", "application/json;q=-0",
	"application/json;q=inf", "application/json;q=0x1p-2", ";;;,,,", "application/json;;q=0.5;q=0",
	"*/*, application/*;q=0", "text/*", "application/json; charset=\"a,b\"", "\x00", "application/json\r\n",
}

// FuzzAccept: any Accept header gives 406 or one of the two media types,
// the values upstream accepts keep upstream's answer, the parse ignores
// ASCII case and zero-quality ranges of other types, and the handler
// answers as negotiate says.
func FuzzAccept(f *testing.F) {
	for _, s := range acceptSeeds {
		f.Add(s)
	}
	h := newHandler(f, "", site.Options{})
	f.Fuzz(func(t *testing.T, accept string) {
		got := site.Negotiate(accept, true)
		if got != "" && got != mediaJSON && got != mediaV1 {
			t.Fatalf("Accept %q: %q", accept, got)
		}
		if want, ok := upstreamAccepted[accept]; ok && got != want {
			t.Fatalf("upstream value %q: got %q, want %q", accept, got, want)
		}
		if up := asciiUpper(accept); site.Negotiate(up, true) != got {
			t.Fatalf("Accept %q gives %q, upper-cased %q", accept, got, site.Negotiate(up, true))
		}
		if other := site.Negotiate(accept+", text/html;q=0", true); other != got {
			t.Fatalf("Accept %q gives %q, with a zero-quality text/html %q", accept, got, other)
		}
		rec := serve(h, "/graph", "channel=nope", http.Header{"Accept": {accept}})
		if got == "" {
			if rec.Code != 406 || rec.Body.String() != body406 {
				t.Fatalf("Accept %q: %d %q, want 406", accept, rec.Code, rec.Body.String())
			}
			return
		}
		if rec.Code != 200 || rec.Header().Get("Content-Type") != got || rec.Body.String() != emptyGraph {
			t.Fatalf("Accept %q: %d %q, want 200 %s", accept, rec.Code, rec.Header().Get("Content-Type"), got)
		}
	})
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// FuzzSignaturePath: any path under /signatures/ answers 200 only with the
// one signature file the tree has, 404 does_not_exist for a well-formed
// path it lacks, and 400 invalid_params otherwise.
func FuzzSignaturePath(f *testing.F) {
	for _, s := range []string{
		strings.TrimPrefix(sigName, "signatures/"),
		"sha=" + sigDigest + "/signature-1",
		"sha256=" + sigDigest + "/signature-2",
		"sha256=" + sigDigest + "/signature-99",
		"sha256=" + sigDigest + "/signature-100",
		"sha256=" + sigDigest + "/signature-0",
		"sha256=" + sigDigest + "/signature-1/",
		"sha256=" + sigDigest + "/signature-1\n",
		"sha256=" + sigDigest,
		"sha256/" + sigDigest + "/signature-1",
		"md5=" + sigDigest + "/signature-1",
		"sha256==" + sigDigest + "/signature-1",
		"../../index.json", "..", "", "=", "/", "sha256=/signature-1",
		"sha256=" + strings.ToUpper(sigDigest) + "/signature-1",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	h := site.CORS(newHandler(f, "", site.Options{}))
	shape := regexp.MustCompile(`^(sha|sha256)=[0-9a-f]{64}/signature-[1-9][0-9]?$`)
	badSig := errBody("invalid_params", "invalid client parameters: signature path must be sha256=<hex digest>/signature-<N>")
	f.Fuzz(func(t *testing.T, rest string, prefixed bool) {
		p := "/signatures/" + rest
		if prefixed {
			p = "/api/upgrades_info" + p
		}
		rec := serve(h, p, "", nil)
		body := rec.Body.String()
		switch {
		case "signatures/"+rest == sigName:
			if rec.Code != 200 || body != sigBody {
				t.Fatalf("%q: %d %q, want the signature", rest, rec.Code, body)
			}
		case shape.MatchString(rest):
			if want := errBody("does_not_exist", "does not exist: "+rest); rec.Code != 404 || body != want {
				t.Fatalf("%q: %d %q, want 404 %s", rest, rec.Code, body, want)
			}
		default:
			if rec.Code != 400 || body != badSig {
				t.Fatalf("%q: %d %q, want 400 %s", rest, rec.Code, body, badSig)
			}
		}
	})
}
