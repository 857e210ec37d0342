package validate

import (
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/upgraph/upgraph/internal/regularfile"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/version"
)

const blockedDir = "blocked-edges"

// shape is how upstream's parser classifies a blocked-edges file (§3.6).
type shape int

const (
	neither shape = iota
	block         // exactly {to, from}: drop the edges
	risk          // conditional risk: keep the edges as conditional updates
)

// edgeFile is one YAML file under blocked-edges/.
type edgeFile struct {
	file string
	m    *mapping // nil when the document is not a mapping
	// read says upstream's parser reads the file: directly in
	// blocked-edges/ with an extension matching ya+ml.
	read bool
	// isYAML says the name ends in .yaml, the files the Python CI reads.
	isYAML bool
	shape  shape
	to     version.Version
	from   *regexp.Regexp
}

// blockedEdgeJobs walks blocked-edges/ recursively, as the Python CI
// does; only its top level is what upstream's parser and graph-data.rs read.
func (c *checker) blockedEdgeJobs() []*job {
	if _, err := fs.ReadDir(c.fsys, blockedDir); err != nil {
		c.errorf(blockedDir, 0, "P3", "reading directory: %v", unwrapPath(err))
		return nil
	}
	var jobs []*job
	fs.WalkDir(c.fsys, blockedDir, func(p string, d fs.DirEntry, err error) error {
		top := path.Dir(p) == blockedDir
		switch {
		case err != nil:
			c.errorf(p, 0, "Y1", "unreadable: %v", unwrapPath(err))
		case p == blockedDir:
		case d.IsDir():
			if top {
				c.errorf(p, 0, "Y1", "a directory: graph-data CI reads every entry of %s/ as a blocked-edge file", blockedDir)
			}
		default:
			jobs = append(jobs, &job{check: func(r *report) func() {
				if e := checkEdgeFile(c.fsys, r, p, top); e != nil {
					return func() { c.edges = append(c.edges, e) }
				}
				return nil
			}})
		}
		return nil
	})
	return jobs
}

// checkEdgeFile runs the checks of one file; it returns the file when it
// holds a YAML mapping, for the checks across files.
func checkEdgeFile(fsys fs.FS, r *report, file string, top bool) *edgeFile {
	base := path.Base(file)
	ext := extension(base)
	isYAML := strings.HasSuffix(base, ".yaml")
	read := top && yamlExt.MatchString(ext)
	if !isYAML {
		r.errorf(file, 0, "B1", "%s", badExtension(ext, read))
	}
	data, err := regularfile.Read(fsys, file, file, false, graphdata.MaxFileBytes)
	if err != nil {
		rule := "B2" // what the Python CI would fail with
		if top {
			rule = "Y1"
		}
		r.errorf(file, 0, rule, "unreadable: %v", unwrapPath(err))
		return nil
	}
	root, err := parseYAML(data)
	if err != nil {
		if isYAML {
			r.errorf(file, yamlErrorLine(err), "B2", "failed to load YAML: %v", err)
		} else if top {
			r.errorf(file, yamlErrorLine(err), "Y1", "not YAML: %v", err)
		}
		return nil
	}
	e := &edgeFile{file: file, m: asMapping(root), read: read, isYAML: isYAML}
	if isYAML {
		r.ciRules(e, root)
	}
	if top && ext != "" { // no extension: B1 said it, Y1 would repeat it
		r.classify(e)
	}
	if read && e.shape == risk && e.to.Build() != "" {
		r.warnf(file, e.m.line("to"), "L-risk-arch", "conditional risk to %s names one arch: upstream removes the edges into %s of every arch but lists them as conditional only for %s", e.to, e.to.Key(), e.to.Build())
	}
	if read {
		r.schemaYAML(file, blockedEdgeSchema, data, true)
	}
	if e.m == nil {
		return nil
	}
	return e
}

func badExtension(ext string, read bool) string {
	const rule = "blocked-edge files must end in .yaml"
	switch {
	case ext == "":
		return rule + "; this name has no extension, so upstream ignores the file"
	case read:
		return rule + "; upstream's parser reads ." + ext + " but graph-data CI rejects it"
	default:
		return rule + "; upstream ignores ." + ext + " files, so this one is never applied"
	}
}
