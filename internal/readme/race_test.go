//go:build race

package readme_test

// raceFlags build the binary as the test is built, so that under
// `go test -race` the packages compiled for the other tests are reused (and
// the service runs under the race detector too).
var raceFlags = []string{"-race"}
