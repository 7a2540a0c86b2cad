package servecmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/proxy"
	"github.com/a2acli/a2a/internal/serve/replay"
)

// proxyFlags are serve's flags for the proxy backend (package proxy), and --record, which writes what it forwards
// as a recording (replay.Record). The root's --auth and --svc-param go to the upstream, and its TLS flags reach it
// through the run's Dialer.
type proxyFlags struct {
	upstream   string
	record     string
	recordFile *os.File
	d          Deps // the run's, for connect
}

func (*proxyFlags) about() backendAbout {
	return backendAbout{
		flag: "proxy", use: "--proxy <url>", needs: "URL", does: "forwards every call to an agent", risky: true,
		value: "the upstream agent's URL: --proxy http://localhost:9999",
		help:  "  --proxy URL     forward every call to an upstream agent, logging traffic to stderr\n",
	}
}

func (p *proxyFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&p.upstream, "proxy", "", "proxy mode: forward every call to this upstream agent")
	fl.StringVar(&p.record, "record", "", "with --proxy: write the traffic to this file as a recording --replay serves")
}

func (p *proxyFlags) chosen() bool { return p.upstream != "" }

func (p *proxyFlags) check(v *verb) error {
	// A client's A2ACLI_AUTH or A2ACLI_SVC_PARAM in serve's environment is not serve's business (it reaches no
	// command: see --exec-env): only the flags themselves are refused without --proxy.
	if !p.chosen() && (v.given("auth") && v.d.Opts.Auth != "" || v.given("svc-param") && len(v.d.Opts.SvcParams) > 0) {
		return errors.New("--auth and --svc-param go with --proxy")
	}
	if p.record != "" && !p.chosen() {
		return errors.New("--record goes with --proxy")
	}
	if p.chosen() && v.cfg.Store != "memory" && v.cfg.Store != "" {
		return errors.New("--store does not go with --proxy: the upstream agent keeps the tasks")
	}
	return nil
}

func (p *proxyFlags) build(v *verb) (serve.Backend, error) {
	if _, err := client.ParseRef(p.upstream); err != nil {
		return nil, fmt.Errorf("invalid --proxy: %w", err)
	}
	opts := v.d.Opts
	headers, err := opts.ServiceParams()
	if err != nil {
		return nil, err
	}
	// A2A-Version is the version of a body: the byte path forwards the caller's body with the caller's header, the
	// decoding path's client writes its own (a version forced with --svc-param chooses its interface).
	delete(headers, http.CanonicalHeaderKey(a2a.SvcParamVersion))
	opts.NoRefusedRetry = true // a proxy answers its callers at once when the upstream is down
	// Both of the proxy's paths reach the upstream through the run's dialer: the decoding path connects with it, the
	// byte path's transport is its Upstream's.
	p.d = v.d
	b := proxy.New(proxy.Config{Connect: p.connect, AuthInjected: opts.Auth != "", Headers: headers,
		Upstream: p.upstream, Transport: v.d.Dialer().Upstream().Transport})
	if p.record == "" {
		return b, nil
	}
	f, err := os.OpenFile(p.record, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	p.recordFile = f
	return replay.Record(b, f), nil
}

// connect resolves the proxy's upstream with the run's dialer, whatever its transport or version.
func (p *proxyFlags) connect(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
	// serve's --transport names what we serve, not how to reach the upstream. The dialer is the run's: every
	// reconnect reuses its HTTP client and pool.
	// A proxy fronts whatever its upstream speaks, v0.3 included: the a2a-cli specification's opt-in for a version
	// before 1.0 (§13.2) is a client's rule, and serve is a server (§3).
	c, err := p.d.Dialer().WithTransport("").WithLegacy().Connect(ctx, p.upstream)
	if err != nil {
		return nil, nil, err
	}
	return c.Client, c.Card, nil
}

// close closes the recording file, if one was opened.
func (p *proxyFlags) close() {
	if p.recordFile != nil {
		p.recordFile.Close()
		p.recordFile = nil
	}
}
