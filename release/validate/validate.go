// Package validate checks a graph-data tree the way graph-data's CI does
// (spec §9: hack/validate-blocked-edges.py and graph-data.rs, offline
// parts, plus R1 against a given release set), against the JSON schemas
// of package schema, and with lints for mistakes upstream accepts
// silently: regexes that match nothing, blocks on versions no channel
// serves, files upstream never reads. Every finding names a file and,
// where it can, a line.
package validate

import (
	"fmt"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/upgraph/upgraph/tree/version"
)

// Options configure Validate.
type Options struct {
	// Releases are the versions of the releases the graph is built from,
	// as a graph-builder names them (with the arch as build, e.g.
	// 4.16.3+amd64). Nil skips the release checks (R1,
	// L-channel-release); a non-nil empty slice is an empty release set.
	Releases []version.Version
	// Architectures holds the release.openshift.io/architecture metadata
	// of the releases that have it, keyed by the release's version as in
	// Releases (4.16.3+multi); a release it lacks has none. Nil skips the
	// metadata half of L-multi-arch.
	Architectures map[string]string
}

// Validate checks the graph-data tree rooted at fsys. Everything wrong,
// unreadable files and missing directories included, is a Problem; the
// result is sorted by file and line.
func Validate(fsys fs.FS, opts Options) Problems {
	c := &checker{fsys: fsys, opts: opts}
	c.versionFile()
	c.rawMetadata()
	c.run(append(c.blockedEdgeJobs(), c.channelJobs()...))
	c.run(c.crossChecks())
	return finish(c.problems)
}

// report collects problems. Each file is checked with its own report so
// that files can be checked in parallel.
type report struct {
	problems []Problem
}

func (r *report) add(file string, line int, sev Severity, rule, format string, args ...any) {
	r.problems = append(r.problems, Problem{File: file, Line: line, Severity: sev, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

func (r *report) errorf(file string, line int, rule, format string, args ...any) {
	r.add(file, line, Error, rule, format, args...)
}

func (r *report) warnf(file string, line int, rule, format string, args ...any) {
	r.add(file, line, Warning, rule, format, args...)
}

// checker holds what the per-file checks parse for the checks that span
// files.
type checker struct {
	report
	fsys fs.FS
	opts Options

	edges    []*edgeFile    // YAML mappings under blocked-edges/, path order
	channels []*channelFile // channels/ then internal-channels/, path order
}

// job is a check writing into its own report. A per-file check returns a
// record function that stores what it parsed on the checker; records run
// serially, in job order.
type job struct {
	check  func(r *report) (record func())
	result report
	record func()
}

// run runs jobs on all CPUs (YAML parsing and schema validation of the
// ~1,800 files of the real graph-data dominate the run time) and merges
// the results in job order, so the outcome does not depend on scheduling.
func (c *checker) run(jobs []*job) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(jobs)); i = next.Add(1) - 1 {
				jobs[i].record = jobs[i].check(&jobs[i].result)
			}
		})
	}
	wg.Wait()
	for _, j := range jobs {
		c.problems = append(c.problems, j.result.problems...)
		if j.record != nil {
			j.record()
		}
	}
}

// crossChecks are the checks spanning files, run once every file is
// parsed. They only read the checker, so they too run in parallel.
func (c *checker) crossChecks() []*job {
	ks := c.knownVersions()
	checks := []func(r *report){
		c.channelLints,
		c.channelOrdering,
		c.sameNameRisks,
		c.duplicateBlocks,
		func(r *report) { c.unmatchedRegexes(r, ks) },
		c.unknownTargets,
		func(r *report) { c.blockAndRisk(r, ks) },
		c.releasesPresent,
		c.riskNames,
		c.divergentRisks,
		c.multiArch,
		c.rollouts,
	}
	jobs := make([]*job, len(checks))
	for i, check := range checks {
		jobs[i] = &job{check: func(r *report) func() { check(r); return nil }}
	}
	return jobs
}
