package edge

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/site/internal/catalogtest"
)

// TestCatalogEdgesExhaustive asks every metas query of the catalogs' own
// values — each (schema, package, name) subset of every blob, and every
// schema × package — plus absent values and unknown catalogs, of upgraph
// serve, of nginx configured by NginxConfig and of the CloudFront
// catalogs function in Node, over the demo tree with the shared catalog
// and the fixture. Each query is sent as a Go client spells it
// (url.Values.Encode), and every seventh also with every byte escaped.
// serve must answer as catalogd (the oracle); nginx with the same status,
// Content-Type, Content-Length, Last-Modified and body; the function must
// answer the same itself or name the object whose bytes serve answers (a
// missing object being the empty answer of the custom error response).
// Every 25th query is also asked with gzip and conditionally of serve and
// nginx. Requests go over keep-alive connections, a few at a time.
func TestCatalogEdgesExhaustive(t *testing.T) {
	start := time.Now()
	dir, oracles := catalogTree(t)
	ngx, goURL := startNginx(t, dir), startGo(t, dir)
	fnPath := catalogFunction(t)
	var targets []string
	for _, cat := range slices.Sorted(maps.Keys(oracles)) {
		targets = append(targets, catalogTargets(cat, oracles[cat])...)
	}
	targets = append(targets, "/catalogs/nope/api/v1/metas?name=stable", "/catalogs/nope/api/v1/all", "/catalogs/a.b/api/v1/metas")
	ready := time.Now()

	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: exhaustiveWorkers}}
	defer client.CloseIdleConnections()
	goAnswers := make([]response, len(targets))
	var (
		mu       sync.Mutex
		failures int
		statuses = map[int]int{}
		nonEmpty int
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if failures++; failures <= 10 {
			t.Errorf(format, args...)
		}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range exhaustiveWorkers {
		wg.Go(func() {
			for i := range jobs {
				target := targets[i]
				want, err := getURL(client, goURL+target)
				if err != nil {
					fail("%s: serve: %v", target, err)
					continue
				}
				goAnswers[i] = want
				if ans, ok := oracleAnswer(oracles, target); ok && (want.status != ans.Status || !bytes.Equal(want.body, ans.Body)) {
					fail("%s: serve %d %.100q; catalogd %d %.100q", target, want.status, want.body, ans.Status, ans.Body)
				}
				got, err := getURL(client, ngx+target)
				if err != nil {
					fail("%s: nginx: %v", target, err)
					continue
				}
				if d := differs(got, want); d != "" {
					fail("%s: nginx and serve differ: %s", target, d)
				}
				if i%25 == 0 {
					compareGzipConditional(client, ngx, goURL, target, want, fail)
				}
				mu.Lock()
				statuses[want.status]++
				if len(want.body) > 0 && want.status == http.StatusOK {
					nonEmpty++
				}
				mu.Unlock()
			}
		})
	}
	for i := range targets {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	served := time.Now()

	events := make([]cfEvent, len(targets))
	for i, target := range targets {
		events[i] = newEvent(http.MethodGet, target)
	}
	rewritten := 0
	for i, res := range runCloudFrontFile(t, fnPath, events) {
		target, want := targets[i], goAnswers[i]
		if res.StatusCode != 0 {
			body := ""
			if res.Body != nil {
				body = res.Body.Data
			}
			if res.StatusCode != want.status || body != string(want.body) || res.Headers["content-type"].Value != want.header.Get("Content-Type") {
				fail("%s: CloudFront %d %q; serve %d %.100q", target, res.StatusCode, body, want.status, want.body)
			}
			continue
		}
		rewritten++
		object := strings.TrimPrefix(res.URI, "/")
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(object)))
		if err != nil { // the custom error response: the empty answer
			cat, _, _ := strings.Cut(strings.TrimPrefix(object, "operators/"), "/")
			data, err = os.ReadFile(filepath.Join(dir, "operators", cat, filepath.FromSlash(metas.EmptyFile)))
			if err != nil {
				fail("%s: CloudFront names %s, and its catalog has no empty answer: %v", target, object, err)
				continue
			}
		}
		if want.status != http.StatusOK || !bytes.Equal(data, want.body) {
			fail("%s: CloudFront serves %s (%d bytes); serve answers %d (%d bytes)", target, object, len(data), want.status, len(want.body))
		}
	}
	if failures > 10 {
		t.Errorf("%d failures in all", failures)
	}
	t.Logf("%d queries (%d non-empty answers; statuses %v) compared: serve and nginx in %s (every 25th also with gzip and conditionally), "+
		"CloudFront in %s (%d rewritten to objects); %s in all with the tree",
		len(targets), nonEmpty, statuses, served.Sub(ready).Round(time.Millisecond), time.Since(served).Round(time.Millisecond), rewritten,
		time.Since(start).Round(time.Millisecond))
	if nonEmpty < 3000 || statuses[http.StatusNotFound] == 0 {
		t.Errorf("vacuous comparison: %d non-empty answers, statuses %v", nonEmpty, statuses)
	}
}

// exhaustiveWorkers bounds concurrent requests: serve, nginx and the test
// share the machine.
const exhaustiveWorkers = 4

// catalogTargets are the metas queries of catalog cat: every subset of
// every blob's (schema, package, name), every schema × package, and
// absent values (unknown, case-changed, odd bytes) alone and beside the
// catalog's own; each as url.Values.Encode spells it, and every seventh
// also with every byte escaped (alternating hex case).
func catalogTargets(cat string, o *catalogtest.Oracle) []string {
	seen := map[[3]string]bool{}
	var queries [][3]string
	add := func(q [3]string) {
		if !seen[q] {
			seen[q] = true
			queries = append(queries, q)
		}
	}
	schemas, packages := map[string]bool{}, map[string]bool{}
	for _, b := range o.Blobs {
		for mask := range 8 {
			var q [3]string
			for k := range 3 {
				if mask&(1<<k) != 0 {
					q[k] = b[k]
				}
			}
			add(q)
		}
		schemas[b[0]], packages[b[1]] = true, true
	}
	for s := range schemas {
		for p := range packages {
			add([3]string{s, p, ""})
		}
	}
	absent := []string{"nope", "Nope", "olm.PACKAGE", ".hidden", "a b+c", "caf\u00e9", "x/y", "~!_%&=;"}
	for i, b := range o.Blobs {
		if i%40 != 0 {
			continue
		}
		for _, v := range absent {
			add([3]string{v, b[1], b[2]})
			add([3]string{b[0], v, b[2]})
			add([3]string{b[0], b[1], v})
			add([3]string{"", "", v})
			add([3]string{"", "", strings.ToUpper(b[2])})
		}
	}
	slices.SortFunc(queries, func(a, b [3]string) int {
		return strings.Compare(a[0]+"\x00"+a[1]+"\x00"+a[2], b[0]+"\x00"+b[1]+"\x00"+b[2])
	})
	base := "/catalogs/" + cat + "/api/v1/metas?"
	var out []string
	for i, q := range queries {
		v := url.Values{}
		for k, key := range []string{"schema", "package", "name"} {
			if q[k] != "" {
				v.Set(key, q[k])
			}
		}
		out = append(out, base+v.Encode())
		if i%7 == 0 {
			var pairs []string
			for k, key := range []string{"schema", "package", "name"} {
				if q[k] != "" {
					pairs = append(pairs, key+"="+escapeAll(q[k], i%2 == 0))
				}
			}
			out = append(out, base+strings.Join(pairs, "&"))
		}
	}
	return out
}

// escapeAll escapes every byte of s, with upper- or lower-case hex.
func escapeAll(s string, upper bool) string {
	format := "%%%02x"
	if upper {
		format = "%%%02X"
	}
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, format, c)
	}
	return b.String()
}

// getURL GETs url (with header) on c, an error for a failed exchange only.
func getURL(c *http.Client, url string, header ...string) (response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return response{}, err
	}
	for _, h := range header {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, body}, err
}

// differs says how nginx's answer differs from serve's, or "".
func differs(got, want response) string {
	switch {
	case got.status != want.status:
		return fmt.Sprintf("status %d, serve %d", got.status, want.status)
	case !bytes.Equal(got.body, want.body):
		return fmt.Sprintf("body %d bytes %.100q, serve %d bytes %.100q", len(got.body), got.body, len(want.body), want.body)
	}
	for _, h := range []string{"Content-Type", "Content-Length", "Last-Modified", "Content-Encoding"} {
		if g, w := got.header.Get(h), want.header.Get(h); g != w {
			return fmt.Sprintf("%s %q, serve %q", h, g, w)
		}
	}
	return ""
}

// compareGzipConditional asks target of nginx and serve with gzip (the
// same encoding, the same content) and conditionally (If-Modified-Since
// its Last-Modified, If-None-Match each server's own ETag: 304 from both;
// If-Unmodified-Since a second before: 412 from both).
func compareGzipConditional(c *http.Client, ngx, goURL, target string, want response, fail func(string, ...any)) {
	if want.status != http.StatusOK {
		return
	}
	var bodies [2][]byte
	var encodings [2]string
	for k, base := range []string{ngx, goURL} {
		res, err := getURL(c, base+target, "Accept-Encoding: gzip")
		if err != nil {
			fail("%s: gzip: %v", target, err)
			return
		}
		encodings[k], bodies[k] = res.header.Get("Content-Encoding"), res.body
		if encodings[k] == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(res.body))
			if err == nil {
				bodies[k], err = io.ReadAll(zr)
			}
			if err != nil {
				fail("%s: gzip from %s: %v", target, base, err)
				return
			}
		}
	}
	if encodings[0] != encodings[1] || !bytes.Equal(bodies[0], bodies[1]) || !bytes.Equal(bodies[1], want.body) {
		fail("%s: with gzip, nginx %q %d bytes, serve %q %d bytes", target, encodings[0], len(bodies[0]), encodings[1], len(bodies[1]))
	}
	lm := want.header.Get("Last-Modified")
	mod, err := http.ParseTime(lm)
	if err != nil {
		fail("%s: Last-Modified %q", target, lm)
		return
	}
	for _, base := range []string{ngx, goURL} {
		first, err := getURL(c, base+target)
		if err != nil {
			fail("%s: %v", target, err)
			return
		}
		for _, tc := range []struct {
			header string
			status int
		}{
			{"If-Modified-Since: " + lm, http.StatusNotModified},
			{"If-None-Match: " + first.header.Get("ETag"), http.StatusNotModified},
			{"If-Unmodified-Since: " + mod.Add(-time.Second).Format(http.TimeFormat), http.StatusPreconditionFailed},
		} {
			if res, err := getURL(c, base+target, tc.header); err != nil || res.status != tc.status {
				fail("%s %s: %d %v, want %d", base, target, res.status, err, tc.status)
			}
		}
	}
}
