package sha256x16

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// k256 are the round constants (FIPS 180-4 §4.2.2); block16_amd64.s reads
// them from here too.
var k256 = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// block16Generic is block16 in Go, one lane after another: the reference
// the assembly is tested against, and the kernel that lets the lane
// scheduler be tested on every architecture.
func block16Generic(state *[8][lanes]uint32, ptrs *[lanes]unsafe.Pointer, n int) {
	for lane := range lanes {
		var h [8]uint32
		for j := range h {
			h[j] = state[j][lane]
		}
		data := unsafe.Slice((*byte)(ptrs[lane]), 64*n)
		for ; len(data) >= 64; data = data[64:] {
			compress(&h, data[:64])
		}
		for j := range h {
			state[j][lane] = h[j]
		}
	}
}

// compress is FIPS 180-4 §6.2.2 steps 1–4 for one block.
func compress(h *[8]uint32, p []byte) {
	var w [64]uint32
	for t := range 16 {
		w[t] = binary.BigEndian.Uint32(p[4*t:])
	}
	for t := 16; t < 64; t++ {
		s0 := bits.RotateLeft32(w[t-15], -7) ^ bits.RotateLeft32(w[t-15], -18) ^ w[t-15]>>3
		s1 := bits.RotateLeft32(w[t-2], -17) ^ bits.RotateLeft32(w[t-2], -19) ^ w[t-2]>>10
		w[t] = s1 + w[t-7] + s0 + w[t-16]
	}
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for t := range 64 {
		t1 := hh + (bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)) + (e&f ^ ^e&g) + k256[t] + w[t]
		t2 := (bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)) + (a&b ^ a&c ^ b&c)
		hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
	}
	h[0] += a
	h[1] += b
	h[2] += c
	h[3] += d
	h[4] += e
	h[5] += f
	h[6] += g
	h[7] += hh
}

// block2Generic is block2 in Go, the reference the assembly is tested
// against and the kernel that lets the pair scheduler run everywhere.
func block2Generic(state *[2][8]uint32, p0, p1 unsafe.Pointer, n int) {
	for lane, p := range [2]unsafe.Pointer{p0, p1} {
		data := unsafe.Slice((*byte)(p), 64*n)
		for ; len(data) >= 64; data = data[64:] {
			compress(&state[lane], data[:64])
		}
	}
}

// block2eqGeneric is block2eq in Go, the reference the assembly is tested
// against.
func block2eqGeneric(state *[2][8]uint32, p0, p1, q0, q1 unsafe.Pointer, n int) (same0, same1 uint32) {
	block2Generic(state, p0, p1, n)
	same := func(p, q unsafe.Pointer) uint32 {
		if bytes.Equal(unsafe.Slice((*byte)(p), 64*n), unsafe.Slice((*byte)(q), 64*n)) {
			return 0xffff
		}
		return 0
	}
	return same(p0, q0), same(p1, q1)
}
