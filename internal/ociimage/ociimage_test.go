package ociimage

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	"github.com/stretchr/testify/require"
)

const (
	testVersion  = "v9.8.7-image"
	testRevision = "0b6f2c1d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b"
	testDate     = "2026-11-27T17:31:48Z"
)

// repoRoot is the repository's root, where the Makefile is.
const repoRoot = "../.."

// makeTarget runs `make TARGET` at the repository's root, stamping the
// test's version, commit and date, with the output in dir.
func makeTarget(t *testing.T, target, dir string, vars ...string) {
	t.Helper()
	args := append([]string{"-C", repoRoot, target, "DIST_DIR=" + dir,
		"VERSION=" + testVersion, "COMMIT=" + testRevision, "DATE=" + testDate}, vars...)
	out, err := exec.Command("make", args...).CombinedOutput()
	require.NoError(t, err, "make %s: %s", target, out)
}

// buildStatic builds mockmcp with `make dist` for linux and this machine's
// architecture, checks what it made (a static binary, its SHA256SUMS
// line), and returns the binary's path.
func buildStatic(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	makeTarget(t, "dist", dir, "DIST_PLATFORMS=linux/"+runtime.GOARCH)
	name := "mockmcp_" + testVersion + "_linux_" + runtime.GOARCH
	bin := filepath.Join(dir, name)
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	require.Equal(t, hex.EncodeToString(sum[:])+"  "+name+"\n", string(sums))

	// Static: no program interpreter (the dynamic loader), no shared
	// library, so it runs on an image without a C library.
	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "the binary asks for a dynamic loader")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.Empty(t, libs)
	return bin
}

// otherArch is an architecture that is not this machine's.
func otherArch() string {
	if runtime.GOARCH == "arm64" {
		return "amd64"
	}
	return "arm64"
}

// TestImage builds a static binary with make dist, the image from it,
// reads the tarball back as an OCI layout and as docker load would, runs
// the binary it holds, and checks that make image builds the same image.
func TestImage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("runs the image's Linux binary")
	}
	t.Parallel()
	bin := buildStatic(t)
	created, err := time.Parse(time.RFC3339, testDate)
	require.NoError(t, err)
	host := "linux/" + runtime.GOARCH
	// The index's second platform gets a stand-in file: this checks the
	// shape of a two-platform index without cross-compiling; make image
	// gives each platform its binary.
	standIn := filepath.Join(t.TempDir(), "stand-in")
	require.NoError(t, os.WriteFile(standIn, []byte("the other platform's binary\n"), 0o755))
	opts := Options{
		Binaries: map[string]string{host: bin, "linux/" + otherArch(): standIn},
		Version:  testVersion, Revision: testRevision, Created: created,
	}
	var archive bytes.Buffer
	require.NoError(t, Write(&archive, opts))

	entries := untar(t, bytes.NewReader(archive.Bytes()))
	for name, e := range entries {
		require.Equal(t, created, e.modTime.UTC(), name)
	}
	dir := t.TempDir()
	extract(t, entries, dir)
	require.JSONEq(t, `{"imageLayoutVersion":"1.0.0"}`, string(entries["oci-layout"].data))
	// Every blob is named by its digest.
	blobs := 0
	for name, e := range entries {
		if hexDigest, ok := strings.CutPrefix(name, "blobs/sha256/"); ok && !e.dir {
			sum := sha256.Sum256(e.data)
			require.Equal(t, hexDigest, hex.EncodeToString(sum[:]), name)
			blobs++
		}
	}
	// The index, two manifests, two configs, the shared layer and two
	// binary layers.
	require.Equal(t, 8, blobs)

	t.Run("OCI layout", func(t *testing.T) {
		top, err := layout.ImageIndexFromPath(dir)
		require.NoError(t, err)
		topManifest, err := top.IndexManifest()
		require.NoError(t, err)
		require.Len(t, topManifest.Manifests, 1)
		ref := topManifest.Manifests[0]
		require.Equal(t, "application/vnd.oci.image.index.v1+json", string(ref.MediaType))
		require.Equal(t, testVersion, ref.Annotations["org.opencontainers.image.ref.name"])
		require.Equal(t, "docker.io/library/mockmcp:"+testVersion, ref.Annotations["io.containerd.image.name"])

		idx, err := top.ImageIndex(ref.Digest)
		require.NoError(t, err)
		// The index, its manifests and configs agree (media types,
		// platforms, sizes, digests); layer bytes are digested below, once
		// (the race detector makes gzip slow).
		require.NoError(t, validate.Index(idx, validate.Fast))
		manifest, err := idx.IndexManifest()
		require.NoError(t, err)
		var platforms []string
		var img v1.Image
		for _, d := range manifest.Manifests {
			require.Equal(t, "application/vnd.oci.image.manifest.v1+json", string(d.MediaType))
			require.NotNil(t, d.Platform)
			platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture)
			if d.Platform.OS+"/"+d.Platform.Architecture == host {
				img, err = idx.Image(d.Digest)
				require.NoError(t, err)
			}
		}
		require.ElementsMatch(t, []string{"linux/amd64", "linux/arm64"}, platforms)
		require.Equal(t, testVersion, manifest.Annotations["org.opencontainers.image.version"])

		checkConfig(t, img, created)
		checkFiles(t, img, bin)
	})

	t.Run("docker load", func(t *testing.T) {
		var dockerManifest []struct {
			Config   string
			RepoTags []string
			Layers   []string
		}
		require.NoError(t, json.Unmarshal(entries["manifest.json"].data, &dockerManifest))
		require.Len(t, dockerManifest, 1)
		require.Equal(t, []string{"mockmcp:" + testVersion}, dockerManifest[0].RepoTags)
		require.Len(t, dockerManifest[0].Layers, 2)
		// go-containerregistry's reader of `docker save` archives finds
		// the config and every layer, and its digests check out.
		img, err := tarball.ImageFromPath(writeTemp(t, archive.Bytes()), nil)
		require.NoError(t, err)
		// (Layer contents were digested above.)
		require.NoError(t, validate.Image(img, validate.Fast))
		cfg, err := img.ConfigFile()
		require.NoError(t, err)
		require.Equal(t, runtime.GOARCH, cfg.Architecture)
		require.Equal(t, []string{BinaryPath}, cfg.Config.Entrypoint)
	})

	t.Run("make image", func(t *testing.T) {
		// make image rebuilds the binary and runs cmd/mkimage: its image
		// of this platform has the same digest (the same manifest, config
		// and layers) as Write's from make dist's binary, so both the
		// build and the image are reproducible.
		made := t.TempDir()
		makeTarget(t, "image", made, "IMAGE_PLATFORMS="+host)
		f, err := os.Open(filepath.Join(made, "mockmcp-image.tar"))
		require.NoError(t, err)
		defer f.Close()
		madeDir := t.TempDir()
		extract(t, untar(t, f), madeDir)
		require.Equal(t, hostDigest(t, dir, host), hostDigest(t, madeDir, host))
	})
}

// extract writes the entries of a layout's tarball under dir.
func extract(t *testing.T, entries map[string]entry, dir string) {
	t.Helper()
	for name, e := range entries {
		if e.dir {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), e.data, 0o644))
	}
}

// hostDigest is the digest of the image of platform in the layout at dir.
func hostDigest(t *testing.T, dir, platform string) v1.Hash {
	t.Helper()
	top, err := layout.ImageIndexFromPath(dir)
	require.NoError(t, err)
	topManifest, err := top.IndexManifest()
	require.NoError(t, err)
	require.Len(t, topManifest.Manifests, 1)
	idx, err := top.ImageIndex(topManifest.Manifests[0].Digest)
	require.NoError(t, err)
	manifest, err := idx.IndexManifest()
	require.NoError(t, err)
	for _, d := range manifest.Manifests {
		if d.Platform != nil && d.Platform.OS+"/"+d.Platform.Architecture == platform {
			return d.Digest
		}
	}
	t.Fatalf("no image of %s in %s", platform, dir)
	return v1.Hash{}
}

// checkConfig checks how a container of img runs, and its labels.
func checkConfig(t *testing.T, img v1.Image, created time.Time) {
	t.Helper()
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, "linux", cfg.OS)
	require.Equal(t, runtime.GOARCH, cfg.Architecture)
	require.Equal(t, created, cfg.Created.UTC())
	c := cfg.Config
	require.Equal(t, []string{"/usr/local/bin/mockmcp"}, c.Entrypoint)
	require.Equal(t, []string{"serve"}, c.Cmd)
	require.Equal(t, "65532:65532", c.User)
	require.Equal(t, "/home/mockmcp", c.WorkingDir)
	require.Subset(t, c.Env, []string{"PATH=/usr/local/bin", "LISTEN_ADDR=:8080", "METRICS_ADDR=:9091",
		"HOME=/home/mockmcp", "XDG_STATE_HOME=/var/lib/mockmcp"})
	require.Equal(t, map[string]struct{}{"8080/tcp": {}, "9091/tcp": {}}, c.ExposedPorts)
	want := map[string]string{
		"org.opencontainers.image.title":    "mockmcp",
		"org.opencontainers.image.version":  testVersion,
		"org.opencontainers.image.revision": testRevision,
		"org.opencontainers.image.created":  testDate,
		"org.opencontainers.image.source":   DefaultSource,
	}
	manifest, err := img.Manifest()
	require.NoError(t, err)
	for k, v := range want {
		require.Equal(t, v, c.Labels[k], "label %s", k)
		require.Equal(t, v, manifest.Annotations[k], "annotation %s", k)
	}
	require.Equal(t, "application/vnd.oci.image.config.v1+json", string(manifest.Config.MediaType))
	for _, l := range manifest.Layers {
		require.Equal(t, "application/vnd.oci.image.layer.v1.tar+gzip", string(l.MediaType))
	}
}

// checkFiles checks the file system of img, and runs its binary.
func checkFiles(t *testing.T, img v1.Image, bin string) {
	t.Helper()
	// The layers, each decompressed once: its digest is the diff id of
	// the config, and its files are laid over the previous layers'.
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, cfg.RootFS.DiffIDs, len(layers))
	files := map[string]entry{}
	for i, l := range layers {
		rc, err := l.Uncompressed()
		require.NoError(t, err)
		h := sha256.New()
		for name, e := range untar(t, io.TeeReader(rc, h)) {
			files[name] = e
		}
		_, err = io.Copy(h, rc) // the tar's padding past its last entry
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		require.Equal(t, cfg.RootFS.DiffIDs[i].Hex, hex.EncodeToString(h.Sum(nil)), "layer %d", i)
	}

	require.Contains(t, string(files["etc/passwd"].data), "mockmcp:x:65532:65532:mockmcp:/home/mockmcp:/sbin/nologin\n")
	require.Contains(t, string(files["etc/group"].data), "mockmcp:x:65532:\n")
	certs, err := os.ReadFile(DefaultCACertificates)
	require.NoError(t, err)
	require.Equal(t, certs, files["etc/ssl/certs/ca-certificates.crt"].data)
	tmp := files["tmp"]
	require.True(t, tmp.dir)
	require.Equal(t, int64(0o1777), tmp.mode)
	for _, dir := range []string{"home/mockmcp", "var/lib/mockmcp"} {
		require.True(t, files[dir].dir, dir)
		require.Equal(t, 65532, files[dir].uid, dir)
		require.Equal(t, 65532, files[dir].gid, dir)
	}
	exe := files["usr/local/bin/mockmcp"]
	require.Equal(t, int64(0o755), exe.mode)
	want, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, exe.data), "the image's binary is not the one given")

	path := filepath.Join(t.TempDir(), "mockmcp")
	require.NoError(t, os.WriteFile(path, exe.data, 0o755))
	for _, args := range []string{"--version", "version"} {
		out, err := exec.Command(path, args).CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Equal(t, testVersion+" (commit "+testRevision+", "+testDate+")\n", string(out))
	}
}

func TestWriteRefuses(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "mockmcp")
	require.NoError(t, os.WriteFile(bin, []byte("not really"), 0o755))
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no binary", Options{Version: "v1"}, "no binary"},
		{"no version", Options{Binaries: map[string]string{"linux/amd64": bin}}, "version is empty"},
		{"not linux", Options{Version: "v1", Binaries: map[string]string{"darwin/arm64": bin}}, `platform "darwin/arm64": want linux/ARCH`},
		{"missing binary", Options{Version: "v1", Binaries: map[string]string{"linux/amd64": bin + ".gone"}}, "binary:"},
		{"missing CA bundle", Options{Version: "v1", Binaries: map[string]string{"linux/amd64": bin},
			CACertificates: bin + ".gone"}, "CA certificates:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(io.Discard, tc.opts)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// entry is one file or directory of a tar archive.
type entry struct {
	dir      bool
	mode     int64
	uid, gid int
	modTime  time.Time
	data     []byte
}

// untar reads every entry of a tar archive, by name.
func untar(t *testing.T, r io.Reader) map[string]entry {
	t.Helper()
	entries := map[string]entry{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		require.NoError(t, err)
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		// A directory is named without its trailing slash (image
		// extraction cleans names).
		name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "/"), "/")
		entries[name] = entry{dir: h.Typeflag == tar.TypeDir, mode: h.Mode, uid: h.Uid, gid: h.Gid, modTime: h.ModTime, data: data}
	}
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "image.tar")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}
