package manifest

import (
	"cmp"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// parallelFiles is the size of file table from which encodeFiles sorts
// and encodes in parallel: below it, starting goroutines costs more than
// it saves.
const parallelFiles = 8192

// encodeFiles writes the file table, {"NAME":{"sha256":"HEX","size":N},…}
// sorted by name, as encoding/json would. At real scale (78,600 files)
// sorting the names and encoding them took about 0.1 s between the last
// file stored and the swap: a large table is cut into one part per CPU,
// each sorted and then encoded on its own, and the sorted parts merged.
func encodeFiles(files map[string]File) []byte {
	if files == nil {
		return []byte("null")
	}
	names := sortedNames(files)
	parts := 1
	if len(names) >= parallelFiles {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	out := make([][]byte, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(names)/parts, (p+1)*len(names)/parts
		wg.Go(func() { out[p] = appendFiles(nil, files, names[lo:hi]) })
	}
	wg.Wait()
	size := 2
	for _, o := range out {
		size += len(o) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, '{')
	for _, o := range out {
		if len(o) == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, o...)
	}
	return append(b, '}')
}

// appendFiles appends the entries of names, comma-separated.
func appendFiles(b []byte, files map[string]File, names []string) []byte {
	if b == nil {
		b = make([]byte, 0, len(names)*(len(`"":{"sha256":"","size":},`)+64+40+12))
	}
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		f := files[name]
		b = appendPlainString(b, name)
		b = append(b, `:{"sha256":`...)
		b = appendPlainString(b, f.SHA256)
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, f.Size, 10)
		b = append(b, '}')
	}
	return b
}

// sortedNames returns the names of files in order, a large table sorted
// in parts at once and merged.
func sortedNames(files map[string]File) []string {
	names := slices.AppendSeq(make([]string, 0, len(files)), maps.Keys(files))
	if len(names) < parallelFiles {
		slices.Sort(names)
		return names
	}
	parts := min(runtime.GOMAXPROCS(0), 8)
	if parts < 2 {
		slices.Sort(names)
		return names
	}
	bounds := make([][]string, parts)
	var wg sync.WaitGroup
	for p := range parts {
		part := names[p*len(names)/parts : (p+1)*len(names)/parts]
		bounds[p] = part
		wg.Go(func() { slices.Sort(part) })
	}
	wg.Wait()
	// Merged two by two: log2(parts) linear passes.
	buf := make([]string, len(names))
	for len(bounds) > 1 {
		next := bounds[:0:0]
		at := 0
		for i := 0; i < len(bounds); i += 2 {
			if i+1 == len(bounds) {
				dst := buf[at : at+len(bounds[i])]
				copy(dst, bounds[i])
				next = append(next, dst)
				at += len(dst)
				continue
			}
			dst := merge(buf[at:at], bounds[i], bounds[i+1])
			next = append(next, dst)
			at += len(dst)
		}
		bounds = next
		names, buf = buf, names
	}
	return bounds[0]
}

// merge appends the sorted a and b to dst, in order.
func merge(dst, a, b []string) []string {
	for len(a) > 0 && len(b) > 0 {
		if cmp.Less(b[0], a[0]) {
			dst, b = append(dst, b[0]), b[1:]
		} else {
			dst, a = append(dst, a[0]), a[1:]
		}
	}
	dst = append(dst, a...)
	return append(dst, b...)
}
