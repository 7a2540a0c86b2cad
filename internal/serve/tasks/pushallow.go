package tasks

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// pushAllow is the list of webhook hosts push notifications may go to (Config.PushAllow): loopback
// hosts always, the named hosts, or any host with "*". A webhook URL is checked when its config is
// stored, and the host is checked again when the connection is dialled, so nothing ever reaches a
// host outside the list (redirects are not followed, see pushClient).
type pushAllow struct {
	any   bool
	hosts map[string]bool // lower-case host names and IP literals
}

func newPushAllow(list []string) pushAllow {
	a := pushAllow{hosts: map[string]bool{}}
	for _, h := range list {
		h = strings.ToLower(strings.TrimSpace(h))
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		switch h {
		case "":
		case "*":
			a.any = true
		default:
			a.hosts[h] = true
		}
	}
	return a
}

// loopbackHost reports whether h names this machine: localhost or a loopback IP.
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (a pushAllow) allowed(host string) bool {
	return a.any || loopbackHost(host) || a.hosts[strings.ToLower(host)]
}

// check validates a webhook URL: http or https, a host, and a host on the list. Its errors are
// InvalidParams that say how to widen the list.
func (a pushAllow) check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf("push notification URL %q is not an http or https URL with a host", raw))
	}
	h := u.Hostname()
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
	var d net.Dialer
	switch {
	case a.any || a.hosts[strings.ToLower(host)]:
	case strings.EqualFold(host, "localhost"):
		addr = net.JoinHostPort("127.0.0.1", port)
	case loopbackHost(host):
	default:
		return nil, fmt.Errorf("push notification host %q is not allowed", host)
	}
	return d.DialContext(ctx, network, addr)
}
