package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/tree/guard"
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

// generationGuard is the shrink guard (package guard) of the output
// --flag out names, a tree directory or a bundle when isBundle, with the
// guard's flags.
func generationGuard(ctx context.Context, c *cli.Context, flag, out string, isBundle bool) (func(*manifest.Manifest) error, error) {
	threshold, err := shrinkThreshold(c)
	if err != nil {
		return nil, err
	}
	return guard.New(ctx, guard.Options{Flag: flag, Out: out, Bundle: isBundle, Threshold: threshold,
		Force: c.Bool("force"), AllowEmpty: c.Bool("allow-empty")})
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
