package cli

import "testing"

// TestCredentialServiceParams: a credential given as a service parameter counts in either spelling, the seed's
// key=value and the a2a-cli specification's key:value; other parameters do not.
func TestCredentialServiceParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		param string
		want  bool
	}{
		{"Authorization=Bearer x", true},
		{"Authorization:Bearer x", true},
		{"x-upstream-token:abc", true},
		{"x-trace-id:abc=def", false},
		{"x-trace-id=abc:def", false},
	} {
		o := &globalOptions{}
		o.SvcParams = []string{tc.param}
		if got := o.hasCredentials(); got != tc.want {
			t.Errorf("hasCredentials(--svc-param %s) = %v, want %v", tc.param, got, tc.want)
		}
		if got := o.sentCredentials(nil); got != tc.want {
			t.Errorf("sentCredentials(--svc-param %s) = %v, want %v", tc.param, got, tc.want)
		}
	}
}
