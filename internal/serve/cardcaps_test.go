package serve

import "testing"

// TestDeclaredCaps: a card declares a capability only where it sets it, by its v1.0 or v0.3 name.
func TestDeclaredCaps(t *testing.T) {
	str := func(b *bool) string {
		if b == nil {
			return "unset"
		}
		if *b {
			return "true"
		}
		return "false"
	}
	for _, tc := range []struct {
		card                      string
		streaming, push, extended string
	}{
		{`{"name":"a"}`, "unset", "unset", "unset"},
		{`{"capabilities":{}}`, "unset", "unset", "unset"},
		{`{"capabilities":{"streaming":false,"pushNotifications":true,"extendedAgentCard":true}}`, "false", "true", "true"},
		{`{"capabilities":{"streaming":true},"supportsAuthenticatedExtendedCard":false}`, "true", "unset", "false"},
		{`not json`, "unset", "unset", "unset"},
	} {
		c := DeclaredCaps([]byte(tc.card))
		if got := [3]string{str(c.Streaming), str(c.PushNotifications), str(c.ExtendedAgentCard)}; got != [3]string{tc.streaming, tc.push, tc.extended} {
			t.Errorf("DeclaredCaps(%s) = %v, want %v", tc.card, got, [3]string{tc.streaming, tc.push, tc.extended})
		}
	}
}
