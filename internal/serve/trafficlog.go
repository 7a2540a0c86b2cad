package serve

import "github.com/a2acli/a2a/internal/serve/traffic"

// newTrafficLog builds the traffic log of cfg (normalised): its lines, metrics and the inspector's observer.
func newTrafficLog(cfg *Config) *traffic.Log {
	return traffic.New(traffic.Config{W: cfg.Log, JSON: cfg.LogFormat == "json", Quiet: cfg.Quiet,
		Verbose: cfg.Verbose, Metrics: !cfg.NoMetrics, Observer: cfg.Inspector})
}
