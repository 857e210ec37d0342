package declcfg

import (
	"bytes"
	"math"
	"strconv"

	yamlv2 "go.yaml.in/yaml/v2"
)

// yamlDirect converts a YAML document to JSON without sigs.k8s.io/yaml's
// detour through a map and json.Marshal: go.yaml.in/yaml/v2 (the parser
// sigs.k8s.io/yaml uses) decodes into a MapSlice, which keeps the keys in
// document order, and the values are written as JSON for decodeMeta to
// re-encode. The result is what YAMLToJSON followed by decodeMeta gives:
//
//   - values resolve identically (the same parser and resolver; only the
//     container of mappings differs);
//   - keys are converted to strings as sigs.k8s.io/yaml converts them
//     (ints in decimal, floats with %g at 32-bit precision, .inf/.nan,
//     booleans as true/false);
//   - of keys equal after that, the last in the document wins, as a map
//     assignment makes an exact duplicate win (for keys that only convert
//     to the same string, such as 1 and "1", sigs.k8s.io/yaml keeps one at
//     random; this keeps the last, deterministically);
//   - strings, numbers and literals are written so that decodeMeta's
//     re-encoding equals that of json.Marshal's output.
//
// ok is false whenever the document is not a plain non-empty mapping of
// those types (a parse error, merge keys "<<", which a MapSlice does not
// apply, complex or null keys, non-finite floats, other tagged values):
// the caller then takes the exact path, which also words the errors.
func (d *fileDecoder) yamlDirect(doc []byte) (mv metaValue, ok bool) {
	if bytes.Contains(doc, []byte("<<")) {
		return mv, false
	}
	buf, ok := appendSubsetYAML(d.jbuf[:0], doc)
	if !ok {
		var ms yamlv2.MapSlice
		if err := yamlv2.Unmarshal(doc, &ms); err != nil || len(ms) == 0 {
			return mv, false
		}
		buf, ok = appendYAML(d.jbuf[:0], ms, 0)
	}
	d.jbuf = buf
	if !ok {
		return mv, false
	}
	mv, _, jerr := d.c.decodeMeta(buf, 0)
	if jerr != nil {
		return mv, false
	}
	return mv, true
}

// maxYAMLDepth bounds the direct path's recursion; deeper documents take
// the exact path.
const maxYAMLDepth = 1000

func appendYAML(b []byte, v any, depth int) ([]byte, bool) {
	if depth > maxYAMLDepth {
		return b, false
	}
	switch v := v.(type) {
	case yamlv2.MapSlice:
		b = append(b, '{')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			key, ok := yamlKey(item.Key)
			if !ok {
				return b, false
			}
			b = appendJSONString(b, key)
			b = append(b, ':')
			if b, ok = appendYAML(b, item.Value, depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendYAML(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case string:
		return appendJSONString(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return b, false
		}
		return appendFloat(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case nil:
		return append(b, "null"...), true
	}
	return b, false
}

// yamlKey converts a mapping key as sigs.k8s.io/yaml does.
func yamlKey(k any) (string, bool) {
	switch k := k.(type) {
	case string:
		return k, true
	case int:
		return strconv.Itoa(k), true
	case int64:
		return strconv.FormatInt(k, 10), true
	case float64:
		switch s := strconv.FormatFloat(k, 'g', -1, 32); s {
		case "+Inf":
			return ".inf", true
		case "-Inf":
			return "-.inf", true
		case "NaN":
			return ".nan", true
		default:
			return s, true
		}
	case bool:
		return strconv.FormatBool(k), true
	}
	return "", false
}

// appendJSONString writes s as a JSON string, escaping only what JSON
// requires; decodeMeta re-encodes it (invalid UTF-8 included, byte by
// byte, as json.Marshal would have).
func appendJSONString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	b = appendJSONBody(b, s)
	return append(b, '"')
}

// appendJSONBody is appendJSONString without the quotes.
func appendJSONBody[T string | []byte](b []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}
