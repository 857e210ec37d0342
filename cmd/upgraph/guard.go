package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// guardFlags are the shrink guard's flags, the same for every command
// that replaces a generation (generate, mirror) as for publish.
func guardFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "shrink-threshold", Value: manifest.DefaultShrinkThreshold, Usage: "refuse to replace a generation when more than this fraction of its releases, channels or per-version graphs (or any architecture) would disappear"},
		&cli.BoolFlag{Name: "force", Usage: "replace the generation there even if the new one is much smaller, or its index.json cannot be read"},
		&cli.BoolFlag{Name: "allow-empty", Usage: "write a generation with no release, no channel or no per-version graph at all (an error otherwise)"},
	}
}

// shrinkThreshold validates --shrink-threshold.
func shrinkThreshold(c *cli.Context) (float64, error) {
	t := c.Float64("shrink-threshold")
	if !(t >= 0 && t <= 1) { // NaN too
		return 0, fmt.Errorf("--shrink-threshold: want a fraction between 0 and 1, got %v", t)
	}
	return t, nil
}

// generationGuard reads the generation an output would replace (a tree
// directory, or a bundle when isBundle) and returns the check that the
// new one must pass before it replaces it. It runs before any work, so a
// mistake is reported at once; flag names the output's flag.
func generationGuard(ctx context.Context, c *cli.Context, flag, out string, isBundle bool) (func(*manifest.Manifest) error, error) {
	threshold, err := shrinkThreshold(c)
	if err != nil {
		return nil, err
	}
	force, allowEmpty := c.Bool("force"), c.Bool("allow-empty")
	var prev *manifest.Manifest
	if isBundle {
		prev, err = previousBundle(ctx, out)
	} else {
		prev, err = previousTree(out)
	}
	if err != nil {
		if errors.Is(err, writer.ErrNotAGeneration) {
			return nil, fmt.Errorf("--%s %s %w", flag, out, err)
		}
		if !force {
			return nil, fmt.Errorf("--%s %s: %w; nothing was written (--force replaces it anyway)", flag, out, err)
		}
		prev = nil
	}
	return func(next *manifest.Manifest) error {
		if !allowEmpty {
			if err := manifest.CheckNotEmpty(next); err != nil {
				return fmt.Errorf("%w; %s was not written (--allow-empty writes it anyway; check --channel, --arch and the inputs)", err, out)
			}
		}
		if force {
			return nil
		}
		if !isBundle {
			// Read again now that the output is locked: a run that
			// finished since the first read replaced the generation this
			// one is compared with.
			if now, err := previousTree(out); err == nil {
				prev = now
			}
		}
		if prev != nil {
			if err := manifest.CheckShrink(prev, next, threshold); err != nil {
				return fmt.Errorf("--%s %s: %w; the generation there is unchanged (--force replaces it anyway, --shrink-threshold sets the fraction)", flag, out, err)
			}
		}
		return nil
	}, nil
}

// previousTree is the manifest of the generation at dir (nil when there
// is none yet); a directory that is neither empty nor a generation
// upgraph wrote is an error here already, before anything is computed,
// and one that --force does not override.
func previousTree(dir string) (*manifest.Manifest, error) {
	resolved, err := writer.Resolve(dir)
	if err != nil {
		return nil, err
	}
	holds, err := writer.Inspect(resolved)
	if err != nil || !holds {
		return nil, err
	}
	m, err := manifest.Read(resolved)
	if err != nil {
		return nil, fmt.Errorf("the generation there cannot be compared with the new one: %w", err)
	}
	return m, nil
}

// previousBundle is the manifest of the bundle at file (nil when there is
// none yet).
func previousBundle(ctx context.Context, file string) (*manifest.Manifest, error) {
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	sum, err := bundle.Verify(ctx, file, bundle.Limits{})
	if err != nil {
		return nil, fmt.Errorf("the bundle there cannot be compared with the new one: %w", err)
	}
	return sum.Manifest, nil
}

// interrupted rewords the error of a run stopped by a signal: it says
// which, and that the output was left as it was.
func interrupted(c *cli.Context, err error, out string) error {
	if c.Context.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("interrupted (%v) before the new generation was complete; %s is unchanged", context.Cause(c.Context), out)
}

// checkWorkers refuses a negative --workers (0 keeps the default).
func checkWorkers(c *cli.Context) error {
	if n := c.Int("workers"); n < 0 {
		return fmt.Errorf("--workers: want 0 (the default) or more, got %d", n)
	}
	return nil
}

// killAtEnv names a phase of the commit protocol (writer.Phases) at which
// generate kills itself with SIGKILL: a fault-injection point for the
// crash tests, which must stop the process at exactly each phase.
const killAtEnv = "UPGRAPH_TEST_KILL_AT"

// phaseTrace logs each phase of the output's commit at debug level, and
// kills the process at the phase named by killAtEnv.
func phaseTrace(log *slog.Logger) func(writer.Phase) {
	killAt := writer.Phase(os.Getenv(killAtEnv))
	return func(p writer.Phase) {
		log.Debug("output", "phase", p)
		if p == killAt {
			if self, err := os.FindProcess(os.Getpid()); err == nil {
				_ = self.Kill() // SIGKILL: no deferred cleanup runs
				select {}       // the signal is on its way
			}
		}
	}
}
