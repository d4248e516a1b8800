//go:build !race

package mcptransport_test

const raceEnabled = false
