package site

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"time"
)

// The values of upgraph serve's and service's flags are checked here, so
// that a refusal names the flag as it is typed (--name) and the commands
// only parse, call and print.

// Prefixes is Prefix of every --prefix value, in order; an error names
// the value.
func Prefixes(values []string) ([]string, error) {
	var prefixes []string
	for _, p := range values {
		prefix, err := Prefix(p)
		if err != nil {
			return nil, fmt.Errorf("--prefix %q: %w", p, err)
		}
		prefixes = append(prefixes, prefix)
	}
	return prefixes, nil
}

// ServeLimits are serve's numeric flags.
type ServeLimits struct {
	Poll            time.Duration // --poll
	CacheMB         int64         // --cache-mb
	ShrinkThreshold float64       // --shrink-threshold
}

// Check refuses the first value out of range, naming its flag.
func (l ServeLimits) Check() error {
	switch {
	case l.Poll <= 0:
		return fmt.Errorf("--poll %v: want a positive duration", l.Poll)
	case l.CacheMB < 0 || l.CacheMB > math.MaxInt64>>22:
		return fmt.Errorf("--cache-mb %d: want 0 (no cache) or a positive number of MiB", l.CacheMB)
	case !(l.ShrinkThreshold >= 0 && l.ShrinkThreshold <= 1):
		return fmt.Errorf("--shrink-threshold %v: want a fraction from 0 to 1", l.ShrinkThreshold)
	}
	return nil
}

// ServeCache sets the process's memory limit for a cache of cacheBytes
// (unless GOMEMLIMIT does) and returns Options.CacheBytes for it.
func ServeCache(cacheBytes int64) int64 {
	if os.Getenv("GOMEMLIMIT") == "" {
		// The cache is nearly all of the live heap; without a limit the
		// collector lets the heap reach twice that before it runs, and a
		// full 512 MiB cache (plus its gzip copies) held RSS at 1.3 GB.
		debug.SetMemoryLimit(cacheBytes + cacheBytes/4 + 256<<20)
	}
	if cacheBytes == 0 {
		return -1 // Options: nothing kept
	}
	return cacheBytes
}
