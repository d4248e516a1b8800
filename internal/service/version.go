package service

// Commit is the revision the build was made from, set with -ldflags at
// build time (make build, make dist); empty when unknown.
var Commit = ""

// Date is when that revision was committed, RFC 3339 UTC, set with -ldflags
// at build time. It is the commit's date, not the build's, so that two
// builds of one revision are the same byte for byte.
var Date = ""

// VersionLine is what `mockmcp version` prints: Version, then the commit
// and its date when the build was stamped with them, as
// "v1.2.0 (commit 0b6f…, YYYY-MM-DDThh:mm:ssZ)". An unstamped build
// prints Version alone, so scripts that read it keep working.
func VersionLine() string {
	switch {
	case Commit != "" && Date != "":
		return Version + " (commit " + Commit + ", " + Date + ")"
	case Commit != "":
		return Version + " (commit " + Commit + ")"
	case Date != "":
		return Version + " (" + Date + ")"
	}
	return Version
}
