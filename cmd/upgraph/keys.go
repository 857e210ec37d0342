package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/tree/sign"
)

func keysCommand() *cli.Command {
	algorithm := &cli.StringFlag{Name: "algorithm", Value: string(sign.Ed25519), Usage: "key type of the keys made: ed25519 (deterministic signatures) or ecdsa-p256"}
	threshold := &cli.StringSliceFlag{Name: "threshold", Usage: "ROLE=T[/N]: role (root, targets, snapshot or timestamp) gets N keys (default T), T of which must sign (repeatable; default 1/1 each)"}
	expires := &cli.DurationFlag{Name: "root-expiry", Value: sign.DefaultRootExpiry, Usage: "how long the root is valid, from SOURCE_DATE_EPOCH or now"}
	return &cli.Command{
		Name:  "keys",
		Usage: "make and rotate the TUF keys that sign trees (docs/signing.md)",
		Subcommands: []*cli.Command{{
			Name:        "init",
			Usage:       "create a TUF root with separate root, targets, snapshot and timestamp keys",
			ArgsUsage:   "DIR",
			Description: help("keys-init"),
			Flags:       []cli.Flag{algorithm, threshold, expires},
			Action:      runKeysInit,
		}, {
			Name:        "rotate",
			Usage:       "make the next root: new keys for the roles named, signed by the old root's threshold and the new keys",
			ArgsUsage:   "DIR",
			Description: help("keys-rotate"),
			Flags: []cli.Flag{
				&cli.StringSliceFlag{Name: "role", Value: cli.NewStringSlice("root"), Usage: "roles whose keys are replaced (repeatable)"},
				algorithm, threshold, expires,
			},
			Action: runKeysRotate,
		}},
	}
}

// keysArgs reads the flags keys init and rotate share.
func keysArgs(c *cli.Context) (dir string, alg sign.Algorithm, ths map[string]sign.Threshold, at time.Time, err error) {
	if c.NArg() != 1 {
		return "", "", nil, at, fmt.Errorf("want DIR, got %d arguments (flags go before it)", c.NArg())
	}
	if alg, err = sign.ParseAlgorithm(c.String("algorithm")); err != nil {
		return "", "", nil, at, fmt.Errorf("--algorithm: %w", err)
	}
	if ths, err = sign.ParseThresholds(c.StringSlice("threshold")); err != nil {
		return "", "", nil, at, err
	}
	if c.Duration("root-expiry") <= 0 {
		return "", "", nil, at, fmt.Errorf("--root-expiry %s: want a positive duration", c.Duration("root-expiry"))
	}
	at, err = generator.GeneratedAt()
	return c.Args().First(), alg, ths, at, err
}

func runKeysInit(c *cli.Context) error {
	dir, alg, ths, at, err := keysArgs(c)
	if err != nil {
		return err
	}
	root, err := sign.Init(dir, sign.InitOptions{Algorithm: alg, Thresholds: ths, At: at, RootExpiry: c.Duration("root-expiry")})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "created root version %d in %s (%s keys: %s), expires %s\n", root.Signed.Version, dir, alg,
		sign.Describe(root), root.Signed.Expires.Format(time.RFC3339))
	return nil
}

func runKeysRotate(c *cli.Context) error {
	dir, alg, ths, at, err := keysArgs(c)
	if err != nil {
		return err
	}
	if err := sign.CheckRotation(c.StringSlice("role"), ths); err != nil {
		return err
	}
	root, err := sign.Rotate(dir, sign.RotateOptions{Roles: c.StringSlice("role"), Algorithm: alg, Thresholds: ths, At: at, RootExpiry: c.Duration("root-expiry")})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "rotated %s: root version %d in %s (%s), expires %s\n", strings.Join(c.StringSlice("role"), ", "),
		root.Signed.Version, dir, sign.Describe(root), root.Signed.Expires.Format(time.RFC3339))
	return nil
}
