package tasks

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestPushAllowMetadata: '*' reaches no link-local or cloud metadata address, in any of its forms; naming one does.
func TestPushAllowMetadata(t *testing.T) {
	t.Parallel()
	star := newPushAllow([]string{"*"}, false)
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://169.254.170.2/v2/credentials",
		"http://[fd00:ec2::254]/latest",
		"http://[FD00:EC2:0::254]/latest",
		"http://[fe80::1]/",
		"http://[::ffff:169.254.169.254]/",
		"http://[64:ff9b::a9fe:a9fe]/",
		"http://100.100.100.200/latest",
		"http://168.63.129.16/machine",
	} {
		err := star.check(u)
		if err == nil || !strings.Contains(err.Error(), "metadata") || !strings.Contains(err.Error(), "--push-allow") {
			t.Errorf("check(%q) with '*' = %v, want a refusal naming --push-allow", u, err)
		}
	}
	if err := star.check("http://8.8.8.8/hook"); err != nil {
		t.Errorf("check of a public address with '*' = %v", err)
	}
	named := newPushAllow([]string{"*", "169.254.169.254", "[fd00:ec2::254]", "meta.internal"}, false)
	for _, u := range []string{"http://169.254.169.254/x", "http://[fd00:ec2:0::254]/x"} {
		if err := named.check(u); err != nil {
			t.Errorf("check(%q) named = %v", u, err)
		}
	}
	if err := named.addrAllowed("meta.internal", net.ParseIP("169.254.169.254")); err != nil {
		t.Errorf("a named host resolving to a metadata address = %v, want allowed", err)
	}
	if err := named.addrAllowed("other.example", net.ParseIP("169.254.10.10")); err == nil {
		t.Error("an unnamed host resolving to a link-local address was allowed")
	}
}

// TestPushDialChecksEachResolution: the pusher's dial resolves the webhook's name at every connection and dials the
// address it checked. A name that first resolves to a real listener, then (rebinding) to the metadata address, is
// delivered to once and then refused before any connection is made.
func TestPushDialChecksEachResolution(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(hook.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(hook.URL, "http://"))
	a := newPushAllow([]string{"*"}, false)
	var lookups atomic.Int32
	a.lookup = func(_ context.Context, host string) ([]net.IPAddr, error) {
		if host != "rebind.test" {
			t.Errorf("looked up %q", host)
		}
		if lookups.Add(1) == 1 {
			return []net.IPAddr{{IP: net.ParseIP("127.0.0.1")}}, nil
		}
		return []net.IPAddr{{IP: net.ParseIP("169.254.169.254")}, {IP: net.ParseIP("fd00:ec2::254")}}, nil
	}
	c := &http.Client{Transport: &http.Transport{DialContext: a.dial, DisableKeepAlives: true}}
	url := "http://rebind.test:" + port + "/hook"
	resp, err := c.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("first delivery: %v", err)
	}
	resp.Body.Close()
	_, err = c.Post(url, "application/json", strings.NewReader("{}"))
	if err == nil || !strings.Contains(err.Error(), "169.254.169.254, a link-local or cloud metadata address") {
		t.Errorf("after rebinding: %v, want the metadata address refused", err)
	}
	if n, l := hits.Load(), lookups.Load(); n != 1 || l != 2 {
		t.Errorf("the listener got %d requests over %d lookups, want 1 over 2", n, l)
	}
}
