package sha256x16

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// randomStates is two random SHA-256 chaining states, as block2 and
// block2eq carry them.
func randomStates(r *rand.Rand) (s [2][8]uint32) {
	for i := range s {
		for j := range s[i] {
			s[i][j] = r.Uint32()
		}
	}
	return s
}

// TestBlock16MatchesGeneric compares the assembly with the Go reference
// on random states and blocks.
func TestBlock16MatchesGeneric(t *testing.T) {
	if !hasBlock16 {
		t.Skip("no AVX-512 on this machine: Sum uses crypto/sha256, which TestSum covers")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 5; n++ {
		for range 20 {
			var want, got [8][lanes]uint32
			for j := range want {
				for i := range want[j] {
					want[j][i] = r.Uint32()
				}
			}
			got = want
			var ptrs [lanes]unsafe.Pointer
			bufs := make([][]byte, lanes)
			for i := range ptrs {
				bufs[i] = randomBytes(r, 64*n)
				ptrs[i] = unsafe.Pointer(&bufs[i][0])
			}
			block16Generic(&want, &ptrs, n)
			block16(&got, &ptrs, n)
			if got != want {
				t.Fatalf("%d blocks: block16 state\n%x\nwant\n%x", n, got, want)
			}
		}
	}
}

// TestBlock2MatchesGeneric compares the SHA-NI assembly with the Go
// reference on random states and blocks.
func TestBlock2MatchesGeneric(t *testing.T) {
	if !hasBlock2 {
		t.Skip("no SHA extensions on this machine")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 1; n <= 6; n++ {
		for range 50 {
			want := randomStates(r)
			got := want
			b0, b1 := randomBytes(r, 64*n), randomBytes(r, 64*n)
			block2Generic(&want, unsafe.Pointer(&b0[0]), unsafe.Pointer(&b1[0]), n)
			block2(&got, unsafe.Pointer(&b0[0]), unsafe.Pointer(&b1[0]), n)
			if got != want {
				t.Fatalf("%d blocks: block2 state\n%x\nwant\n%x", n, got, want)
			}
		}
	}
}

// TestSum checks digests against crypto/sha256 for message sets that
// exercise every padding case (lengths around 55, 56, 64, 119, 120),
// empty messages, lanes left idle, and one long message outliving the
// rest (the crypto/sha256 finish), with the assembly where the machine
// has it and with the Go reference kernel everywhere.
func TestSum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sets := map[string][]int{
		"empty set":      {},
		"one":            {1000},
		"two":            {0, 0},
		"padding edges":  {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 129, 191, 192},
		"fewer than 16":  {3, 700, 64, 5000},
		"one long tail":  append([]int{300_000}, make([]int, 40)...),
		"long and short": {100_000, 90_000, 5, 64 * 1000, 17, 128, 64*37 + 56},
	}
	var mixed []int
	for range 300 {
		mixed = append(mixed, r.IntN(4000))
	}
	sets["300 random"] = mixed
	var lengths []int
	for n := range 260 {
		lengths = append(lengths, n)
	}
	sets["every length to 259"] = lengths

	kernels := map[string]func(out [][sha256.Size]byte, msgs [][]byte){
		"generic":       func(out [][sha256.Size]byte, msgs [][]byte) { sumLanes(out, msgs, block16Generic) },
		"pairs-generic": func(out [][sha256.Size]byte, msgs [][]byte) { sumPairs(out, msgs, block2Generic) },
		"Sum":           func(out [][sha256.Size]byte, msgs [][]byte) { copy(out, Sum(msgs)) },
	}
	for name, lens := range sets {
		msgs := make([][]byte, len(lens))
		for i, n := range lens {
			msgs[i] = randomBytes(r, n)
		}
		for kname, sum := range kernels {
			t.Run(fmt.Sprintf("%s/%s", name, kname), func(t *testing.T) {
				out := make([][sha256.Size]byte, len(msgs))
				sum(out, msgs)
				for i, m := range msgs {
					if want := sha256.Sum256(m); out[i] != want {
						t.Fatalf("message %d (%d bytes): %x, want %x", i, len(m), out[i], want)
					}
				}
			})
		}
	}
}

func FuzzSum(f *testing.F) {
	f.Add([]byte("abc"), uint8(3), uint16(55))
	f.Fuzz(func(t *testing.T, data []byte, count uint8, step uint16) {
		msgs := make([][]byte, int(count)%40)
		for i := range msgs {
			n := (i * int(step)) % (len(data) + 1)
			msgs[i] = data[:n]
		}
		for i, got := range Sum(msgs) {
			if want := sha256.Sum256(msgs[i]); got != want {
				t.Fatalf("message %d (%d bytes): %x, want %x", i, len(msgs[i]), got, want)
			}
		}
	})
}

// BenchmarkSum hashes 256 files of 4–100 KB, the shape of a channel's
// per-version files, with Sum and with crypto/sha256 one by one.
func BenchmarkSum(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	msgs := make([][]byte, 256)
	total := 0
	for i := range msgs {
		msgs[i] = randomBytes(r, 4000+r.IntN(96_000))
		total += len(msgs[i])
	}
	b.Run("sha256x16", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			Sum(msgs)
		}
	})
	if hasBlock2 {
		b.Run("sha-ni-pairs", func(b *testing.B) {
			b.SetBytes(int64(total))
			out := make([][sha256.Size]byte, len(msgs))
			for b.Loop() {
				sumPairs(out, msgs, block2)
			}
		})
	}
	b.Run("crypto-sha256", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, m := range msgs {
				sha256.Sum256(m)
			}
		}
	})
}

// TestBlock2EqMatchesGeneric compares block2eq with the Go reference: the
// same states as block2, and each lane found equal exactly when its
// blocks are, a difference in any byte of any block included.
func TestBlock2EqMatchesGeneric(t *testing.T) {
	if !hasBlock2 {
		t.Skip("no SHA extensions on this machine")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for n := 1; n <= 6; n++ {
		for k := range 200 {
			want := randomStates(r)
			got := want
			b0, b1 := randomBytes(r, 64*n), randomBytes(r, 64*n)
			q0, q1 := bytes.Clone(b0), bytes.Clone(b1)
			switch k % 4 {
			case 1:
				q0[r.IntN(len(q0))] ^= 1 << r.IntN(8)
			case 2:
				q1[r.IntN(len(q1))] ^= 1 << r.IntN(8)
			case 3:
				q0[r.IntN(len(q0))]++
				q1[len(q1)-1]--
			}
			p := func(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }
			w0, w1 := block2eqGeneric(&want, p(b0), p(b1), p(q0), p(q1), n)
			g0, g1 := block2eq(&got, p(b0), p(b1), p(q0), p(q1), n)
			if got != want {
				t.Fatalf("%d blocks: block2eq state\n%x\nwant\n%x", n, got, want)
			}
			if (g0 == 0xffff) != (w0 == 0xffff) || (g1 == 0xffff) != (w1 == 0xffff) {
				t.Fatalf("%d blocks, case %d: same %#x %#x, want %#x %#x", n, k%4, g0, g1, w0, w1)
			}
		}
	}
}

// TestSumEqual checks SumEqual's digests against crypto/sha256 and its
// answers against bytes.Equal, with the assembly and the Go reference
// kernel: messages compared with themselves, with a copy differing in
// one byte (in a whole block, in the tail, the first and the last),
// with bytes of another length, and with nothing; old is called once
// per message before its done, and at most two are in flight.
func TestSumEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var lens []int
	for range 120 {
		lens = append(lens, r.IntN(3000))
	}
	lens = append(lens, 0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300_000, 64*40)
	msgs := make([][]byte, len(lens))
	olds := make([][]byte, len(lens))
	has := make([]bool, len(lens))
	wantEq := make([]bool, len(lens))
	for i, n := range lens {
		msgs[i] = randomBytes(r, n)
		switch i % 5 {
		case 0, 1:
			olds[i], has[i], wantEq[i] = bytes.Clone(msgs[i]), true, true
		case 2:
			olds[i], has[i] = bytes.Clone(msgs[i]), true
			if n == 0 {
				olds[i] = []byte{0}
				break
			}
			at := []int{0, n - 1, r.IntN(n), n &^ 63}[i/5%4]
			if at >= n {
				at = n - 1
			}
			olds[i][at] ^= 0x20
		case 3:
			olds[i], has[i] = append(bytes.Clone(msgs[i]), 'x'), true
		}
	}
	kernels := map[string]func(old func(int) ([]byte, bool), done func(int, bool)) [][sha256.Size]byte{
		"SumEqual": func(old func(int) ([]byte, bool), done func(int, bool)) [][sha256.Size]byte {
			return SumEqual(msgs, old, done)
		},
		"pairs-generic": func(old func(int) ([]byte, bool), done func(int, bool)) [][sha256.Size]byte {
			out := make([][sha256.Size]byte, len(msgs))
			sumPairsEqual(out, msgs, block2eqGeneric, &comparison{old: old, done: done})
			return out
		},
	}
	for name, sum := range kernels {
		t.Run(name, func(t *testing.T) {
			started := make([]int, len(msgs))
			got := make([]int, len(msgs)) // 0 not done, 1 equal, 2 not
			inFlight, most := 0, 0
			out := sum(func(i int) ([]byte, bool) {
				started[i]++
				inFlight++
				most = max(most, inFlight)
				// A buffer of the caller's, changed once done.
				return olds[i], has[i]
			}, func(i int, eq bool) {
				if started[i] != 1 || got[i] != 0 {
					t.Fatalf("message %d: done after %d starts, %d dones", i, started[i], got[i])
				}
				inFlight--
				got[i] = 2
				if eq {
					got[i] = 1
				}
			})
			if most > 2 {
				t.Errorf("%d messages in flight at once, want at most 2", most)
			}
			for i, m := range msgs {
				if want := sha256.Sum256(m); out[i] != want {
					t.Fatalf("message %d (%d bytes): %x, want %x", i, len(m), out[i], want)
				}
				if (got[i] == 1) != wantEq[i] || got[i] == 0 {
					t.Errorf("message %d (%d bytes, case %d): equal state %d, want %v", i, len(m), i%5, got[i], wantEq[i])
				}
			}
		})
	}
}

// BenchmarkSumEqual hashes BenchmarkSum's files and compares each with an
// equal copy: SumEqual in one pass, against Sum and then bytes.Equal.
func BenchmarkSumEqual(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	msgs := make([][]byte, 256)
	olds := make([][]byte, len(msgs))
	total := 0
	for i := range msgs {
		msgs[i] = randomBytes(r, 4000+r.IntN(96_000))
		olds[i] = bytes.Clone(msgs[i])
		total += len(msgs[i])
	}
	b.Run("fused", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			SumEqual(msgs, func(i int) ([]byte, bool) { return olds[i], true }, func(int, bool) {})
		}
	})
	b.Run("sum-then-equal", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			Sum(msgs)
			for i := range msgs {
				if !bytes.Equal(msgs[i], olds[i]) {
					b.Fatal("differ")
				}
			}
		}
	})
}
