// Command imagebuild builds upgraph's multi-platform container image
// without a container daemon (`make image`): it cross-compiles
// ./cmd/upgraph for each platform and writes an OCI image layout to --out,
// or pushes the index to --image. It prints the index digest on stdout;
// progress goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/upgraph/upgraph/internal/imagebuild"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("imagebuild", flag.ContinueOnError)
	var (
		out       = fs.String("out", "out/image", "write an OCI image layout to this directory (replaced atomically)")
		image     = fs.String("image", "", "push to REGISTRY/REPO:TAG instead of writing a layout")
		insecure  bool
		dir       = fs.String("dir", ".", "the module's directory (the git checkout)")
		pkg       = fs.String("package", "./cmd/upgraph", "the main package to build")
		platforms = fs.String("platforms", "", "comma-separated OS/ARCH list (default linux/amd64,linux/arm64,linux/ppc64le,linux/s390x)")
		version   = fs.String("version", "", "version (default: git describe --tags --always, or dev)")
		revision  = fs.String("revision", "", "revision (default: git rev-parse HEAD, -dirty with local changes)")
		created   = fs.Int64("created", 0, "creation time, Unix seconds (default: $SOURCE_DATE_EPOCH, else the commit time)")
		source    = fs.String("source", imagebuild.DefaultSource, "the source repository's URL (org.opencontainers.image.source)")
		licenses  = fs.String("licenses", "", "SPDX license expression (omitted when empty)")
		level     = fs.String("log-level", "info", "debug, info, warn or error")
	)
	const insecureUsage = "plain HTTP to the registry (loopback registries need no flag)"
	fs.BoolVar(&insecure, "insecure", false, insecureUsage)
	fs.BoolVar(&insecure, "plain-http", false, insecureUsage)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))

	var plats []v1.Platform
	if *platforms != "" {
		for _, s := range strings.Split(*platforms, ",") {
			p, err := v1.ParsePlatform(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("--platforms: %w", err)
			}
			plats = append(plats, *p)
		}
	}
	override := imagebuild.Metadata{Version: *version, Revision: *revision, Source: *source}
	if *created != 0 {
		override.Created = imagebuild.Unix(*created)
	}
	meta, err := imagebuild.ResolveMetadata(ctx, *dir, override)
	if err != nil {
		return err
	}
	log.Info("building", "version", meta.Version, "revision", meta.Revision, "created", meta.Created)

	idx, err := imagebuild.Build(ctx, imagebuild.Options{
		Binary:    imagebuild.GoBuild{Dir: *dir, Package: *pkg, Version: meta.Version, Logger: log}.Binary,
		Platforms: plats,
		Meta:      meta,
		Licenses:  *licenses,
		Logger:    log,
	})
	if err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return fmt.Errorf("index digest: %w", err)
	}
	switch {
	case *image != "":
		ref, err := imagebuild.Push(ctx, *image, idx, imagebuild.PushOptions{Insecure: insecure})
		if err != nil {
			return err
		}
		log.Info("pushed", "image", *image, "digest", ref.String())
	case *out != "":
		if err := imagebuild.WriteLayout(ctx, *out, idx, meta.Version); err != nil {
			return err
		}
		log.Info("wrote OCI layout", "dir", *out, "tag", meta.Version)
	default:
		return errors.New("neither --out nor --image")
	}
	fmt.Println(d.String())
	return nil
}
