package declcfg

import (
	"bufio"
	"bytes"
	"io/fs"
	"path"
	"strings"

	"github.com/upgraph/upgraph/internal/regularfile"
)

// indexIgnoreFile is the name of the files holding ignore patterns.
const indexIgnoreFile = ".indexignore"

// This file reproduces how operator-registry excludes files from a
// catalog: github.com/joelanford/ignore (v0.1.2) over go-git's gitignore
// patterns (plumbing/format/gitignore), written here from their
// behaviour rather than imported, to avoid go-git's module graph.
//
//   - Every file named .indexignore anywhere under the root contributes
//     its lines, trimmed of surrounding space; blank lines and lines
//     starting with # are skipped. A pattern applies below the directory
//     of its file (its "domain").
//   - Patterns are ordered as the .indexignore files are walked (sorted
//     names, depth first), each file's lines in order; the last pattern
//     that matches a path decides: "!" re-includes, anything else
//     excludes. Unlike git, a re-included file inside an excluded
//     directory is read.
//   - A pattern without "/" (other than a trailing one) matches any path
//     component below its domain; a pattern with "/" is anchored at the
//     domain and matched component by component, "**" spanning any number
//     of directories, and a path below a matched prefix matches too
//     ("dir/" and "/dir" exclude everything under dir).
//   - A trailing "/" restricts a pattern to directories. operator-registry
//     asks about files only (isDir false), so such a pattern excludes what
//     is under a matching directory, never a file of that name.
//   - Components are matched with path.Match; a malformed pattern matches
//     nothing.

type ignorePattern struct {
	domain   []string
	parts    []string
	include  bool
	dirOnly  bool
	anchored bool // contains "/": matched segment by segment
}

type ignoreMatcher struct{ patterns []ignorePattern }

// newIgnoreMatcher collects the patterns of every .indexignore file in
// fsys, each read as catalog files are (at most limit bytes, a regular
// file).
func newIgnoreMatcher(fsys fs.FS, limit int64) (*ignoreMatcher, error) {
	m := &ignoreMatcher{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != indexIgnoreFile {
			return nil
		}
		data, err := regularfile.Read(fsys, p, p, d.Type().IsRegular(), limit)
		if err != nil {
			return err
		}
		var domain []string
		if dir := path.Dir(p); dir != "." {
			domain = strings.Split(dir, "/")
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		n := 0
		for sc.Scan() {
			n++
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			m.patterns = append(m.patterns, parseIgnorePattern(line, domain))
		}
		if err := sc.Err(); err != nil {
			return &Error{Pos: Position{File: p, Line: n + 1}, Err: err}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func parseIgnorePattern(p string, domain []string) ignorePattern {
	pat := ignorePattern{domain: domain}
	if strings.HasPrefix(p, "!") {
		pat.include = true
		p = p[1:]
	}
	if !strings.HasSuffix(p, `\ `) {
		p = strings.TrimRight(p, " ")
	}
	if strings.HasSuffix(p, "/") {
		pat.dirOnly = true
		p = p[:len(p)-1]
	}
	pat.anchored = strings.Contains(p, "/")
	pat.parts = strings.Split(p, "/")
	return pat
}

// match reports whether the slash-separated path p is excluded (the
// loader asks about files only: isDir false).
func (m *ignoreMatcher) match(p string, isDir bool) bool {
	if len(m.patterns) == 0 {
		return false
	}
	parts := strings.Split(p, "/")
	for i := len(m.patterns) - 1; i >= 0; i-- {
		if m.patterns[i].matches(parts, isDir) {
			return !m.patterns[i].include
		}
	}
	return false
}

func (p *ignorePattern) matches(parts []string, isDir bool) bool {
	if len(parts) <= len(p.domain) {
		return false
	}
	for i, d := range p.domain {
		if parts[i] != d {
			return false
		}
	}
	parts = parts[len(p.domain):]
	if p.anchored {
		return p.matchAnchored(parts, isDir)
	}
	return p.matchName(parts, isDir)
}

// matchName: the single-segment pattern matches some component; on the
// last component a directory-only pattern needs a directory.
func (p *ignorePattern) matchName(parts []string, isDir bool) bool {
	for i, name := range parts {
		ok, err := path.Match(p.parts[0], name)
		if err != nil {
			return false
		}
		if !ok {
			continue
		}
		return !(p.dirOnly && !isDir && i == len(parts)-1)
	}
	return false
}

// matchAnchored walks the pattern's segments along the path: "" (from a
// leading or doubled "/") is skipped, "**" lets the next segment match any
// later component (a trailing "**" ends the walk), and a segment containing
// "**" otherwise never matches. Components left over after the last segment
// are below a matched directory.
func (p *ignorePattern) matchAnchored(parts []string, isDir bool) bool {
	matched, spanning := false, false
	for i, seg := range p.parts {
		switch {
		case seg == "":
			spanning = false
			continue
		case seg == "**":
			if i == len(p.parts)-1 {
				goto done
			}
			spanning = true
			continue
		case strings.Contains(seg, "**"):
			return false
		case len(parts) == 0:
			return false
		}
		if spanning {
			spanning = false
			for len(parts) > 0 {
				name := parts[0]
				parts = parts[1:]
				ok, err := path.Match(seg, name)
				if err != nil {
					return false
				}
				if ok {
					matched = true
					break
				}
				if len(parts) == 0 {
					matched = false
				}
			}
			continue
		}
		ok, err := path.Match(seg, parts[0])
		if err != nil || !ok {
			return false
		}
		matched = true
		parts = parts[1:]
	}
done:
	if matched && p.dirOnly && !isDir && len(parts) == 0 {
		return false
	}
	return matched
}

func splitPath(p string) []string { return strings.Split(p, "/") }
