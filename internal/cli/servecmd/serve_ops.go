package servecmd

import (
	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/cardsig"
	"github.com/a2acli/a2a/internal/serve"
)

// serveOpsOptions are serve's flags for whoever runs it: TLS, the log's form, metrics.
type serveOpsOptions struct {
	tlsCert, tlsKey string
	signCard        string
	logFormat       string
	noMetrics       bool
}

func (s *serveOpsOptions) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&s.tlsCert, "tls-cert", "", "serve every transport over TLS with this certificate (PEM; with --tls-key)")
	fl.StringVar(&s.tlsKey, "tls-key", "", "the private key of --tls-cert (PEM)")
	fl.StringVar(&s.signCard, "sign-card", "", "sign the served card with this private key (`KEY.pem`: EC, RSA or Ed25519) and publish its JWKS at /.well-known/jwks.json")
	fl.StringVar(&s.logFormat, "log-format", "text", "traffic log on stderr: text, or json (one object per line)")
	fl.BoolVar(&s.noMetrics, "no-metrics", false, "do not serve GET /metrics (Prometheus text format)")
	cmd.MarkFlagsRequiredTogether("tls-cert", "tls-key")
	_ = cmd.MarkFlagFilename("tls-cert")                                              // cannot fail: the flag exists
	_ = cmd.MarkFlagFilename("sign-card")                                             // cannot fail: the flag exists
	_ = cmd.MarkFlagFilename("tls-key")                                               // cannot fail: the flag exists
	_ = cmd.RegisterFlagCompletionFunc("log-format", fixedCompletion("text", "json")) // cannot fail: the flag exists
}

// apply checks the flags and sets them in cfg.
func (s *serveOpsOptions) apply(cfg *serve.Config, usage func(string, ...any) error) error {
	switch s.logFormat {
	case "text", "json":
	default:
		return usage("invalid --log-format %q: want text or json", s.logFormat)
	}
	cfg.TLSCertFile, cfg.TLSKeyFile = s.tlsCert, s.tlsKey
	cfg.LogFormat, cfg.NoMetrics = s.logFormat, s.noMetrics
	if s.signCard != "" {
		signer, err := cardsig.LoadSigner(s.signCard)
		if err != nil {
			return usage("invalid --sign-card: %v", err)
		}
		cfg.CardSigner = signer
	}
	return nil
}
