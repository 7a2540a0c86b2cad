package client

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestRefusedForLimit: the limit a refusal names in its ErrorInfo metadata is read from an a2a.Error (metadata as
// a2a-go sets it, or as JSON decodes it) and from a JSON-RPC error's data, through wrapping; other errors name none.
func TestRefusedForLimit(t *testing.T) {
	set := a2a.NewError(a2a.ErrUnsupportedOperation, "busy").WithErrorInfoMeta(map[string]string{LimitKey: "max-subscriptions"})
	var decoded a2a.Error
	decoded.Err = a2a.ErrUnsupportedOperation
	decoded.WithErrorInfoMeta(nil)
	decoded.TypedDetails[0].Value["metadata"] = map[string]any{LimitKey: "max-subscriptions-per-task"}
	data := &DataError{Err: a2a.NewError(a2a.ErrUnsupportedOperation, "busy"), Data: json.RawMessage(
		`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","metadata":{"a2a-cli/limit":"max-subscriptions"}}]`)}
	other := a2a.NewError(a2a.ErrUnsupportedOperation, "no").WithErrorInfoMeta(map[string]string{"timestamp": "now"})
	for _, c := range []struct {
		err  error
		want string
	}{
		{set, "max-subscriptions"},
		{fmt.Errorf("subscribe: %w", &url.Error{Op: "Post", URL: "u", Err: set}), "max-subscriptions"},
		{&decoded, "max-subscriptions-per-task"},
		{data, "max-subscriptions"},
		{other, ""},
		{a2a.ErrUnsupportedOperation, ""},
		{&DataError{Err: a2a.ErrInternalError, Data: json.RawMessage(`{"x":1}`)}, ""},
		{nil, ""},
	} {
		if got := RefusedForLimit(c.err); got != c.want {
			t.Errorf("RefusedForLimit(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
