// Command upgraph generates, checks and serves static Cincinnati update
// graphs. Each subcommand only maps flags onto library calls.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/cliflag"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newApp().RunContext(ctx, os.Args); err != nil {
		// An ExitCoder carries its own status: diff exits 1 for "differs"
		// (without a message) and 2 for errors, like diff(1).
		code := 1
		var ec cli.ExitCoder
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, "upgraph:", msg)
		}
		os.Exit(code)
	}
}

// globalFlags come before the command; logger reads them.
func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error"},
		&cli.StringFlag{Name: "log-format", Value: "text", Usage: "text or json"},
	}
}

func newApp() *cli.App {
	app := &cli.App{
		Name:    "upgraph",
		Usage:   "static Cincinnati update graphs from release images and graph-data",
		Version: version,
		Flags:   globalFlags(),
		Commands: []*cli.Command{
			generateCommand(),
			serveCommand(),
			serviceCommand(),
			synthCommand(),
			edgeCommand(),
			diffCommand(),
			validateCommand(),
			pathCommand(),
			dotCommand(),
			mirrorTreeCommand(),
			mirrorSetCommand(),
			planCommand(),
			verifyCommand(),
			publishCommand(),
			pushCommand(),
			keysCommand(),
			signCommand(),
			docsCommand(),
		},
		// The global flags are checked before any command starts.
		Before: func(c *cli.Context) error {
			_, err := logger(c)
			return err
		},
		ExitErrHandler: func(*cli.Context, error) {}, // main prints and exits
		// A repeatable flag's value is taken whole: NAME=SOURCE may hold a
		// comma (dir:co,mma). The flags documented as comma-separated
		// split their values themselves (listElements).
		DisableSliceFlagSeparator: true,
	}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return cliflag.NamedUsageError(app.Flags, err) }
	cliflag.NameFlagsInUsageErrors(app.Commands)
	return app
}

// withLog is a command's action that logs as the global flags ask.
func withLog(action func(*cli.Context, *slog.Logger) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		log, err := logger(c)
		if err != nil {
			return err
		}
		return action(c, log)
	}
}

// logger builds the structured logger the global flags ask for.
func logger(c *cli.Context) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.String("log-format") {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: want text or json, got %q", c.String("log-format"))
}
