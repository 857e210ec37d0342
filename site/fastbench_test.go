package site_test

import (
	"testing"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// BenchmarkFastAnswer measures the fast path's work for one cluster
// request short of the system calls (parse, route, validate, look up,
// answer from the descriptor cache), and its allocations, which decide
// how often the garbage collector runs under load.
func BenchmarkFastAnswer(b *testing.B) {
	h := newHandler(b, "", site.Options{})
	m, err := manifest.Read(treeDir)
	if err != nil {
		b.Fatal(err)
	}
	g := m.Graphs[0]
	heads := map[string]string{
		"version": "GET /api/upgrades_info/v1/graph?arch=" + g.Arch + "&channel=" + g.Channel + "&id=0f0e0d0c-0b0a-0908-0706-050403020100&version=" + g.Versions[len(g.Versions)-1] + " HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: application/json\r\nUser-Agent: ClusterVersionOperator/4.16\r\n",
		"channel": "GET /api/upgrades_info/v1/graph?arch=" + g.Arch + "&channel=" + g.Channel + " HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: application/json\r\n",
	}
	// As clusters ask (Go's Transport adds Accept-Encoding: gzip): answered
	// from the gzip copies the same way.
	heads["version-gzip"] = heads["version"] + "Accept-Encoding: gzip\r\n"
	heads["channel-gzip"] = heads["channel"] + "Accept-Encoding: gzip\r\n"
	for name, head := range heads {
		b.Run(name, func(b *testing.B) {
			// Converted once: the server reads heads into a buffer it
			// reuses, so the conversion is none of its allocations.
			head := []byte(head)
			if _, ok := h.AnswerFast(head); !ok {
				b.Fatal("not answered on the fast path")
			}
			b.ReportAllocs()
			for b.Loop() {
				if status, ok := h.AnswerFast(head); !ok || status != 200 {
					b.Fatalf("status %d, fast %v", status, ok)
				}
			}
		})
	}
}
