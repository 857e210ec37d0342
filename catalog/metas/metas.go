// Package metas writes a catalog's catalogd-compatible files: the whole
// catalog as catalogd's /api/v1/all answers it (all.jsonl) and the answers
// of its /api/v1/metas endpoint for the queries worth precomputing, so
// that a static host answers them from files. docs/operators.md
// ("Serving") records the catalogd behaviour reproduced here, with the
// upstream files it was read from.
//
// A blob is served as catalogd stores it: its bytes as operator-registry
// re-encodes them (declcfg.Meta.Blob) followed by one newline; an answer
// is the concatenation of the matching blobs in load order. A metas query
// selects the blobs whose schema, package and name (the keys
// operator-registry extracts, matched case-insensitively) equal every
// non-empty parameter; an olm.package blob has no package key, so
// ?package=P does not return it.
//
// Files, relative to the catalog's directory (operators/<catalog>/):
//
//	all.jsonl                         every blob             /api/v1/all, /api/v1/metas
//	metas/empty.jsonl                 nothing                any query matching no blob
//	metas/schema/S.jsonl              every blob of S        ?schema=S
//	metas/package/P.jsonl             every blob of P        ?package=P
//	metas/package/P/S.jsonl           blobs of S in P        ?schema=S&package=P
//	metas/name/N.jsonl                blobs named N          ?name=N
//	metas/schema/S/N.jsonl            blobs of S named N     ?schema=S&name=N
//	metas/package/P/name/N.jsonl      blobs of P named N     ?package=P&name=N
//	metas/package/P/schema/S/N.jsonl  blobs of S in P named N  ?schema=S&package=P&name=N
//
// for every schema S and package P that some blob has, and for the
// schema, package and name of every blob with a schema and a name (the
// name files exist only where some blob matches: at most four per blob,
// so the number of files is linear in the number of blobs). Every schema
// × package combination has its file, empty when no blob matches
// (?schema=olm.package&package=P always is), so a host that cannot tell
// an empty answer from an unknown value still answers every combination
// of the catalog's own schemas and packages. A query for a combination no
// blob has names a file that does not exist; its answer is
// metas/empty.jsonl. Names are encoded by Encode, which writes '/' only
// after ContinueMark, splitting a long encoding into directories; the
// directories "name" and "schema" beside metas/package/P/S.jsonl are no
// schema's file, which ends in ".jsonl".
package metas

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// File is one file of a catalog's catalogd-compatible output; Path is
// relative to the catalog's directory (operators/<catalog>/).
type File struct {
	Path string
	Data []byte
	// Cuts are where the file's segments start, the first aside (see
	// Segments): nil for a file kept whole.
	Cuts []int
	// Lines are the file's blobs, as indices of the catalog's blobs in
	// the file's order, when it has Cuts (nil otherwise): which blobs
	// each segment's part holds.
	Lines []int32
	// Package is P for a file of metas/package/P/… (and
	// metas/package/P.jsonl) whose blobs all belong to P (its blobs of
	// schema olm.package are named P, the others have package P): its
	// bytes are a function of P's blobs in load order alone, whatever
	// the other packages hold. "" for every other file.
	Package string
}

// Segments. all.jsonl and metas/schema/S.jsonl hold the blobs of every
// package, most of a catalog's bytes, and change whenever any package
// does. Their gzip copies are made of segments compressed independently
// (precompress.GzipSegmented), one per run of a package's blobs, so that
// a regeneration compresses again only the runs that changed. A file gets
// segments when it has at least SegmentedMin bytes; a segment ends where
// the package changes from one line to the next, once it has
// SegmentMin bytes (small packages share a segment, which keeps the
// copies nearly as small as a single stream's). The cuts are a function
// of the file's bytes (each line's package is the blob's), so files of
// the same bytes have the same.
const (
	SegmentedMin = 128 << 10
	SegmentMin   = 16 << 10
)

// blobPackage is the package a blob belongs to for segmenting: its own
// name for an olm.package blob.
func blobPackage(m *declcfg.Meta) string {
	if m.Schema == declcfg.SchemaPackage {
		return m.Name
	}
	return m.Package
}

// segmentCuts returns the cuts of a file made of the given lines
// (all.jsonl's line numbers, offs their offsets there), nil when it is
// kept whole.
func segmentCuts(metas []declcfg.Meta, offs []int, lines []int32, all bool) []int {
	size := 0
	if all {
		size = offs[len(offs)-1]
	} else {
		for _, i := range lines {
			size += offs[i+1] - offs[i]
		}
	}
	if size < SegmentedMin {
		return nil
	}
	var cuts []int
	pos, start := 0, 0
	prev := ""
	line := func(k int) int {
		if all {
			return k
		}
		return int(lines[k])
	}
	n := len(lines)
	if all {
		n = len(metas)
	}
	for k := range n {
		i := line(k)
		pkg := blobPackage(&metas[i])
		if k > 0 && pkg != prev && pos-start >= SegmentMin {
			cuts = append(cuts, pos)
			start = pos
		}
		prev = pkg
		pos += offs[i+1] - offs[i]
	}
	return cuts
}

// Paths of the files every catalog has.
const (
	AllFile   = "all.jsonl"
	EmptyFile = "metas/empty.jsonl"
)

// NameDir holds the answers of ?name=N (NameFile): a catalog with a named
// blob has a file there.
const NameDir = "metas/name/"

// NamedSchema is the schema of a package's metadata:
// ?schema=olm.package&name=N is how clients read one package's metadata
// (upstream's documented query).
const NamedSchema = declcfg.SchemaPackage

// SchemaFile answers ?schema=schema.
func SchemaFile(schema string) string { return "metas/schema/" + Encode(schema) + ".jsonl" }

// PackageFile answers ?package=pkg.
func PackageFile(pkg string) string { return "metas/package/" + Encode(pkg) + ".jsonl" }

// PackageSchemaFile answers ?schema=schema&package=pkg.
func PackageSchemaFile(pkg, schema string) string {
	return "metas/package/" + Encode(pkg) + "/" + Encode(schema) + ".jsonl"
}

// NameFile answers ?name=name.
func NameFile(name string) string { return NameDir + Encode(name) + ".jsonl" }

// SchemaNameFile answers ?schema=schema&name=name.
func SchemaNameFile(schema, name string) string {
	return "metas/schema/" + Encode(schema) + "/" + Encode(name) + ".jsonl"
}

// PackageNameFile answers ?package=pkg&name=name.
func PackageNameFile(pkg, name string) string {
	return "metas/package/" + Encode(pkg) + "/name/" + Encode(name) + ".jsonl"
}

// PackageSchemaNameFile answers ?schema=schema&package=pkg&name=name.
func PackageSchemaNameFile(pkg, schema, name string) string {
	return "metas/package/" + Encode(pkg) + "/schema/" + Encode(schema) + "/" + Encode(name) + ".jsonl"
}

// Resolve maps a metas query (empty values mean absent, as for catalogd)
// to the file answering it. A file the tree does not have answers with
// nothing (EmptyFile).
func Resolve(schema, pkg, name string) string {
	switch {
	case name != "" && schema != "" && pkg != "":
		return PackageSchemaNameFile(pkg, schema, name)
	case name != "" && pkg != "":
		return PackageNameFile(pkg, name)
	case name != "" && schema != "":
		return SchemaNameFile(schema, name)
	case name != "":
		return NameFile(name)
	case schema != "" && pkg != "":
		return PackageSchemaFile(pkg, schema)
	case pkg != "":
		return PackageFile(pkg)
	case schema != "":
		return SchemaFile(schema)
	}
	return AllFile
}

// FilterSource is where trees written before the name files existed
// answer a query with name= from: the file of its other parameters,
// filtered (Filter). Resolve(schema, pkg, "") is the same file.
func FilterSource(schema, pkg string) string { return Resolve(schema, pkg, "") }

// MaxEncoded is the longest path component Encode writes for a name
// (ContinueMark aside): a longer encoding is split, so every component
// stays within file system (255 bytes) and object store limits.
const MaxEncoded = 200

// ext ends every file name.
const ext = ".jsonl"

// ContinueMark ends every component of a split encoding but the last
// (Encode). No encoding holds it: '~' is always followed by two hex
// digits. So a component ending in it is neither a whole encoded name
// nor a ".jsonl" file nor one of the fixed directories ("name",
// "schema"): a file and a directory can never have the same path.
const ContinueMark = "~~"

// Encode turns a schema, package or name into a file name (without its
// extension) that is safe on every file system and object store, case
// insensitive ones included, and in a URL path without escaping, and is
// reversible: [0-9a-z-] are kept, and so is '.' except as the first byte
// (no file name is hidden, "." and ".." are no names); '+' becomes '_',
// an upper-case letter X becomes "!x", any other byte "~hh" (two
// lower-case hex digits: a leading '.' is "~2e", '_' "~5f"), and so is
// the '.' of a trailing ".jsonl" (the directory of a value is never the
// file of another: "p.jsonl" is "p~2ejsonl"). An encoding
// longer than MaxEncoded is split into components of MaxEncoded bytes
// (the last one shorter or equal), each but the last followed by
// ContinueMark and '/': a path of directories, nothing is hashed. Up to
// MaxEncoded bytes, without a trailing ".jsonl", it is catalog/views.EncodeName's encoding (the names
// of packages, channels and bundles in the other files of a catalog,
// which hash longer names). s must not be empty.
func Encode(s string) string {
	plain := s[0] != '.'
	for i := 0; i < len(s) && plain; i++ {
		plain = kept(s[i])
	}
	if plain && len(s) <= MaxEncoded && !strings.HasSuffix(s, ext) {
		return s
	}
	const hexDigits = "0123456789abcdef"
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case kept(c) && (c != '.' || i > 0):
			b = append(b, c)
		case c == '+':
			b = append(b, '_')
		case c >= 'A' && c <= 'Z':
			b = append(b, '!', c+'a'-'A')
		default:
			b = append(b, '~', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	if bytes.HasSuffix(b, []byte(ext)) {
		// Not a file's name: "P" names a directory where "P.jsonl" may be
		// the file of another value.
		b = append(b[:len(b)-len(ext)], "~2e"+ext[1:]...)
	}
	if len(b) <= MaxEncoded {
		return string(b)
	}
	split := make([]byte, 0, len(b)+len(b)/MaxEncoded*(len(ContinueMark)+1))
	for len(b) > MaxEncoded {
		split = append(split, b[:MaxEncoded]...)
		split = append(split, ContinueMark+"/"...)
		b = b[MaxEncoded:]
	}
	return string(append(split, b...))
}

func kept(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-'
}

// Files returns all.jsonl and the metas files of dc (see the package
// documentation), sorted by path. Files whose blobs are consecutive in
// load order (a package's, when each package has its own file, the
// usual layout) share all.jsonl's bytes; the others are copied into one
// buffer. The Data of the files must not be modified.
func Files(dc *declcfg.DeclarativeConfig) []File {
	metas := dc.Metas
	n := len(metas)

	// all.jsonl, and where each blob's line starts in it.
	size := 0
	for i := range metas {
		size += len(metas[i].Blob) + 1
	}
	all := make([]byte, size)
	offs := make([]int, n+1)
	o := 0
	for i := range metas {
		offs[i] = o
		o += copy(all[o:], metas[i].Blob)
		all[o] = '\n'
		o++
	}
	offs[n] = o

	// Group the blobs: by schema, by package, by package × schema, and
	// by name with each subset of schema and package. Ids are given in
	// order of appearance.
	schemaID := map[string]int{}
	var schemas []string
	var bySchema [][]int32
	packageID := map[string]int{}
	var packages []string
	var byPackage [][]int32
	// The name files: a group per (schema, package, name) combination
	// some blob has, at most four per blob.
	nameID := map[nameKey]int{}
	var named []group
	addNamed := func(k nameKey, i int) {
		g, ok := nameID[k]
		if !ok {
			g = len(named)
			nameID[k] = g
			named = append(named, group{path: k.file(), pkg: k.pkg})
		}
		named[g].lines = append(named[g].lines, int32(i))
	}
	for i := range metas {
		m := &metas[i]
		if m.Schema == "" {
			continue // catalogd indexes no blob without a schema
		}
		s, ok := schemaID[m.Schema]
		if !ok {
			s = len(schemas)
			schemaID[m.Schema] = s
			schemas = append(schemas, m.Schema)
			bySchema = append(bySchema, nil)
		}
		bySchema[s] = append(bySchema[s], int32(i))
		if m.Package != "" {
			p, ok := packageID[m.Package]
			if !ok {
				p = len(packages)
				packageID[m.Package] = p
				packages = append(packages, m.Package)
				byPackage = append(byPackage, nil)
			}
			byPackage[p] = append(byPackage[p], int32(i))
		}
		if m.Name != "" {
			addNamed(nameKey{name: m.Name}, i)
			addNamed(nameKey{schema: m.Schema, name: m.Name}, i)
			if m.Package != "" {
				addNamed(nameKey{pkg: m.Package, name: m.Name}, i)
				addNamed(nameKey{schema: m.Schema, pkg: m.Package, name: m.Name}, i)
			}
		}
	}

	groups := make([]group, 0, 1+len(schemas)+len(packages)*(1+len(schemas))+len(named))
	groups = append(groups, group{path: EmptyFile})
	for s, schema := range schemas {
		groups = append(groups, group{path: SchemaFile(schema), lines: bySchema[s]})
	}
	split := make([][]int32, len(schemas))
	for p, pkg := range packages {
		lines := byPackage[p]
		groups = append(groups, group{PackageFile(pkg), lines, pkg})
		for s := range split {
			split[s] = split[s][:0]
		}
		for _, i := range lines {
			s := schemaID[metas[i].Schema]
			split[s] = append(split[s], i)
		}
		for s, schema := range schemas {
			groups = append(groups, group{PackageSchemaFile(pkg, schema), slices.Clone(split[s]), pkg})
		}
	}
	groups = append(groups, named...)

	// The files whose lines are not one run of all.jsonl get a copy, all
	// in one buffer.
	consecutive := func(lines []int32) bool {
		return len(lines) == 0 || int(lines[len(lines)-1]-lines[0]) == len(lines)-1
	}
	copied := 0
	for _, g := range groups {
		if !consecutive(g.lines) {
			for _, i := range g.lines {
				copied += offs[i+1] - offs[i]
			}
		}
	}
	buf := make([]byte, 0, copied)
	files := make([]File, 0, 1+len(groups))
	allFile := File{Path: AllFile, Data: all, Cuts: segmentCuts(metas, offs, nil, true)}
	if allFile.Cuts != nil {
		allFile.Lines = make([]int32, n)
		for i := range allFile.Lines {
			allFile.Lines[i] = int32(i)
		}
	}
	files = append(files, allFile)
	for gi, g := range groups {
		var data []byte
		switch {
		case len(g.lines) == 0:
			data = []byte{}
		case consecutive(g.lines):
			lo, hi := offs[g.lines[0]], offs[g.lines[len(g.lines)-1]+1]
			data = all[lo:hi:hi]
		default:
			start := len(buf)
			for _, i := range g.lines {
				buf = append(buf, all[offs[i]:offs[i+1]]...)
			}
			data = buf[start:len(buf):len(buf)]
		}
		var (
			cuts  []int
			lines []int32
		)
		if gi >= 1 && gi <= len(schemas) { // metas/schema/S.jsonl
			if cuts = segmentCuts(metas, offs, g.lines, false); cuts != nil {
				lines = g.lines
			}
		}
		pkg := g.pkg
		for _, i := range g.lines {
			if blobPackage(&metas[i]) != pkg {
				pkg = "" // an olm.package blob with a package key: its package is another's
				break
			}
		}
		files = append(files, File{Path: g.path, Data: data, Cuts: cuts, Lines: lines, Package: pkg})
	}
	slices.SortFunc(files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	return files
}

// group is the blobs of one file, as line numbers of all.jsonl in load
// order.
type group struct {
	path  string
	lines []int32
	// pkg is the package key of a metas/package/P… file.
	pkg string
}

// nameKey is a query with name=: its schema and package may be empty.
type nameKey struct{ schema, pkg, name string }

func (k nameKey) file() string { return Resolve(k.schema, k.pkg, k.name) }
