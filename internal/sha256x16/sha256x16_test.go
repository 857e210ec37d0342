package sha256x16

import (
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
			var want, got [2][8]uint32
			for i := range want {
				for j := range want[i] {
					want[i][j] = r.Uint32()
				}
			}
			got = want
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
