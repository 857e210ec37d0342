package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"regexp"

	"github.com/upgraph/upgraph/internal/regularfile"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/version"
)

// versionFile checks the schema version as upstream's parser does (§3.2).
func (c *checker) versionFile() {
	const file = "version"
	data, err := regularfile.Read(c.fsys, file, file, false, graphdata.MaxFileBytes)
	if err != nil {
		c.errorf(file, 0, "P1", "graph-data has no readable version file: %v", unwrapPath(err))
		return
	}
	v, err := version.Parse(string(data))
	switch {
	case err != nil:
		c.errorf(file, 1, "P1", "%v", err)
	case v.Major() != graphdata.MaxSupported.Major():
		c.errorf(file, 1, "P1", "unrecognized graph-data version %s: major version %d is supported", v, graphdata.MaxSupported.Major())
	case v.Minor() > graphdata.MaxSupported.Minor():
		c.warnf(file, 1, "P1", "graph-data version %s is newer than %s; upstream accepts it but may ignore its new features", v, graphdata.MaxSupported)
	}
}

// rawMetadata checks raw/metadata.json (§3.4) and its schema.
func (c *checker) rawMetadata() {
	const file = "raw/metadata.json"
	data, err := regularfile.Read(c.fsys, file, file, false, graphdata.MaxFileBytes)
	if err != nil {
		c.errorf(file, 0, "P2", "graph-data has no readable %s: %v", file, unwrapPath(err))
		return
	}
	var raw map[string]map[string]string
	err = json.Unmarshal(data, &raw)
	if err != nil {
		c.errorf(file, jsonErrorLine(data, err), "P2", "want {\"<version>\": {\"<key>\": \"<string>\"}}: %v", err)
	} else if raw == nil {
		c.errorf(file, 1, "P2", "want a JSON object, got null")
	}
	for k := range raw {
		if _, err := version.Parse(k); err != nil {
			// Upstream skips the entry with only a log line: whatever it
			// meant to add to the graph is silently lost.
			c.errorf(file, lineOfKey(data, k), "P2", "upstream skips this entry: %v", err)
		}
	}
	c.schemaJSON(file, rawMetadataSchema, data, json.Valid(data))
}

// jsonErrorLine is the line a JSON decoding error points at.
func jsonErrorLine(data []byte, err error) int {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return 1
	}
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// lineOfKey finds the line of the object key k in JSON data (1 if absent).
func lineOfKey(data []byte, k string) int {
	quoted, _ := json.Marshal(k)
	i := bytes.Index(data, quoted)
	if i < 0 {
		return 1
	}
	return 1 + bytes.Count(data[:i], []byte{'\n'})
}

// unwrapPath drops the "open <path>:" prefix of fs errors, which would
// repeat the file name every problem already carries.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// yamlExt is what upstream's parser reads: the extension matches ya+ml,
// unanchored (§3.3), so .yaml and .yaaml are read and .yml is not.
var yamlExt = regexp.MustCompile(`ya+ml`)

// extension is the text after the last '.', "" for none (a leading-dot
// name such as .keep has none), as upstream splits it.
func extension(name string) string {
	for i := len(name) - 1; i > 0; i-- {
		if name[i] == '.' {
			return name[i+1:]
		}
	}
	return ""
}
