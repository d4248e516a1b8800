//go:build !race

package readme_test

// raceFlags build the binary as the test is built (see race_test.go).
var raceFlags []string
