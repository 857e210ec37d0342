package edge

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/catalog/metas/metastest"
)

// TestNginxEncodesEveryByte (and the CloudFront catalogs function) serves a catalog whose blobs are named with
// every byte (first, and between two letters), with as many changed
// bytes as the encoder maps take (maxChanged), with long names split
// into several directories and names ending in ".jsonl", and asks nginx
// for each name sent with every byte escaped, as a Go client escapes it,
// and raw where a request line allows: the encoder and split maps
// (nginx_encode.go) must find the file metas.Encode named. A name with
// more changed bytes is answered empty by nginx (the documented bound);
// the CloudFront function must name the object metas.Resolve names,
// those names included.
func TestNginxEncodesEveryByte(t *testing.T) {
	var names []string
	for b := 1; b < 256; b++ {
		names = append(names, string([]byte{byte(b)})+"x", "a"+string([]byte{byte(b)})+"z")
	}
	names = append(names, strings.Repeat("A", metas.MaxEncoded/2), strings.Repeat("+", metas.MaxEncoded),
		strings.Repeat("Ab", metas.MaxEncoded/3), ".A.b", "x y", "x.jsonl", ".jsonl", "x.JSONL", "x.jsonl.jsonl",
		strings.Repeat("A", maxChanged)+strings.Repeat("b", 1500), strings.Repeat("a", 2000)+".jsonl",
		strings.Repeat("_", maxChanged), strings.Repeat("A", maxChanged+1))
	dc := &declcfg.DeclarativeConfig{}
	for i, n := range names {
		dc.Metas = append(dc.Metas, declcfg.Meta{Schema: "s", Package: "p", Name: n, Blob: fmt.Appendf(nil, `{"i":%d}`, i)})
	}
	dir := t.TempDir()
	for _, f := range metas.Files(dc) {
		path := filepath.Join(dir, "operators", "bytes", filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oracle := metastest.NewOracle(dc)
	// The tables name raw bytes by regex: the configuration stays text a
	// ConfigMap can hold.
	if conf := NginxConfig(NginxOptions{Root: dir, Listen: "8080"}); !utf8.ValidString(conf) {
		t.Error("the configuration is not UTF-8")
	}
	ngx := startNginx(t, dir)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	asked := 0
	var events []cfEvent
	var queries []string
	check := func(name, rawQuery string, want []byte) {
		t.Helper()
		asked++
		// A CloudFront event is JSON: a raw query of invalid UTF-8 cannot
		// reach the function as sent (escaped, it does).
		if utf8.ValidString(rawQuery) {
			events = append(events, newEvent(http.MethodGet, "/catalogs/bytes/api/v1/metas?"+rawQuery))
			queries = append(queries, rawQuery)
		}
		u, err := url.Parse(ngx + "/catalogs/bytes/api/v1/metas")
		if err != nil {
			t.Fatal(err)
		}
		u.RawQuery = rawQuery
		req := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
		got, err := getRequest(client, req)
		switch {
		case err != nil:
			t.Errorf("%q (%s): %v", name, rawQuery, err)
		case encoderUnits(rawQuery[strings.LastIndex(rawQuery, "name=")+5:]) > maxChanged: // the documented bound
			if got.status != http.StatusOK || len(got.body) != 0 {
				t.Errorf("%.40q (%.40s): %d %q, want an empty answer", name, rawQuery, got.status, got.body)
			}
		case got.status != http.StatusOK || !bytes.Equal(got.body, want):
			t.Errorf("%.40q (%.40s): %d %.40q, want %.40q", name, rawQuery, got.status, got.body, want)
		}
	}
	for _, n := range append(names, strings.Repeat("A", metas.MaxEncoded/2+1), strings.Repeat("Ab", metas.MaxEncoded/3+1)) {
		want := oracle.Get("", "", n)
		check(n, "name="+escapeAll(n, len(n)%2 == 0), want)
		check(n, url.Values{"name": {n}}.Encode(), want)
		check(n, "schema=s&package=p&"+url.Values{"name": {n}}.Encode(), oracle.Get("s", "p", n))
		if raw, ok := rawSpelling(n); ok {
			check(n, "name="+raw, want)
		}
	}
	fn, err := CloudFrontCatalogFunction([]string{"bytes"})
	if err != nil {
		t.Fatal(err)
	}
	fnPath := filepath.Join(t.TempDir(), "fn.js")
	if err := os.WriteFile(fnPath, []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, res := range runCloudFrontFile(t, fnPath, events) {
		q, _ := url.ParseQuery(queries[i])
		if want := "/operators/bytes/" + metas.Resolve(q.Get("schema"), q.Get("package"), q.Get("name")); res.StatusCode != 0 || res.URI != want {
			t.Errorf("CloudFront, %s: %d %s, want %s", queries[i], res.StatusCode, res.URI, want)
		}
	}
	t.Logf("%d names, %d requests to nginx, %d to CloudFront", len(names)+2, asked, len(events))
}

// encoderUnits counts the units of a raw query value the encoder maps
// take one by one: every %XX escape, and every byte sent as itself that
// metas.Encode changes (a leading '.' aside, which the first map takes).
func encoderUnits(raw string) int {
	units := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '%':
			if i > 0 || !strings.EqualFold(raw[:min(3, len(raw))], "%2e") {
				units++
			}
			i += 2
		case !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'):
			units++
		}
	}
	return units
}

// rawSpelling is n as a request line can carry it unescaped: without
// control characters or the bytes a query gives a meaning ('#', '&',
// '%', '+' but as a space, ';').
func rawSpelling(n string) (string, bool) {
	var b strings.Builder
	for _, c := range []byte(n) {
		switch {
		case c == ' ':
			b.WriteByte('+')
		case c < 0x20 || c == 0x7f || strings.IndexByte("#&%+;", c) >= 0:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// getRequest sends req on c and reads the answer.
func getRequest(c *http.Client, req *http.Request) (response, error) {
	resp, err := c.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	_, err = body.ReadFrom(resp.Body)
	return response{resp.StatusCode, resp.Header, body.Bytes()}, err
}
