package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/tree/sign"
)

func signCommand() *cli.Command {
	return &cli.Command{
		Name:        "sign",
		Usage:       "re-sign the timestamp of a signed tree, renewing its freshness with the online timestamp key alone",
		ArgsUsage:   "--timestamp KEYDIR DIR",
		Description: help("sign"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "timestamp", Required: true, Usage: "the key directory whose timestamp key signs"},
			&cli.DurationFlag{Name: "timestamp-expiry", Value: sign.DefaultTimestampExpiry, Usage: "how long the new timestamp is valid"},
		},
		Action: runSign,
	}
}

func runSign(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("want DIR, got %d arguments (flags go before it)", c.NArg())
	}
	if c.String("timestamp") == "" {
		return fmt.Errorf("--timestamp: empty key directory")
	}
	if c.Duration("timestamp-expiry") <= 0 {
		return fmt.Errorf("--timestamp-expiry %s: want a positive duration", c.Duration("timestamp-expiry"))
	}
	dir := c.Args().First()
	if st, err := os.Stat(dir); err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s: not a directory (sign --timestamp re-signs a tree directory; publish it afterwards)", dir)
	}
	at, err := generator.GeneratedAt()
	if err != nil {
		return err
	}
	kd, err := sign.OpenKeys(c.String("timestamp"))
	if err != nil {
		return fmt.Errorf("--timestamp: %w", err)
	}
	v, err := kd.Timestamp(dir, at, c.Duration("timestamp-expiry"))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "signed %s/tuf/timestamp.json version %d (snapshot %d), expires %s\n", dir, v.Timestamp, v.Snapshot,
		at.Add(c.Duration("timestamp-expiry")).UTC().Format("2006-01-02T15:04:05Z"))
	return nil
}
