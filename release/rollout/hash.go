package rollout

import (
	"fmt"
	"math/big"
	"regexp"
)

// MurmurHash2 is nginx's ngx_murmur_hash2 (nginx/nginx 3f6f7824,
// src/core/ngx_murmurhash.c): Austin Appleby's MurmurHash2, 32-bit,
// seeded with the length. split_clients hashes its value with it, and so
// do serve and the CloudFront function, so the three edges put an id in
// the same bucket.
func MurmurHash2(data []byte) uint32 {
	const m = 0x5bd1e995
	h := uint32(len(data))
	for len(data) >= 4 {
		k := uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16 | uint32(data[3])<<24
		k *= m
		k ^= k >> 24
		k *= m
		h *= m
		h ^= k
		data = data[4:]
	}
	switch len(data) {
	case 3:
		h ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}

// CheckBuckets refuses a bucket count whose buckets are not whole
// split_clients shares: nginx takes percentages with two decimals, so
// DefaultBuckets is the number of buckets when none is given (generate's
// --rollout-buckets default, issue 28).
const DefaultBuckets = 10

// 100/n % must be a multiple of 0.01 %, i.e. n must divide 10,000.
func CheckBuckets(n int) error {
	if n < 1 || n > 10000 || 10000%n != 0 {
		return fmt.Errorf("--rollout-buckets %d: want a divisor of 10000 (1, 2, 4, 5, 8, 10, 16, 20, 25, …, 100, …) so that each bucket is an exact nginx split_clients percentage", n)
	}
	return nil
}

// SplitPercent is bucket's share in split_clients' unit, hundredths of a
// percent (n divides 10,000).
func SplitPercent(n int) uint32 { return uint32(10000 / n) }

// SplitBounds are split_clients' thresholds for n equal parts, buckets 1
// to n in order, as ngx_conf_split_clients_block computes them
// (src/http/modules/ngx_http_split_clients_module.c): each part adds
// percent·0xffffffff/10000 (rounded down, per part) to a running 32-bit
// total; the last part ("*") takes the rest. A hash h goes to the first
// part with h < bound.
func SplitBounds(n int) []uint32 {
	bounds := make([]uint32, n-1)
	var last uint32
	p := uint64(SplitPercent(n))
	for i := range bounds {
		last += uint32(p * 0xffffffff / 10000)
		bounds[i] = last
	}
	return bounds
}

// HashBucket is the bucket (1..n) split_clients puts value in.
func HashBucket(value string, n int) int {
	h := MurmurHash2([]byte(value))
	for i, b := range SplitBounds(n) {
		if h < b {
			return i + 1
		}
	}
	return n
}

// warinessSyntax is what every edge accepts as rollout_wariness: a plain
// decimal, optionally signed (Zincati sends "%.06f"). FCOS's Rust parse
// also takes exponents, "inf" and "NaN"; those are ignored here (the id
// decides), because an nginx map cannot evaluate them.
var warinessSyntax = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$`)

// WarinessBucket is the bucket of a rollout_wariness value W: ⌈W·n⌉ with
// W clamped to [0, 1] (FCOS clamps), so W = 0 is the canary bucket 0 and
// a bucket holds wariness in ((k−1)/n, k/n]. The value is compared
// exactly as a decimal, as the nginx map's regular expressions do. ok is
// false when W is not a plain decimal.
func WarinessBucket(w string, n int) (int, bool) {
	if !warinessSyntax.MatchString(w) {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(w)
	if !ok {
		return 0, false
	}
	if r.Sign() <= 0 {
		return 0, true
	}
	if r.Cmp(big.NewRat(1, 1)) >= 0 {
		return n, true
	}
	r.Mul(r, big.NewRat(int64(n), 1))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return int(q.Int64()), true
}

// Query is what of a /graph query picks the bucket, as sent (the last of
// repeated parameters, decoded as the handler decodes the query).
type Query struct {
	Wariness, ID, NodeUUID string
	HasWariness            bool
}

// NoIDBucket is the bucket of a client that sends neither a usable
// rollout_wariness nor an id: the most wary, n, offered a rolling release
// only once its rollout is complete.
func NoIDBucket(n int) int { return n }

// Bucket is the bucket the edges give q: a plain-decimal
// rollout_wariness wins (WarinessBucket), else a non-empty id, else a
// non-empty node_uuid, hashed with split_clients' MurmurHash2
// (HashBucket), else NoIDBucket.
func Bucket(q Query, n int) int {
	if q.HasWariness {
		if k, ok := WarinessBucket(q.Wariness, n); ok {
			return k
		}
	}
	switch {
	case q.ID != "":
		return HashBucket(q.ID, n)
	case q.NodeUUID != "":
		return HashBucket(q.NodeUUID, n)
	}
	return NoIDBucket(n)
}
