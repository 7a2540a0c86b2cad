package tasks

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// pushAllow is the list of webhook hosts push notifications may go to (Config.PushAllow): the named
// hosts, or any host with "*", and loopback hosts: always while serve listens on loopback only, but
// once it is reachable from other machines (OffLoopback) only when one is named ("localhost",
// "127.0.0.1", "::1"), as '*' does not reach them: a token holder must not reach this machine's own
// services. A webhook URL is checked when its config is stored, and the address really dialled is
// checked again when the connection is made (a name that resolves to loopback, 0.0.0.0), so nothing
// ever reaches a host outside the list (redirects are not followed, see pushClient).
type pushAllow struct {
	any      bool
	hosts    map[string]bool // lower-case host names and IP literals
	loopback bool            // loopback webhooks are allowed
	named    bool            // loopback was allowed by naming a loopback host (off loopback)
}

func newPushAllow(list []string, offLoopback bool) pushAllow {
	a := pushAllow{hosts: map[string]bool{}, loopback: !offLoopback}
	for _, h := range list {
		h = strings.ToLower(strings.TrimSpace(h))
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		switch {
		case h == "":
		case h == "*":
			a.any = true
		default:
			a.hosts[h] = true
			if loopbackHost(h) {
				a.loopback, a.named = true, true
			}
		}
	}
	return a
}

// PusherOption configures a Pusher.
type PusherOption func(*pushOptions)

type pushOptions struct{ offLoopback bool }

// OffLoopback is for a server reachable from other machines: loopback webhooks then need a loopback host named
// in the allow-list.
func OffLoopback() PusherOption { return func(o *pushOptions) { o.offLoopback = true } }

// localIP reports an address that reaches this machine: loopback, or unspecified (0.0.0.0 and :: connect to it).
func localIP(ip net.IP) bool { return ip != nil && (ip.IsLoopback() || ip.IsUnspecified()) }

// loopbackHost reports whether h names this machine: localhost or a loopback IP.
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (a pushAllow) allowed(host string) bool {
	if loopbackHost(host) || localIP(net.ParseIP(host)) {
		return a.loopback
	}
	return a.any || a.hosts[strings.ToLower(host)]
}

// check validates a webhook URL: http or https, a host, and a host on the list. Its errors are
// InvalidParams that say how to widen the list.
func (a pushAllow) check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf("push notification URL %q is not an http or https URL with a host", raw))
	}
	h := u.Hostname()
	if !a.allowed(h) && (loopbackHost(h) || localIP(net.ParseIP(h))) {
		return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf(
			"push notification host %q is this machine, and this server is reachable from other machines: "+
				"loopback webhooks need serve --push-allow %s", h, h))
	}
	if !a.allowed(h) {
		return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf(
			"push notification host %q is not allowed: this server sends push notifications only to loopback hosts "+
				"and the hosts it was started with (serve --push-allow %s, or --push-allow '*' for any host)", h, h))
	}
	return nil
}

// dial connects to addr only when its host is allowed. "localhost" is dialled as 127.0.0.1, so that
// a resolver answering otherwise cannot send a notification elsewhere.
func (a pushAllow) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Control: a.control}
	switch {
	case strings.EqualFold(host, "localhost") && a.loopback:
		addr = net.JoinHostPort("127.0.0.1", port)
	case a.allowed(host):
	default:
		return nil, fmt.Errorf("push notification host %q is not allowed", host)
	}
	return d.DialContext(ctx, network, addr)
}

// control checks the address a connection is really made to, after name resolution: a loopback or unspecified
// address only when loopback webhooks are allowed.
func (a pushAllow) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if localIP(net.ParseIP(host)) && !a.loopback {
		return fmt.Errorf("push notification address %s is this machine: not allowed", address)
	}
	return nil
}
