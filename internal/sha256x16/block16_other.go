//go:build !amd64

package sha256x16

import "unsafe"

const hasBlock16 = false

func block16(state *[8][lanes]uint32, ptrs *[lanes]unsafe.Pointer, n int) {
	panic("sha256x16: no 16-lane block function on this architecture")
}
