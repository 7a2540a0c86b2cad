package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// defaultAPIKeyHeader carries --api-key when the card declares no header of its own.
const defaultAPIKeyHeader = "X-API-Key"

// credentialParams adds --bearer and --api-key to the request parameters.
func (o *Options) credentialParams(params map[string][]string) error {
	if o.Bearer != "" {
		params["Authorization"] = []string{"Bearer " + o.Bearer}
	}
	if o.APIKey != "" {
		params[defaultAPIKeyHeader] = []string{o.APIKey}
	}
	return nil
}

// apiKeyHeader moves --api-key to the header the card's apiKey security scheme names, when it names one.
func (d *Dialer) apiKeyHeader(card *a2a.AgentCard, params map[string][]string) {
	if d.opts.APIKey == "" || card == nil {
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
		if k == nil || k.Name == "" {
			continue
		}
		switch k.Location {
		case a2a.APIKeySecuritySchemeLocationQuery:
			// The scheme's query parameter, on each request to the named origin (the a2a-cli specification, §12.1).
			delete(params, defaultAPIKeyHeader)
			d.st.query.mu.Lock()
			d.st.query.name, d.st.query.value = k.Name, d.opts.APIKey
			d.st.query.mu.Unlock()
			d.log.Printf("--api-key: sent as the query parameter %s, the card's apiKey scheme", k.Name)
			return
		case a2a.APIKeySecuritySchemeLocationCookie:
			delete(params, defaultAPIKeyHeader)
			params["Cookie"] = []string{(&http.Cookie{Name: k.Name, Value: d.opts.APIKey}).String()}
			d.log.Printf("--api-key: sent as the cookie %s, the card's apiKey scheme", k.Name)
			return
		case a2a.APIKeySecuritySchemeLocationHeader:
		default:
			continue
		}
		name := http.CanonicalHeaderKey(k.Name)
		if name != defaultAPIKeyHeader {
			delete(params, defaultAPIKeyHeader)
			params[name] = []string{d.opts.APIKey}
			d.log.Printf("--api-key: sent as %s, the card's apiKey scheme", name)
		}
		return
	}
}

// LoadTLS builds the client's TLS configuration from --cacert, --cert/--key and --insecure.
func (o *Options) LoadTLS() error {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.Insecure {
		conf.InsecureSkipVerify = true //nolint:gosec // the user asked for it with --insecure
	}
	if o.CACert != "" {
		pem, err := os.ReadFile(o.CACert)
		if err != nil {
			return Usagef("read --cacert: %v", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return Usagef("--cacert %s: no PEM certificate in it", o.CACert)
		}
		conf.RootCAs = pool
	}
	if (o.Cert == "") != (o.Key == "") {
		return Usagef("--cert and --key go together: give both for mutual TLS")
	}
	if o.Cert != "" {
		pair, err := tls.LoadX509KeyPair(o.Cert, o.Key)
		if err != nil {
			return Usagef("load --cert/--key: %v", err)
		}
		conf.Certificates = []tls.Certificate{pair}
	}
	o.TLS = conf
	return nil
}

// tlsConfig is a copy of the client's TLS configuration for one transport.
func (d *Dialer) tlsConfig() *tls.Config {
	if d.opts.TLS == nil {
		if err := d.opts.LoadTLS(); err != nil {
			// Flags were checked before any connection; only a test that skips PreRun gets here.
			return &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: d.opts.Insecure} //nolint:gosec // only with --insecure
		}
	}
	return d.opts.TLS.Clone()
}

// refusedRetry bounds how long a refused connection to a loopback address is tried again: long enough for an agent
// started in the same shell line (`a2a serve … & a2a send …`) to bind its port, short enough that a port nobody
// listens on fails at once to a person.
const refusedRetry = 3 * time.Second

// retryRefused wraps dial so that a connection refused by a loopback address is tried again for up to
// refusedRetry, as curl --retry-connrefused does. Only loopback: a remote refusal is an answer, not a race.
func (d *Dialer) retryRefused(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err == nil {
			d.st.reached.Store(addr, true)
		}
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || !loopbackAddr(addr) || d.opts.NoRefusedRetry {
			return c, err
		}
		if _, ok := d.st.reached.Load(addr); ok {
			// It answered before: a refusal now means the agent went away, not that it is starting.
			return c, err
		}
		deadline := time.Now().Add(refusedRetry)
		if d, ok := callDeadline(ctx); ok {
			// Report the refusal, not a timeout: stop trying before the call's own bound, by a quarter of the time
			// left (at least 100 ms), so that a late timer on a loaded machine still ends the dial in time.
			if stop := d.Add(-max(100*time.Millisecond, time.Until(d)/4)); stop.Before(deadline) {
				deadline = stop
			}
		}
		d.log.Printf("connect %s: refused: trying again for up to %s (the agent may be starting)", addr, time.Until(deadline).Round(time.Millisecond))
		wait := 20 * time.Millisecond
		for time.Now().Before(deadline) {
			t := time.NewTimer(min(wait, time.Until(deadline))) // the last wait ends at the deadline, not past it
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, err
			case <-t.C:
			}
			c, err = dial(ctx, network, addr)
			if err == nil {
				d.st.reached.Store(addr, true)
			}
			if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
				return c, err
			}
			wait = min(wait*2, 250*time.Millisecond)
		}
		return nil, err
	}
}

// callDeadlineKey carries the deadline of the call a dial is for. http.Transport dials with a context that keeps the
// request's values but not its deadline (the connection may serve another request), so RoundTrip passes it down.
type callDeadlineKey struct{}

// withCallDeadline records ctx's deadline, if any, as a value that survives context.WithoutCancel.
func withCallDeadline(ctx context.Context) context.Context {
	if d, ok := ctx.Deadline(); ok {
		return context.WithValue(ctx, callDeadlineKey{}, d)
	}
	return ctx
}

// callDeadline is the earlier of ctx's own deadline and the deadline of the call it dials for.
func callDeadline(ctx context.Context) (time.Time, bool) {
	d, ok := ctx.Deadline()
	if cd, cok := ctx.Value(callDeadlineKey{}).(time.Time); cok && (!ok || cd.Before(d)) {
		d, ok = cd, true
	}
	return d, ok
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
