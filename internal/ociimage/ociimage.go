// Package ociimage builds mockmcp's container image without a container
// daemon: FROM scratch, one layer of what a static Go program needs of a
// Linux system (a non-root user, CA certificates, /tmp, a writable home and
// state directory) shared by every platform, and one layer per platform with
// the binary. The result is one tarball that is an OCI image layout (an
// image index of one manifest per platform) and, through its manifest.json,
// also what `docker load` of a Docker without the containerd image store
// reads.
//
// Every timestamp is Options.Created and every entry is written in a fixed
// order, so two builds from the same binaries are the same byte for byte.
package ociimage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's file system and identity.
const (
	// BinaryPath is where the mockmcp binary is, the entrypoint.
	BinaryPath = "/usr/local/bin/mockmcp"
	// UID and GID are the unprivileged user the service runs as
	// (65532, as in the distroless images, so volumes prepared for those fit).
	UID = 65532
	GID = 65532
	// UserName names UID in /etc/passwd and GID in /etc/group.
	UserName = "mockmcp"
	// Home is the user's home and the working directory.
	Home = "/home/mockmcp"
	// StateHome is XDG_STATE_HOME: the service keeps its state (an
	// embedded database's data, for one) under StateHome/mockmcp; mount a
	// volume here to keep it.
	StateHome = "/var/lib/mockmcp"
	// Port is LISTEN_ADDR's port; MetricsPort is METRICS_ADDR's, which
	// the image opens to every interface (the service's default, loopback,
	// cannot be scraped from outside a container).
	Port        = 8080
	MetricsPort = 9091
	// DefaultCACertificates is the build machine's CA bundle on Debian,
	// Ubuntu and Alpine, copied into the image so outbound HTTPS (imports,
	// upstreams, test runs) verifies certificates.
	DefaultCACertificates = "/etc/ssl/certs/ca-certificates.crt"
	// DefaultSource is the repository the image is built from.
	DefaultSource = "https://github.com/mockmcp/mockmcp"
)

// Options says what to build.
type Options struct {
	// Binaries maps a platform ("linux/amd64", "linux/arm64") to the path
	// of a static mockmcp binary for it. At least one.
	Binaries map[string]string
	// Version is the image's version label and its tag (mockmcp:Version).
	Version string
	// Revision is the commit the binaries were built from (optional).
	Revision string
	// Created is every timestamp of the image: the commit's date keeps
	// builds reproducible.
	Created time.Time
	// Source is the repository's URL (DefaultSource when empty).
	Source string
	// CACertificates is the CA bundle to copy (DefaultCACertificates when
	// empty).
	CACertificates string
}

// Tag is the name `docker load` gives the image.
func (o Options) Tag() string { return "mockmcp:" + o.Version }

// Write builds the image and writes it to w as a tar archive.
func Write(w io.Writer, opts Options) error {
	if len(opts.Binaries) == 0 {
		return errors.New("no binary: give at least one platform's binary")
	}
	if opts.Version == "" {
		return errors.New("version is empty")
	}
	if opts.Source == "" {
		opts.Source = DefaultSource
	}
	if opts.CACertificates == "" {
		opts.CACertificates = DefaultCACertificates
	}
	opts.Created = opts.Created.UTC()
	certs, err := os.ReadFile(opts.CACertificates)
	if err != nil {
		return fmt.Errorf("CA certificates: %w", err)
	}
	base, err := layer(opts.Created, baseFiles(certs))
	if err != nil {
		return err
	}
	platforms := make([]string, 0, len(opts.Binaries))
	for p := range opts.Binaries {
		platforms = append(platforms, p)
	}
	slices.Sort(platforms)

	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	images := make([]v1.Image, 0, len(platforms))
	for _, p := range platforms {
		img, platform, err := platformImage(opts, p, base)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		images = append(images, img)
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: platform}})
	}
	idx = mutate.Annotations(idx, annotations(opts)).(v1.ImageIndex)
	// Docker without the containerd image store loads manifest.json, one
	// image: linux/amd64 when built, else the first platform.
	docker := images[0]
	if i := slices.Index(platforms, "linux/amd64"); i >= 0 {
		docker = images[i]
	}
	return writeArchive(w, opts, idx, docker)
}

// platformImage is the image of one platform: base, then the binary.
func platformImage(opts Options, platform string, base v1.Layer) (v1.Image, *v1.Platform, error) {
	osName, arch, ok := strings.Cut(platform, "/")
	if !ok || osName != "linux" || arch == "" {
		return nil, nil, fmt.Errorf("platform %q: want linux/ARCH", platform)
	}
	bin, err := os.ReadFile(opts.Binaries[platform])
	if err != nil {
		return nil, nil, fmt.Errorf("binary: %w", err)
	}
	binLayer, err := layer(opts.Created, []file{
		{name: "usr/", dir: true, mode: 0o755},
		{name: "usr/local/", dir: true, mode: 0o755},
		{name: "usr/local/bin/", dir: true, mode: 0o755},
		{name: strings.TrimPrefix(BinaryPath, "/"), mode: 0o755, data: bin},
	})
	if err != nil {
		return nil, nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	created := v1.Time{Time: opts.Created}
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: created,
			CreatedBy: "mockmcp mkimage: user " + UserName + ", CA certificates, /tmp, " + Home + ", " + StateHome}},
		mutate.Addendum{Layer: binLayer, MediaType: types.OCILayer, History: v1.History{Created: created,
			CreatedBy: "mockmcp mkimage: " + BinaryPath + " " + opts.Version}},
	)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, nil, err
	}
	cfg = cfg.DeepCopy()
	p := &v1.Platform{OS: osName, Architecture: arch}
	if arch == "arm64" {
		p.Variant = "v8"
	}
	cfg.OS, cfg.Architecture, cfg.Variant = p.OS, p.Architecture, p.Variant
	cfg.Created = created
	cfg.Config = containerConfig(opts)
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, nil, err
	}
	return mutate.Annotations(img, annotations(opts)).(v1.Image), p, nil
}

// containerConfig is how a container of the image runs.
func containerConfig(opts Options) v1.Config {
	return v1.Config{
		Entrypoint: []string{BinaryPath},
		Cmd:        []string{"serve"},
		User:       strconv.Itoa(UID) + ":" + strconv.Itoa(GID),
		WorkingDir: Home,
		Env: []string{
			"PATH=/usr/local/bin",
			"HOME=" + Home,
			"XDG_STATE_HOME=" + StateHome,
			"LISTEN_ADDR=:" + strconv.Itoa(Port),
			"METRICS_ADDR=:" + strconv.Itoa(MetricsPort),
		},
		ExposedPorts: map[string]struct{}{
			strconv.Itoa(Port) + "/tcp":        {},
			strconv.Itoa(MetricsPort) + "/tcp": {},
		},
		Labels: annotations(opts),
	}
}

// annotations are the OCI annotations of the image, also its labels.
func annotations(opts Options) map[string]string {
	a := map[string]string{
		"org.opencontainers.image.title":       "mockmcp",
		"org.opencontainers.image.description": "Mock MCP servers: the service and its command line",
		"org.opencontainers.image.version":     opts.Version,
		"org.opencontainers.image.created":     opts.Created.Format(time.RFC3339),
		"org.opencontainers.image.source":      opts.Source,
		"org.opencontainers.image.url":         opts.Source,
	}
	if opts.Revision != "" {
		a["org.opencontainers.image.revision"] = opts.Revision
	}
	return a
}

// file is one entry of a layer; a name ending in "/" is a directory.
type file struct {
	name     string
	dir      bool
	mode     int64
	uid, gid int
	data     []byte
}

// baseFiles are the layer every platform shares.
func baseFiles(certs []byte) []file {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n"+
		"%s:x:%d:%d:%s:%s:/sbin/nologin\n", UserName, UID, GID, UserName, Home)
	group := fmt.Sprintf("root:x:0:\nnobody:x:65534:\n%s:x:%d:\n", UserName, GID)
	home, state := strings.Trim(Home, "/"), strings.Trim(StateHome, "/")
	return []file{
		{name: "etc/", dir: true, mode: 0o755},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		// Go's resolver reads the order of files and DNS here.
		{name: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", dir: true, mode: 0o755},
		{name: "etc/ssl/certs/", dir: true, mode: 0o755},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: certs},
		{name: path.Dir(home) + "/", dir: true, mode: 0o755},
		{name: home + "/", dir: true, mode: 0o755, uid: UID, gid: GID},
		{name: "tmp/", dir: true, mode: 0o1777},
		{name: "var/", dir: true, mode: 0o755},
		{name: path.Dir(state) + "/", dir: true, mode: 0o755},
		{name: state + "/", dir: true, mode: 0o700, uid: UID, gid: GID},
	}
}

// layer is a gzip-compressed OCI layer of files, in their order.
func layer(mtime time.Time, files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.gid, ModTime: mtime}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	// gzip's default level: its best saves under 1% of the binary's layer
	// and takes four times as long.
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.DefaultCompression),
		tarball.WithCompressedCaching)
}
