// Package push receives push notifications: the webhook behind `a2a listen` and `send --push` (Receiver, Serve).
// It refuses what a web page can send (an Origin, a rebinding Host, a body that is not JSON: serve's rules), checks
// the notification token, decodes each notification (a v1.0 StreamResponse or a v0.3 Task) and hands
// the events to its caller one at a time.
//
// It depends on the standard library and a2a-go's types only: it must not import cobra, internal/output or
// internal/cli (the caller prints what it receives).
package push
