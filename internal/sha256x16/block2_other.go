//go:build !amd64

package sha256x16

import "unsafe"

const hasBlock2 = false

func block2(state *[2][8]uint32, p0, p1 unsafe.Pointer, n int) {
	panic("sha256x16: no two-lane block function on this architecture")
}

func block2eq(state *[2][8]uint32, p0, p1, q0, q1 unsafe.Pointer, n int) (same0, same1 uint32) {
	panic("sha256x16: no two-lane block function on this architecture")
}
