package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/mockmcp/mockmcp/internal/config"
)

// listenFlags are serve's --listen and --metrics-listen. A flag given on
// the command line wins over its variable (LISTEN_ADDR, METRICS_ADDR): the
// command line is the more specific of the two, as with --designs.
type listenFlags struct {
	listen, metrics       string
	listenSet, metricsSet bool
}

// add registers the flags on cmd.
func (f *listenFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.listen, "listen", "", "the address to serve on, such as :8080 or 127.0.0.1:9000 (default $LISTEN_ADDR, else :8080)")
	cmd.Flags().StringVar(&f.metrics, "metrics-listen", "", "the address of the metrics listener; \"\" for none (default $METRICS_ADDR, else "+config.DefaultMetricsAddr+")")
}

// read notes which flags the command line gave: an empty
// --metrics-listen turns the metrics off, so "given" is not "not empty".
// An empty --listen would serve on a random port: a usage error.
func (f *listenFlags) read(cmd *cobra.Command) error {
	f.listenSet = cmd.Flags().Changed("listen")
	f.metricsSet = cmd.Flags().Changed("metrics-listen")
	if f.listenSet && strings.TrimSpace(f.listen) == "" {
		return usagef("--listen: want an address such as :8080 or 127.0.0.1:9000")
	}
	return nil
}

// apply puts the given flags into cfg.
func (f listenFlags) apply(cfg *config.Config) {
	if f.listenSet {
		cfg.ListenAddr = f.listen
	}
	if f.metricsSet {
		cfg.MetricsAddr = f.metrics
	}
}
