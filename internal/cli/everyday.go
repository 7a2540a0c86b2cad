package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/pflag"

	"github.com/a2acli/a2a/internal/output"
)

// everyday are the global options of issue 13: credentials beside --auth, dotenv files, client TLS, output controls.
type everyday struct {
	bearer, apiKey string
	config         string
	cacert         string
	cert, key      string
	color          string
	jqExpr         string
	tlsConf        *tls.Config
}

// defaultAPIKeyHeader carries --api-key when the card declares no header of its own.
const defaultAPIKeyHeader = "X-API-Key"

// addEverydayFlags registers the flags of everyday on the root's persistent set.
func (f *factory) addEverydayFlags(pf *pflag.FlagSet) {
	o := &f.opts.everyday
	pf.StringVar(&o.bearer, "bearer", "", "bearer `token`, sent as \"Authorization: Bearer <token>\" (@FILE or - reads it from a file or stdin)")
	pf.StringVar(&o.apiKey, "api-key", "", "API `key`, sent in the header the card's apiKey scheme names, else X-API-Key (@FILE or -: from a file or stdin)")
	pf.StringVar(&o.config, "config", "", "dotenv `file` of A2ACLI_ variables, read before ./.env and ~/.config/a2a/.env")
	pf.StringVar(&o.cacert, "cacert", "", "trust the CA certificates in this PEM `file` (besides the system's)")
	pf.StringVar(&o.cert, "cert", "", "client certificate PEM `file` for mutual TLS (with --key)")
	pf.StringVar(&o.key, "key", "", "client private key PEM `file` for mutual TLS (with --cert)")
	pf.StringVar(&o.color, "color", "auto", "colour: auto, always or never (auto honours NO_COLOR, CLICOLOR, CLICOLOR_FORCE, FORCE_COLOR)")
	pf.StringVar(&o.jqExpr, "jq", "", "filter JSON output with a jq `expression` (implies -o json; strings print raw)")
}

// prepareEveryday checks and loads the everyday options once flags, environment and files are read.
func (f *factory) prepareEveryday(fs *pflag.FlagSet) error {
	o := &f.opts.everyday
	switch o.color {
	case "auto", "always", "never":
	default:
		return usagef("invalid --color %q: want auto, always or never", o.color)
	}
	f.io.ColorMode = o.color
	if o.bearer != "" && f.opts.auth != "" {
		return usagef("--bearer and --auth both set the Authorization header: give one")
	}
	if err := f.loadTLS(); err != nil {
		return err
	}
	if o.jqExpr != "" {
		if fl := fs.Lookup("output"); fl != nil && fl.Changed && f.opts.output != string(output.JSON) {
			return usagef("--jq filters JSON: drop -o %s", f.opts.output)
		}
		f.opts.output = string(output.JSON)
		jw, err := newJQWriter(f.io.Out, o.jqExpr)
		if err != nil {
			return err
		}
		f.jq = jw
		f.io.Out = jw
	}
	return nil
}

// credentialParams adds --bearer and --api-key to the request parameters.
func (o *globalOptions) credentialParams(params map[string][]string) error {
	if o.bearer != "" {
		params["Authorization"] = []string{"Bearer " + o.bearer}
	}
	if o.apiKey != "" {
		params[defaultAPIKeyHeader] = []string{o.apiKey}
	}
	return nil
}

// apiKeyHeader moves --api-key to the header the card's apiKey security scheme names, when it names one.
func (f *factory) apiKeyHeader(card *a2a.AgentCard, params map[string][]string) {
	if f.opts.apiKey == "" || card == nil {
		return
	}
	for _, s := range card.SecuritySchemes {
		var k *a2a.APIKeySecurityScheme
		switch v := s.(type) {
		case a2a.APIKeySecurityScheme:
			k = &v
		case *a2a.APIKeySecurityScheme:
			k = v
		}
		if k == nil || k.Location != a2a.APIKeySecuritySchemeLocationHeader || k.Name == "" {
			continue
		}
		name := http.CanonicalHeaderKey(k.Name)
		if name != defaultAPIKeyHeader {
			delete(params, defaultAPIKeyHeader)
			params[name] = []string{f.opts.apiKey}
			f.log.printf("--api-key: sent as %s, the card's apiKey scheme", name)
		}
		return
	}
}

// loadTLS builds the client's TLS configuration from --cacert, --cert/--key and --insecure.
func (f *factory) loadTLS() error {
	o := &f.opts.everyday
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.opts.insecure {
		conf.InsecureSkipVerify = true //nolint:gosec // the user asked for it with --insecure
	}
	if o.cacert != "" {
		pem, err := os.ReadFile(o.cacert)
		if err != nil {
			return usagef("read --cacert: %v", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return usagef("--cacert %s: no PEM certificate in it", o.cacert)
		}
		conf.RootCAs = pool
	}
	if (o.cert == "") != (o.key == "") {
		return usagef("--cert and --key go together: give both for mutual TLS")
	}
	if o.cert != "" {
		pair, err := tls.LoadX509KeyPair(o.cert, o.key)
		if err != nil {
			return usagef("load --cert/--key: %v", err)
		}
		conf.Certificates = []tls.Certificate{pair}
	}
	o.tlsConf = conf
	return nil
}

// tlsConfig is a copy of the client's TLS configuration for one transport.
func (f *factory) tlsConfig() *tls.Config {
	if f.opts.tlsConf == nil {
		if err := f.loadTLS(); err != nil {
			// Flags were checked before any connection; only a test that skips PreRun gets here.
			return &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: f.opts.insecure} //nolint:gosec // only with --insecure
		}
	}
	return f.opts.tlsConf.Clone()
}

// refusedRetry bounds how long a refused connection to a loopback address is tried again: long enough for an agent
// started in the same shell line (`a2a serve … & a2a send …`) to bind its port, short enough that a port nobody
// listens on fails at once to a person.
const refusedRetry = 3 * time.Second

// retryRefused wraps dial so that a connection refused by a loopback address is tried again for up to
// refusedRetry, as curl --retry-connrefused does. Only loopback: a remote refusal is an answer, not a race.
func (f *factory) retryRefused(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if f.reached == nil {
		f.reached = &sync.Map{}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err == nil {
			f.reached.Store(addr, true)
		}
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || !loopbackAddr(addr) {
			return c, err
		}
		if _, ok := f.reached.Load(addr); ok {
			// It answered before: a refusal now means the agent went away, not that it is starting.
			return c, err
		}
		deadline := time.Now().Add(refusedRetry)
		if d, ok := ctx.Deadline(); ok && d.Add(-100*time.Millisecond).Before(deadline) {
			// Report the refusal, not a timeout: stop trying just before the call's own bound.
			deadline = d.Add(-100 * time.Millisecond)
		}
		f.log.printf("connect %s: refused: trying again for up to %s (the agent may be starting)", addr, time.Until(deadline).Round(time.Millisecond))
		wait := 20 * time.Millisecond
		for time.Now().Before(deadline) {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, err
			case <-t.C:
			}
			c, err = dial(ctx, network, addr)
			if err == nil {
				f.reached.Store(addr, true)
			}
			if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
				return c, err
			}
			wait = min(wait*2, 250*time.Millisecond)
		}
		return nil, err
	}
}

func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
