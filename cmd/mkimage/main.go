// Command mkimage builds mockmcp's OCI image from static Linux binaries,
// without a container daemon (`make image` runs it):
//
//	mkimage -o dist/mockmcp-image.tar -version v1.2.0 -revision COMMIT -created 2024-01-01T12:00:00Z \
//	        -binary linux/amd64=dist/mockmcp_v1.2.0_linux_amd64 -binary linux/arm64=...
//
// Without -created, the image's timestamps are $SOURCE_DATE_EPOCH, else the
// Unix epoch: never the time of the build, so builds are reproducible.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/ociimage"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

// binaries is the repeatable -binary PLATFORM=PATH flag.
type binaries map[string]string

func (b binaries) String() string { return fmt.Sprint(map[string]string(b)) }

func (b binaries) Set(s string) error {
	platform, path, ok := strings.Cut(s, "=")
	if !ok || platform == "" || path == "" {
		return fmt.Errorf("-binary %q: want PLATFORM=PATH, as linux/amd64=dist/mockmcp", s)
	}
	b[platform] = path
	return nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("mkimage", flag.ContinueOnError)
	opts := ociimage.Options{Binaries: binaries{}}
	out := fs.String("o", "dist/mockmcp-image.tar", "the tarball to write")
	created := fs.String("created", "", "the image's timestamp, RFC 3339 (default $SOURCE_DATE_EPOCH, else the Unix epoch)")
	fs.StringVar(&opts.Version, "version", "", "the version: label and tag mockmcp:VERSION")
	fs.StringVar(&opts.Revision, "revision", "", "the commit the binaries were built from")
	fs.StringVar(&opts.Source, "source", ociimage.DefaultSource, "the source repository's URL")
	fs.StringVar(&opts.CACertificates, "ca-certificates", ociimage.DefaultCACertificates, "the CA bundle to copy into the image")
	fs.Var(binaries(opts.Binaries), "binary", "PLATFORM=PATH of a static binary, as linux/amd64=dist/mockmcp (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if opts.Created, err = createdTime(*created, os.Getenv("SOURCE_DATE_EPOCH")); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	// Written beside the target and renamed: an interrupted build never
	// leaves a truncated image under the real name.
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".mkimage-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := ociimage.Write(tmp, opts); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return err
	}
	info, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s, %.1f MiB\n", *out, opts.Tag(), float64(info.Size())/(1<<20))
	return nil
}

// createdTime is -created, else SOURCE_DATE_EPOCH (Unix seconds), else
// the Unix epoch.
func createdTime(created, epoch string) (time.Time, error) {
	switch {
	case created != "":
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return time.Time{}, fmt.Errorf("-created %q: want RFC 3339, as 2024-01-01T12:00:00Z", created)
		}
		return t, nil
	case epoch != "":
		s, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return time.Time{}, errors.New("SOURCE_DATE_EPOCH: want Unix seconds")
		}
		return time.Unix(s, 0), nil
	}
	return time.Unix(0, 0), nil
}
