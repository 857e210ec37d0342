package path

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
)

// vector is one entry of testdata/vectors.json (see testdata/README.md).
type vector struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Graph       json.RawMessage `json:"graph"`
	From        string          `json:"from"`
	To          string          `json:"to"`
	Want        struct {
		Found bool        `json:"found"`
		Hops  []vectorHop `json:"hops"`
		Error string      `json:"error"`
	} `json:"want"`
}

type vectorHop struct {
	From        string   `json:"from"`
	To          string   `json:"to"`
	Conditional bool     `json:"conditional"`
	Risks       []string `json:"risks"`
}

func readVectors(t *testing.T) []vector {
	t.Helper()
	data, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestVectors(t *testing.T) {
	vs := readVectors(t)
	names := map[string]bool{}
	for _, v := range vs {
		if names[v.Name] || v.Name == "" {
			t.Errorf("vector name %q is empty or not unique", v.Name)
		}
		names[v.Name] = true
		t.Run(v.Name, func(t *testing.T) {
			g, err := Decode(v.Name, v.Graph)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Plan(g, v.From, v.To, Options{})
			var unknown *UnknownVersionError
			switch {
			case v.Want.Error == "unknown-version":
				if !errors.As(err, &unknown) {
					t.Fatalf("Plan: got %v, want an unknown version", err)
				}
				return
			case v.Want.Error != "":
				t.Fatalf("unknown want.error %q", v.Want.Error)
			case !v.Want.Found:
				if !errors.Is(err, ErrNoPath) {
					t.Fatalf("Plan: got %v, %+v; want ErrNoPath", err, p)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			got := []vectorHop{}
			for _, h := range p.Hops {
				names := []string{}
				for _, r := range h.Risks {
					names = append(names, r.Name)
				}
				got = append(got, vectorHop{h.From, h.To, h.Conditional, names})
			}
			if !slices.EqualFunc(got, v.Want.Hops, func(a, b vectorHop) bool {
				return a.From == b.From && a.To == b.To && a.Conditional == b.Conditional && slices.Equal(a.Risks, b.Risks)
			}) {
				t.Errorf("hops:\n got %+v\nwant %+v", got, v.Want.Hops)
			}
		})
	}
}

// TestVectorsAgainstBruteForce checks Plan against an exhaustive search
// that applies the definition literally, on every vector and every pair
// of its versions, with and without conditional edges.
func TestVectorsAgainstBruteForce(t *testing.T) {
	for _, v := range readVectors(t) {
		g, err := Decode(v.Name, v.Graph)
		if err != nil {
			t.Fatal(err)
		}
		checkBruteForce(t, v.Name, g)
	}
}

func checkBruteForce(t *testing.T, name string, g *Graph) {
	t.Helper()
	for _, opts := range []Options{{}, {UnconditionalOnly: true}} {
		for _, a := range g.Nodes {
			for _, b := range g.Nodes {
				got, err := Plan(g, a.Version, b.Version, opts)
				want, found := bruteForce(g, a.Version, b.Version, opts)
				if found != (err == nil) || (err != nil && !errors.Is(err, ErrNoPath)) {
					t.Fatalf("%s %+v %s → %s: found %v, Plan error %v", name, opts, a.Version, b.Version, found, err)
				}
				if found && !slices.Equal(hopVersions(got), want) {
					t.Errorf("%s %+v %s → %s: Plan %v, brute force %v", name, opts, a.Version, b.Version, hopVersions(got), want)
				}
			}
		}
	}
}

func hopVersions(p Path) []string {
	out := []string{p.From}
	for _, h := range p.Hops {
		out = append(out, h.To)
	}
	return out
}

// bruteForce enumerates every path and keeps the best by the definition.
func bruteForce(g *Graph, from, to string, opts Options) ([]string, bool) {
	src, _ := g.Lookup(from)
	dst, _ := g.Lookup(to)
	var best []int
	bestCond := 0
	better := func(p []int, cond int) bool {
		switch {
		case best == nil:
			return true
		case len(p) != len(best):
			return len(p) < len(best)
		case cond != bestCond:
			return cond < bestCond
		}
		for i := 1; i < len(p)-1; i++ {
			if p[i] != best[i] {
				return p[i] > best[i] // node order is version order
			}
		}
		return false
	}
	var walk func(p []int, cond int)
	walk = func(p []int, cond int) {
		u := p[len(p)-1]
		if u == dst {
			if better(p, cond) {
				best, bestCond = slices.Clone(p), cond
			}
			return
		}
		for _, e := range g.Out(u) {
			if opts.UnconditionalOnly && e.Conditional {
				continue
			}
			walk(append(p, e.To), cond+int(b2i(e.Conditional)))
		}
	}
	walk([]int{src}, 0)
	if best == nil {
		return nil, false
	}
	out := make([]string, len(best))
	for i, n := range best {
		out[i] = g.Nodes[n].Version
	}
	return out, true
}
