//go:build !race

package mcpserve_test

const raceEnabled = false
