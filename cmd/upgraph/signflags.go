package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/sign"
)

// signFlags are the flags of the commands that write generations and
// can sign them (docs/signing.md).
func signFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "sign", Usage: "sign the generation with the TUF keys of this key directory (upgraph keys init): adds tuf/ to the tree"},
		&cli.DurationFlag{Name: "timestamp-expiry", Value: sign.DefaultTimestampExpiry, Usage: "with --sign: how long the timestamp is valid (renew it with upgraph sign --timestamp)"},
		&cli.DurationFlag{Name: "targets-expiry", Value: sign.DefaultTargetsExpiry, Usage: "with --sign: how long targets and snapshot are valid"},
	}
}

// generationSigner returns the RenderOptions.Sign of the flags for a
// generation at time at replacing the one in out (resolved): nil without
// --sign.
func generationSigner(c *cli.Context, out string, at time.Time) (func([]byte, *manifest.Manifest) (map[string][]byte, error), error) {
	for _, name := range []string{"timestamp-expiry", "targets-expiry"} {
		if c.Duration(name) <= 0 {
			return nil, fmt.Errorf("--%s %s: want a positive duration", name, c.Duration(name))
		}
		if c.IsSet(name) && !c.IsSet("sign") {
			return nil, fmt.Errorf("--%s needs --sign KEYDIR", name)
		}
	}
	if c.Duration("timestamp-expiry") > c.Duration("targets-expiry") {
		return nil, fmt.Errorf("--timestamp-expiry %s is longer than --targets-expiry %s: the timestamp is the short-lived role", c.Duration("timestamp-expiry"), c.Duration("targets-expiry"))
	}
	if !c.IsSet("sign") {
		return nil, nil
	}
	if c.String("sign") == "" {
		return nil, fmt.Errorf("--sign: empty key directory")
	}
	s, err := sign.Signer(c.String("sign"), out, sign.GenerationOptions{
		At: at, TimestampExpiry: c.Duration("timestamp-expiry"), TargetsExpiry: c.Duration("targets-expiry"),
	})
	if err != nil {
		return nil, fmt.Errorf("--sign %s: %w", c.String("sign"), err)
	}
	return s, nil
}

// trustFlags are the flags of the commands that can require a signed
// tree.
func trustFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "trust", Usage: "require the tree to be signed: verify its tuf/ against this trusted TUF root (ROOT.json) and refuse what fails, naming the threat"},
		&cli.StringFlag{Name: "state", Usage: "with --trust: file of the metadata versions accepted last, refusing older ones (rollback); created, and raised on each acceptance"},
	}
}

// trustCheck returns the check --trust and --state ask for: nil without
// --trust.
func trustCheck(c *cli.Context) (*sign.Check, error) {
	if !c.IsSet("trust") {
		if c.IsSet("state") {
			return nil, fmt.Errorf("--state needs --trust ROOT.json")
		}
		return nil, nil
	}
	trust := c.String("trust")
	if trust == "" {
		return nil, fmt.Errorf("--trust: empty file name")
	}
	if _, err := sign.ReadRoot(trust); err != nil {
		return nil, fmt.Errorf("--trust %s: %w", trust, err)
	}
	state := c.String("state")
	if c.IsSet("state") {
		if state == "" {
			return nil, fmt.Errorf("--state: empty file name")
		}
		if _, err := sign.ReadState(state); err != nil {
			return nil, fmt.Errorf("--state %s: %w", state, err)
		}
	}
	return &sign.Check{TrustFile: trust, StateFile: state}, nil
}
