package rollout

import (
	"fmt"
	"math/rand/v2"
)

// RandomUUID is a random version-4 UUID from rng, as a cluster's
// spec.clusterID reads, for simulations and tests of the bucket shares.
func RandomUUID(rng *rand.Rand) string {
	a, b := rng.Uint64(), rng.Uint64()
	a = a&^0xf000 | 0x4000
	b = b&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}
