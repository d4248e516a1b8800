package embeddedpg

import (
	"encoding/json"
	"fmt"
	"os"
)

// HelperCommand is the hidden first argument that makes the mockmcp
// executable the helper starting the server as an unprivileged user
// (RunHelper); main calls RunHelper before anything else.
const HelperCommand = "__embedded-postgres"

// RunHelper, when os.Args[1] is HelperCommand, starts the server described
// on standard input and exits: the server keeps running, detached by
// pg_ctl. Otherwise it returns.
func RunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperCommand {
		return
	}
	var r request
	if err := json.NewDecoder(os.Stdin).Decode(&r); err != nil {
		fmt.Fprintln(os.Stderr, "embedded database helper:", err)
		os.Exit(1)
	}
	if r.UID > 0 {
		if err := dropPrivileges(r.UID, r.GID); err != nil {
			fmt.Fprintf(os.Stderr, "embedded database helper: run as %s: %v\n", RunAs, err)
			os.Exit(1)
		}
	}
	if err := start(r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
