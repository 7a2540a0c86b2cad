package auth

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestStore(t *testing.T) {
	t.Parallel()
	s := DefaultStore(t.TempDir())
	if e, err := s.Find("https://a.example"); e != nil || err != nil || !s.Missing() {
		t.Fatalf("empty store: Find = %v, %v, Missing %v", e, err, s.Missing())
	}
	for _, e := range []*Entry{{Origin: "https://a.example", Scheme: "z", AccessToken: "1"}, {Origin: "https://a.example", Scheme: "b", AccessToken: "2"}, {Origin: "https://b.example", Scheme: "x", AccessToken: "3"}} {
		if err := s.Put(e); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(s.Path)
	if err != nil || st.Mode().Perm() != 0o600 || s.Missing() {
		t.Fatalf("token file mode %v (%v), want 0600", st.Mode(), err)
	}
	if e, _ := s.Find("https://a.example"); e == nil || e.Scheme != "b" {
		t.Errorf("Find = %+v, want scheme b (first by name)", e)
	}
	if n, err := s.Delete("https://a.example"); n != 2 || err != nil {
		t.Errorf("Delete = %d, %v, want 2", n, err)
	}
	if all, _ := s.List(""); len(all) != 1 || all[0].Origin != "https://b.example" {
		t.Errorf("List after Delete = %+v", all)
	}
	entries, _ := os.ReadDir(filepath.Dir(s.Path))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tokens-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestPlanFromCard(t *testing.T) {
	t.Parallel()
	card := &a2a.AgentCard{
		SecuritySchemes: a2a.NamedSecuritySchemes{
			"cc":     a2a.OAuth2SecurityScheme{Flows: a2a.ClientCredentialsOAuthFlow{TokenURL: "https://as/token", Scopes: map[string]string{"b": "", "a": ""}}},
			"device": a2a.OAuth2SecurityScheme{Flows: a2a.DeviceCodeOAuthFlow{TokenURL: "https://as/token", DeviceAuthorizationURL: "https://as/device"}},
			"key":    a2a.APIKeySecurityScheme{Name: "X-Key", Location: a2a.APIKeySecuritySchemeLocationHeader},
		},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{"cc": {"a"}}},
	}
	cases := []struct {
		flow      Flow
		secret    bool
		scopes    []string
		scheme    string
		wantScope string
		err       string
	}{
		{"", true, nil, "cc", "a", ""},
		{DeviceCode, false, nil, "device", "", ""},
		{ClientCredentials, true, []string{"x", "y"}, "cc", "x y", ""},
		{"", false, nil, "cc", "a", ""},
	}
	for _, c := range cases {
		p, err := PlanFromCard(context.Background(), nil, card, c.flow, c.secret, c.scopes)
		if err != nil {
			t.Errorf("PlanFromCard(%q): %v", c.flow, err)
			continue
		}
		if p.Scheme != c.scheme || strings.Join(p.Scopes, " ") != c.wantScope {
			t.Errorf("PlanFromCard(%q) = scheme %s scopes %v, want %s %q", c.flow, p.Scheme, p.Scopes, c.scheme, c.wantScope)
		}
	}
	if _, err := PlanFromCard(context.Background(), nil, &a2a.AgentCard{}, "", false, nil); err == nil || !strings.Contains(err.Error(), "declares no oauth2") {
		t.Errorf("a card without OAuth: %v", err)
	}
}
