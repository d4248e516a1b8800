package ociimage

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// blob is one content-addressed file of the layout.
type blob struct {
	size int64
	open func() (io.ReadCloser, error)
}

// writeArchive writes the OCI layout of idx (index.json naming idx as
// mockmcp:VERSION) and the manifest.json of docker's own format for the
// image docker, whose files are the layout's blobs.
func writeArchive(w io.Writer, opts Options, idx v1.ImageIndex, docker v1.Image) error {
	blobs := map[v1.Hash]blob{}
	if err := addIndex(blobs, idx); err != nil {
		return err
	}
	digest, size, err := digestAndSize(idx)
	if err != nil {
		return err
	}
	top, err := mutate.IndexMediaType(mutate.AppendManifests(empty.Index, mutate.IndexAddendum{
		Add: idx,
		Descriptor: v1.Descriptor{MediaType: types.OCIImageIndex, Digest: digest, Size: size, Annotations: map[string]string{
			// The tag, per the layout specification, and the full name
			// containerd (Docker's containerd image store) gives the image.
			"org.opencontainers.image.ref.name": opts.Version,
			"io.containerd.image.name":          "docker.io/library/" + opts.Tag(),
		}},
	}), types.OCIImageIndex).RawManifest()
	if err != nil {
		return err
	}
	dockerManifest, err := dockerManifest(opts, docker)
	if err != nil {
		return err
	}

	tw := tar.NewWriter(w)
	small := []struct {
		name string
		data []byte
	}{
		{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{"index.json", top},
		{"manifest.json", dockerManifest},
	}
	for _, f := range small {
		if err := writeFile(tw, opts.Created, f.name, f.data); err != nil {
			return err
		}
	}
	for _, dir := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: opts.Created}); err != nil {
			return err
		}
	}
	digests := make([]v1.Hash, 0, len(blobs))
	for h := range blobs {
		digests = append(digests, h)
	}
	slices.SortFunc(digests, func(a, b v1.Hash) int { return strings.Compare(a.Hex, b.Hex) })
	for _, h := range digests {
		if err := writeBlob(tw, opts.Created, h, blobs[h]); err != nil {
			return err
		}
	}
	return tw.Close()
}

// addIndex adds the blobs of idx, its manifests, their configs and layers.
func addIndex(blobs map[v1.Hash]blob, idx v1.ImageIndex) error {
	if err := addRaw(blobs, idx.RawManifest); err != nil {
		return err
	}
	manifest, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, d := range manifest.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		if err := addRaw(blobs, img.RawManifest); err != nil {
			return err
		}
		if err := addRaw(blobs, img.RawConfigFile); err != nil {
			return err
		}
		layers, err := img.Layers()
		if err != nil {
			return err
		}
		for _, l := range layers {
			h, size, err := digestAndSize(l)
			if err != nil {
				return err
			}
			blobs[h] = blob{size: size, open: l.Compressed}
		}
	}
	return nil
}

// digested is what the layout names by its digest and size: an index or a
// layer.
type digested interface {
	Digest() (v1.Hash, error)
	Size() (int64, error)
}

// digestAndSize reads the digest and the size the layout names x by.
func digestAndSize(x digested) (v1.Hash, int64, error) {
	h, err := x.Digest()
	if err != nil {
		return v1.Hash{}, 0, err
	}
	size, err := x.Size()
	return h, size, err
}

// addRaw adds the blob raw returns.
func addRaw(blobs map[v1.Hash]blob, raw func() ([]byte, error)) error {
	data, err := raw()
	if err != nil {
		return err
	}
	h, _, err := v1.SHA256(bytes.NewReader(data))
	if err != nil {
		return err
	}
	blobs[h] = blob{size: int64(len(data)), open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
	return nil
}

// dockerManifest is manifest.json: docker load's own index, one image
// tagged mockmcp:VERSION whose config and layers are files of the layout.
func dockerManifest(opts Options, img v1.Image) ([]byte, error) {
	cfg, err := img.ConfigName()
	if err != nil {
		return nil, err
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	entry := struct {
		Config   string
		RepoTags []string
		Layers   []string
	}{Config: blobPath(cfg), RepoTags: []string{opts.Tag()}}
	for _, l := range layers {
		h, err := l.Digest()
		if err != nil {
			return nil, err
		}
		entry.Layers = append(entry.Layers, blobPath(h))
	}
	return json.Marshal([]any{entry})
}

func blobPath(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

func writeFile(tw *tar.Writer, mtime time.Time, name string, data []byte) error {
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mtime}); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

func writeBlob(tw *tar.Writer, mtime time.Time, h v1.Hash, b blob) error {
	rc, err := b.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: blobPath(h), Mode: 0o644, Size: b.size, ModTime: mtime}); err != nil {
		return err
	}
	n, err := io.Copy(tw, rc)
	if err != nil {
		return fmt.Errorf("blob %s: %w", h, err)
	}
	if n != b.size {
		return fmt.Errorf("blob %s: %d bytes, its descriptor says %d", h, n, b.size)
	}
	return nil
}
