package model

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model/internal/property"
)

// Property types the model reads or that operator-registry's
// property.Parse decodes into typed values.
const (
	propPackage         = "olm.package"
	propPackageRequired = "olm.package.required"
	propGVK             = "olm.gvk"
	propGVKRequired     = "olm.gvk.required"
	propBundleObject    = "olm.bundle.object"
	propCSVMetadata     = "olm.csv.metadata"
	propChannel         = "olm.channel"
	propMaxOpenShift    = "olm.maxOpenShiftVersion"
	propLegacyDeprecate = "olm.deprecated"
	propConstraint      = "olm.constraint"
)

// propInfo is what the model takes from a bundle's properties.
type propInfo struct {
	packages         []PackageProperty
	objects          int
	maxOpenShift     []json.RawMessage
	legacyDeprecated bool
}

// parseProperties does what operator-registry's property.Parse does: the
// known property types are decoded into their Go types (a type mismatch
// is an error), any other value must be JSON; the first failure is
// returned as "parse property[i] of type T: ...". A fast scanner checks
// the shapes; a value it cannot vouch for is decoded with encoding/json,
// whose verdict and message are the ones upstream gives.
func parseProperties(props []declcfg.Property, sc *scanner) (propInfo, error) {
	var info propInfo
	for i, p := range props {
		var err error
		switch p.Type {
		case propPackage:
			if pp, ok := sc.packageProp(p.Value); ok {
				info.packages = append(info.packages, pp)
				break
			}
			var v property.Package
			if err = json.Unmarshal(p.Value, &v); err == nil {
				pp := PackageProperty{PackageName: v.PackageName, Version: v.Version, releaseSet: v.Release != nil}
				if v.Release != nil {
					pp.Release = *v.Release
				}
				info.packages = append(info.packages, pp)
			}
		case propPackageRequired:
			err = sc.check(p.Value, shapePackageRequired, func() any { return new(property.PackageRequired) })
		case propGVK:
			err = sc.check(p.Value, shapeGVK, func() any { return new(property.GVK) })
		case propGVKRequired:
			err = sc.check(p.Value, shapeGVK, func() any { return new(property.GVKRequired) })
		case propBundleObject:
			if err = sc.check(p.Value, shapeBundleObject, func() any { return new(property.BundleObject) }); err == nil {
				info.objects++
			}
		case propCSVMetadata:
			err = sc.check(p.Value, shapeCSVMetadata, func() any { return new(property.CSVMetadata) })
		case propChannel:
			err = sc.check(p.Value, shapeChannelProp, func() any { return new(property.Channel) })
		default:
			err = sc.check(p.Value, shapeAny, func() any { return new(json.RawMessage) })
			if err == nil {
				switch p.Type {
				case propMaxOpenShift:
					info.maxOpenShift = append(info.maxOpenShift, p.Value)
				case propLegacyDeprecate:
					info.legacyDeprecated = true
				}
			}
		}
		if err != nil {
			return info, fmt.Errorf("parse property[%d] of type %q: %v", i, p.Type, err)
		}
	}
	return info, nil
}

// maxOpenShiftVersion reads olm.maxOpenShiftVersion as OLM's
// openshift.maxOpenShiftVersion does (pkg/controller/operators/openshift/
// helpers.go): one property at most, quotes trimmed, not empty,
// semver.ParseTolerant, major.minor only.
func maxOpenShiftVersion(values []json.RawMessage) (string, error) {
	switch len(values) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", fmt.Errorf(`defining more than one %q property is not allowed`, propMaxOpenShift)
	}
	value := strings.Trim(string(values[0]), `"`)
	if value == "" {
		return "", fmt.Errorf(`value cannot be "" (an empty string)`)
	}
	v, err := semver.ParseTolerant(value)
	if err != nil {
		return "", fmt.Errorf(`failed to parse %q as semver: %w`, value, err)
	}
	trunc := semver.Version{Major: v.Major, Minor: v.Minor}
	if !v.EQ(trunc) {
		return "", fmt.Errorf("property %s must specify only <major>.<minor> version, got invalid value %s", propMaxOpenShift, v)
	}
	return fmt.Sprintf("%d.%d", trunc.Major, trunc.Minor), nil
}

// shape is the JSON shape a Go type accepts: what encoding/json decodes
// into it without error (null is accepted everywhere; unknown object keys
// are ignored; keys match case-insensitively).
type shape struct {
	kind   shapeKind
	fields []shapeField
	elem   *shape
}

type shapeField struct {
	name  string
	shape *shape
}

type shapeKind uint8

const (
	kindAny    shapeKind = iota // json.RawMessage
	kindString                  // string
	kindBool                    // bool
	kindInt32                   // int32
	kindBytes                   // []byte: a base64 string
	kindObject                  // a struct
	kindArray                   // a slice
	kindMap                     // map[string]elem
)

func obj(kv ...any) *shape {
	s := &shape{kind: kindObject}
	for i := 0; i < len(kv); i += 2 {
		s.fields = append(s.fields, shapeField{kv[i].(string), kv[i+1].(*shape)})
	}
	return s
}

func arr(elem *shape) *shape { return &shape{kind: kindArray, elem: elem} }

var (
	shapeAny    = &shape{kind: kindAny}
	shapeString = &shape{kind: kindString}
	shapeBool   = &shape{kind: kindBool}
	shapeInt32  = &shape{kind: kindInt32}
	shapeBytes  = &shape{kind: kindBytes}

	shapePackageRequired = obj("packageName", shapeString, "versionRange", shapeString)
	shapeGVK             = obj("group", shapeString, "kind", shapeString, "version", shapeString)
	shapeBundleObject    = obj("data", shapeBytes)
	shapeChannelProp     = obj("channelName", shapeString)

	shapeDescriptor = obj("path", shapeString, "displayName", shapeString, "description", shapeString,
		"x-descriptors", arr(shapeString), "value", shapeAny)
	shapeResources   = arr(obj("name", shapeString, "kind", shapeString, "version", shapeString))
	shapeDescriptors = arr(shapeDescriptor)
	shapeCRDDesc     = obj("name", shapeString, "version", shapeString, "kind", shapeString,
		"displayName", shapeString, "description", shapeString, "resources", shapeResources,
		"statusDescriptors", shapeDescriptors, "specDescriptors", shapeDescriptors, "actionDescriptors", shapeDescriptors)
	shapeAPIServiceDesc = obj("name", shapeString, "group", shapeString, "version", shapeString, "kind", shapeString,
		"deploymentName", shapeString, "containerPort", shapeInt32, "displayName", shapeString, "description", shapeString,
		"resources", shapeResources,
		"statusDescriptors", shapeDescriptors, "specDescriptors", shapeDescriptors, "actionDescriptors", shapeDescriptors)
	shapeAppLink     = obj("name", shapeString, "url", shapeString)
	shapeStringMap   = &shape{kind: kindMap, elem: shapeString}
	shapeCSVMetadata = obj(
		"annotations", shapeStringMap,
		"apiServiceDefinitions", obj("owned", arr(shapeAPIServiceDesc), "required", arr(shapeAPIServiceDesc)),
		"crdDescriptions", obj("owned", arr(shapeCRDDesc), "required", arr(shapeCRDDesc)),
		"description", shapeString,
		"displayName", shapeString,
		"installModes", arr(obj("type", shapeString, "supported", shapeBool)),
		"keywords", arr(shapeString),
		"labels", shapeStringMap,
		"links", arr(shapeAppLink),
		"maintainers", arr(obj("name", shapeString, "email", shapeString)),
		"maturity", shapeString,
		"minKubeVersion", shapeString,
		"nativeAPIs", arr(obj("group", shapeString, "version", shapeString, "kind", shapeString)),
		"provider", shapeAppLink,
	)
)

// scanner checks JSON values against shapes without allocating. It is
// conservative: true means encoding/json decodes the value into the Go
// type without error; false means "not sure" (a syntax or type error, or
// something it does not handle, such as escaped keys), and check then
// lets encoding/json decide.
type scanner struct {
	b   []byte
	i   int
	buf []byte // base64 scratch
}

// check returns encoding/json's error decoding v into a fresh value of
// the Go type mk returns, taking the fast path when the scanner vouches.
func (s *scanner) check(v []byte, sh *shape, mk func() any) error {
	s.b, s.i = v, 0
	if s.value(sh) {
		s.ws()
		if s.i == len(s.b) {
			return nil
		}
	}
	return json.Unmarshal(v, mk())
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) lit(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// str scans a string starting at the opening quote; it returns the
// content and whether it has escapes.
func (s *scanner) str() (content []byte, escaped, ok bool) {
	s.i++ // opening quote
	start := s.i
	for s.i < len(s.b) {
		// Skip 8 plain bytes at a time (no quote, backslash or control
		// character among them).
		s.i = skipPlain(s.b, s.i)
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			content = s.b[start:s.i]
			s.i++
			return content, escaped, true
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				return nil, false, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return nil, false, false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				s.i += 6
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default:
			s.i++
		}
	}
	return nil, false, false
}

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// specialWord reports whether one of the 8 bytes of x is a quote, a
// backslash or below 0x20 (the classic "has a byte less than n" bit
// tricks; each is exact for a whole word taken together).
func specialWord(x uint64) bool {
	q, bs := x^(swarOnes*'"'), x^(swarOnes*'\\')
	return ((x-swarOnes*0x20)&^x|(q-swarOnes)&^q|(bs-swarOnes)&^bs)&swarHighs != 0
}

// skipPlain returns the index of the first 8-byte word at or after i that
// holds a special byte (or of the last partial word).
func skipPlain(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if specialWord(binary.LittleEndian.Uint64(b[i : i+8])) {
			break
		}
	}
	return i
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// num scans a number; integral says it has no fraction or exponent.
func (s *scanner) num() (text []byte, integral, ok bool) {
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	default:
		return nil, false, false
	}
	integral = true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		integral = false
		s.i++
		if s.i >= len(s.b) || !isDigit(s.b[s.i]) {
			return nil, false, false
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		integral = false
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.i >= len(s.b) || !isDigit(s.b[s.i]) {
			return nil, false, false
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	return s.b[start:s.i], integral, true
}

// value scans one value, checking it against sh.
// sep reads what follows an object member or array element: a comma
// (more to come) or close (the end); anything else is not ok.
func (s *scanner) sep(close byte) (end, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, true
	case close:
		s.i++
		return true, true
	}
	return false, false
}

func (s *scanner) value(sh *shape) bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case 'n':
		return s.lit("null")
	case 't', 'f':
		if sh.kind != kindAny && sh.kind != kindBool {
			return false
		}
		if c == 't' {
			return s.lit("true")
		}
		return s.lit("false")
	case '"':
		content, escaped, ok := s.str()
		if !ok {
			return false
		}
		switch sh.kind {
		case kindAny, kindString:
			return true
		case kindBytes:
			return !escaped && s.base64OK(content)
		}
		return false
	case '{':
		var elem *shape
		switch sh.kind {
		case kindAny:
			elem = shapeAny
		case kindMap:
			elem = sh.elem
		case kindObject:
		default:
			return false
		}
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == '}' {
			s.i++
			return true
		}
		for {
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return false
			}
			key, escaped, ok := s.str()
			if !ok || escaped || !ascii(key) {
				return false // encoding/json may fold such a key onto a field
			}
			fs := elem
			if sh.kind == kindObject {
				fs = sh.field(key)
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return false
			}
			s.i++
			if !s.value(fs) {
				return false
			}
			if end, ok := s.sep('}'); !ok || end {
				return ok
			}
		}
	case '[':
		var elem *shape
		switch sh.kind {
		case kindAny:
			elem = shapeAny
		case kindArray:
			elem = sh.elem
		default:
			return false
		}
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return true
		}
		for {
			if !s.value(elem) {
				return false
			}
			if end, ok := s.sep(']'); !ok || end {
				return ok
			}
		}
	default:
		text, integral, ok := s.num()
		if !ok {
			return false
		}
		switch sh.kind {
		case kindAny:
			return true
		case kindInt32:
			if !integral {
				return false
			}
			n, err := strconv.ParseInt(string(text), 10, 64)
			return err == nil && n >= math.MinInt32 && n <= math.MaxInt32
		}
		return false
	}
}

// field returns the shape of the field key names (encoding/json's
// matching: exact, else ASCII case-insensitive), shapeAny for an unknown
// key.
func (sh *shape) field(key []byte) *shape {
	for _, f := range sh.fields {
		if string(key) == f.name {
			return f.shape
		}
	}
	for _, f := range sh.fields {
		if asciiEqualFold(key, f.name) {
			return f.shape
		}
	}
	return shapeAny
}

// packageProp reads an olm.package value of the usual form (an object
// whose keys are exactly packageName, version or release, each with a
// string without escapes, valid UTF-8), as encoding/json decodes it into
// property.Package, without its reflection; ok false: not of that form,
// encoding/json decides.
func (s *scanner) packageProp(v []byte) (pp PackageProperty, ok bool) {
	s.b, s.i = v, 0
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return pp, false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
	} else {
		for {
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return pp, false
			}
			key, escaped, ok := s.str()
			if !ok || escaped {
				return pp, false
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return pp, false
			}
			s.i++
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return pp, false
			}
			val, escaped, ok := s.str()
			if !ok || escaped || !utf8.Valid(val) {
				return pp, false // encoding/json replaces invalid bytes
			}
			switch string(key) { // later keys win, as in encoding/json
			case "packageName":
				pp.PackageName = string(val)
			case "version":
				pp.Version = string(val)
			case "release":
				pp.Release, pp.releaseSet = string(val), true
			default:
				return pp, false // another key, or one in another case
			}
			end, ok := s.sep('}')
			if !ok {
				return pp, false
			}
			if end {
				break
			}
		}
	}
	s.ws()
	return pp, s.i == len(s.b)
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func asciiEqualFold(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// base64OK reports whether encoding/json would decode the string into a
// []byte: standard base64, as base64.StdEncoding.Decode accepts it.
func (s *scanner) base64OK(b []byte) bool {
	n := base64.StdEncoding.DecodedLen(len(b))
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	_, err := base64.StdEncoding.Decode(s.buf[:n], b)
	return err == nil
}
