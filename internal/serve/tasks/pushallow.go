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
// services. Link-local and cloud metadata addresses (169.254.169.254, fd00:ec2::254, …) are never
// reached through '*': only a webhook whose host is named in the list (the name, or the address
// itself) may go there. A webhook URL is checked when its config is stored, and again at every
// connection: the name is resolved here, each address checked, and only a checked address dialled
// (resolve, then dial that IP), so a name that resolves elsewhere later (DNS rebinding) reaches
// nothing outside the list (redirects are not followed, see pushClient).
type pushAllow struct {
	any      bool
	hosts    map[string]bool // lower-case host names and IP literals
	loopback bool            // loopback webhooks are allowed
	named    bool            // loopback was allowed by naming a loopback host (off loopback)
	// lookup resolves a webhook's host name; nil => the system's resolver (tests give their own).
	lookup func(ctx context.Context, host string) ([]net.IPAddr, error)
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
			if ip := net.ParseIP(h); ip != nil {
				a.hosts[ip.String()] = true // the form an address is checked in
			}
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

// metadataIP reports a link-local address (169.254.0.0/16, fe80::/10, where clouds answer their metadata
// services) or another well-known cloud metadata address, in any of its IPv6 forms (IPv4-mapped, NAT64).
func metadataIP(ip net.IP) bool {
	if ip == nil {
		return false
	}
	if ip.To4() == nil && len(ip) == net.IPv6len && [12]byte(ip[:12]) == nat64Prefix {
		ip = net.IP(ip[12:16]) // 64:ff9b::a9fe:a9fe is 169.254.169.254 through a NAT64 gateway
	}
	if ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() {
		return true
	}
	for _, m := range metadataAddrs {
		if ip.Equal(net.ParseIP(m)) {
			return true
		}
	}
	return false
}

// metadataAddrs are cloud metadata services outside the link-local ranges: AWS's IPv6 endpoint, Alibaba Cloud's,
// Azure's wire server.
var metadataAddrs = [...]string{"fd00:ec2::254", "100.100.100.200", "168.63.129.16"}

// nat64Prefix is the well-known NAT64 prefix, 64:ff9b::/96 (RFC 6052).
var nat64Prefix = [12]byte{0, 0x64, 0xff, 0x9b}

func (a pushAllow) allowed(host string) bool {
	ip := net.ParseIP(host)
	if loopbackHost(host) || localIP(ip) {
		return a.loopback
	}
	if metadataIP(ip) {
		return a.hosts[ip.String()] // named, never through '*'
	}
	return a.any || a.hosts[strings.ToLower(host)]
}

// addrAllowed says whether an address host resolved to may be dialled: this machine's only when loopback
// webhooks are allowed, a metadata address only when host or the address itself is named in the list.
func (a pushAllow) addrAllowed(host string, ip net.IP) error {
	switch {
	case localIP(ip) && !a.loopback:
		return fmt.Errorf("push notification host %q resolves to %s, this machine: not allowed", host, ip)
	case metadataIP(ip) && !a.hosts[strings.ToLower(host)] && !a.hosts[ip.String()]:
		return fmt.Errorf("push notification host %q resolves to %s, a link-local or cloud metadata address: "+
			"not allowed unless named in serve --push-allow", host, ip)
	}
	return nil
}

// check validates a webhook URL: http or https, a host, and a host on the list. Its errors are
// InvalidParams that say how to widen the list.
func (a pushAllow) check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf("push notification URL %q is not an http or https URL with a host", raw))
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); metadataIP(ip) && !a.allowed(h) {
		return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf(
			"push notification host %q is a link-local or cloud metadata address, which '*' does not reach: "+
				"name it to allow it (serve --push-allow %s)", h, h))
	}
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

// dial connects to addr only when its host is allowed: it resolves the host, checks every address (addrAllowed) and
// dials the first allowed one that answers, by its IP, so the address checked is the address connected to.
// "localhost" is dialled as 127.0.0.1, so that a resolver answering otherwise cannot send a notification elsewhere.
func (a pushAllow) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.EqualFold(host, "localhost") && a.loopback:
		host = "127.0.0.1"
	case a.allowed(host):
	default:
		return nil, fmt.Errorf("push notification host %q is not allowed", host)
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		lookup := a.lookup
		if lookup == nil {
			lookup = net.DefaultResolver.LookupIPAddr
		}
		addrs, err := lookup(ctx, host)
		if err != nil {
			return nil, err
		}
		for _, ia := range addrs {
			ips = append(ips, ia.IP)
		}
	}
	var firstErr error
	d := net.Dialer{Control: a.control}
	for _, ip := range ips {
		err := a.addrAllowed(host, ip)
		if err == nil {
			var c net.Conn
			if c, err = d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port)); err == nil {
				return c, nil
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("push notification host %q has no address", host)
	}
	return nil, firstErr
}

// control checks the address a connection is really made to: a loopback or unspecified address only when loopback
// webhooks are allowed (dial has checked it already; this holds for any dial made with the pusher's transport).
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
