package path

import (
	"testing"

	"github.com/upgraph/upgraph/internal/cputime"
	"github.com/upgraph/upgraph/release/mirror"
)

// benchRequest is a real-scale query: 4.14 → 4.16 in stable-4.16 with
// its EUS channels, the largest union `upgraph path` reads for it.
var benchRequest = Request{From: "4.14.1", To: "4.16.54", Channel: "stable-4.16", Arch: "amd64", ViaEUS: true}

// BenchmarkPlan measures the algorithm alone on the union of stable-4.16,
// eus-4.14 and eus-4.16 of the real graph-data (synthesised releases).
func BenchmarkPlan(b *testing.B) {
	s, err := mirror.OpenSource(b.Context(), realTreeDir(b), mirror.SourceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var graphs []*Graph
	for _, c := range []string{"stable-4.16", "eus-4.14", "eus-4.16"} {
		g, err := Read(b.Context(), s, c, "amd64")
		if err != nil {
			b.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	g := Union(graphs...)
	for b.Loop() {
		if _, err := Plan(g, benchRequest.From, benchRequest.To, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Nodes)), "nodes")
	b.ReportMetric(float64(len(g.Edges)), "edges")
}

// BenchmarkFind measures what `upgraph path --via-eus` does after start-up
// on a real-scale tree directory: read index.json, read and digest-check
// three channel graphs, decode them, take their union and plan.
func BenchmarkFind(b *testing.B) {
	dir := realTreeDir(b)
	cpu := cputime.Process()
	for b.Loop() {
		s, err := mirror.OpenSource(b.Context(), dir, mirror.SourceOptions{})
		if err != nil {
			b.Fatal(err)
		}
		r, err := Find(b.Context(), s, benchRequest)
		s.Close()
		if err != nil || !r.Found {
			b.Fatal(err)
		}
	}
	// CPU time, GC included, is steadier than wall time on a busy machine.
	b.ReportMetric(float64((cputime.Process()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkDecode measures Decode alone on the real-scale stable-4.16
// graph file.
func BenchmarkDecode(b *testing.B) {
	s, err := mirror.OpenSource(b.Context(), realTreeDir(b), mirror.SourceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	label, data, err := s.Fetch(b.Context(), "stable-4.16", "amd64")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(label, data); err != nil {
			b.Fatal(err)
		}
	}
}
