package push

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	a2alegacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// maxNotification bounds the body of one push notification.
const maxNotification = 16 << 20

// Receiver is the webhook behind `a2a listen` and `send --push`: it refuses what a web page can send (guard),
// checks the token, decodes each notification (a v1.0 StreamResponse, or the v0.3 Task) and hands it to got, one
// at a time.
type Receiver struct {
	token string
	// got is called for each notification, in the order they are answered; it returns true when the
	// notification ends what the caller waits for.
	got   func(ev a2a.Event) bool
	final chan struct{} // closed after the first notification got reported final
	calls chan struct{} // a one-slot lock: notifications are handed over one at a time
	done  bool
	// Refused, when set, is told of every POST refused before it was read: who sent it (the remote address, as
	// received: the caller sanitizes it before printing) and why ("with an Origin": no network bytes), with the status.
	Refused func(from, why string, status int)
	// loopback is set by Serve when the listener is on loopback only: the Host must then name this machine.
	loopback bool
}

// NewReceiver is a receiver that accepts only notifications carrying token (none: any) and hands them to got.
func NewReceiver(token string, got func(a2a.Event) bool) *Receiver {
	r := &Receiver{token: token, got: got, final: make(chan struct{}), calls: make(chan struct{}, 1)}
	return r
}

// Final is closed after the first notification got reported final.
func (rc *Receiver) Final() <-chan struct{} { return rc.final }

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "push notifications are POSTed", http.StatusMethodNotAllowed)
		return
	}
	if status, why := rc.guard(r); status != 0 {
		http.Error(w, why, status)
		if rc.Refused != nil {
			rc.Refused(r.RemoteAddr, why, status)
		}
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxNotification+1))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > maxNotification {
		http.Error(w, "notification too large", http.StatusRequestEntityTooLarge)
		return
	}
	ev, err := decodeNotification(body)
	if err != nil {
		http.Error(w, "not a push notification: "+err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case rc.calls <- struct{}{}:
	case <-r.Context().Done():
		return
	}
	if !rc.done && rc.got(ev) {
		rc.done = true
		close(rc.final)
	}
	<-rc.calls
	w.WriteHeader(http.StatusOK)
}

// guard applies serve's rules for who may call (package serve's guard) to a webhook, whose senders are agents,
// never web pages: a request with an Origin (every page's POST, no-cors and forms included) is refused (403); on a
// loopback listener a Host that is not a loopback name is refused (421: DNS rebinding); a body that is not JSON
// (text/plain, forms, none: all a page can send without a preflight) is refused (415); then the token, when one
// is set (401). It returns 0 when r may go on, else the status and the reason.
func (rc *Receiver) guard(r *http.Request) (int, string) {
	if rc.loopback && r.Host != "" && !loopbackName(hostOnly(r.Host)) {
		return http.StatusMisdirectedRequest, "with a Host that is not a loopback name: this webhook answers only localhost, 127.0.0.1 and [::1]"
	}
	if r.Header.Get("Origin") != "" {
		return http.StatusForbidden, "with an Origin: push notifications come from agents, not web pages"
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || (mt != "application/json" && mt != "application/a2a+json") {
		return http.StatusUnsupportedMediaType, "with a body that is not application/json"
	}
	if rc.token != "" && !tokenMatches(r.Header, rc.token) {
		why := "with no X-A2A-Notification-Token"
		if r.Header.Get("X-A2A-Notification-Token") != "" || r.Header.Get("A2A-Notification-Token") != "" {
			why = "with a wrong X-A2A-Notification-Token"
		}
		return http.StatusUnauthorized, why
	}
	return 0, ""
}

// loopbackName reports whether host (no port) can only mean this machine: browsers resolve localhost and
// *.localhost to loopback themselves, so no DNS answer can rebind them.
func loopbackName(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostOnly strips the port from a Host header value.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func tokenMatches(h http.Header, want string) bool {
	got := h.Get("X-A2A-Notification-Token")
	if got == "" {
		got = h.Get("A2A-Notification-Token")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// decodeNotification reads a v1.0 notification (a StreamResponse: task, message, statusUpdate or
// artifactUpdate) or a v0.3 one (the Task object itself).
func decodeNotification(b []byte) (a2a.Event, error) {
	var sr a2a.StreamResponse
	errV1 := json.Unmarshal(b, &sr)
	if errV1 == nil && sr.Event != nil {
		return sr.Event, nil
	}
	var probe struct {
		Kind   string          `json:"kind"`
		ID     string          `json:"id"`
		Status json.RawMessage `json:"status"`
	}
	if json.Unmarshal(b, &probe) == nil && probe.ID != "" && len(probe.Status) > 0 && (probe.Kind == "" || probe.Kind == "task") {
		var t a2alegacy.Task
		if err := json.Unmarshal(b, &t); err == nil {
			if task, err := a2av0.ToV1Task(&t); err == nil {
				return task, nil
			}
		}
	}
	if errV1 == nil {
		errV1 = errors.New("no event in it")
	}
	return nil, errV1
}

// Final reports whether ev carries a terminal task state.
func Final(ev a2a.Event) bool {
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		return v.Status.State.Terminal()
	case *a2a.Task:
		return v.Status.State.Terminal()
	}
	return false
}

// Serve listens on host:port and serves rc until ctx ends; ready gets the listener's URL.
func Serve(ctx context.Context, host string, port int, rc *Receiver, ready func(url string)) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		rc.loopback = true
	}
	srv := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	ready(receiverURL(ln.Addr()))
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil {
		srv.Close()
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve webhook: %w", err)
	}
	return nil
}

// receiverURL is a URL an agent on this machine can POST to: a wildcard bind is reached on loopback.
func receiverURL(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String() + "/"
	}
	host := ta.IP.String()
	if ta.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("http://%s:%d/", host, ta.Port)
}
