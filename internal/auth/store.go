package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Entry is one agent's token: for an origin and one of its card's security schemes.
type Entry struct {
	Origin   string   `json:"origin"`
	Scheme   string   `json:"scheme"`
	Flow     Flow     `json:"flow"`
	TokenURL string   `json:"tokenUrl"`
	ClientID string   `json:"clientId"`
	Scopes   []string `json:"scopes,omitempty"`
	// ClientSecret is kept for the client-credentials flow, whose only way to a new token is asking again.
	ClientSecret string    `json:"clientSecret,omitempty"`
	AccessToken  string    `json:"accessToken"`
	TokenType    string    `json:"tokenType,omitempty"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// Store is the token file. Every write replaces it whole, mode 0600, through a file renamed over it.
type Store struct{ Path string }

// DefaultStore is the file under the user's config directory (dir: os.UserConfigDir's answer).
func DefaultStore(dir string) *Store { return &Store{Path: filepath.Join(dir, "a2a", "tokens.json")} }

func key(origin, scheme string) string { return origin + " " + scheme }

// Load reads every entry; a missing file is an empty store.
func (s *Store) Load() (map[string]*Entry, error) {
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*Entry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	m := map[string]*Entry{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("token store %s: %w", s.Path, err)
	}
	return m, nil
}

func (s *Store) save(m map[string]*Entry) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), ".tokens-*")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone after the rename; removed on failure
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return os.Rename(tmp.Name(), s.Path)
}

// Put stores e, replacing the entry of its origin and scheme.
func (s *Store) Put(e *Entry) error {
	m, err := s.Load()
	if err != nil {
		return err
	}
	m[key(e.Origin, e.Scheme)] = e
	return s.save(m)
}

// Find returns the entry of an origin (the first scheme by name when there are several); nil when none.
func (s *Store) Find(origin string) (*Entry, error) {
	list, err := s.List(origin)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

// List returns the entries of origin ("" for all), sorted by origin and scheme.
func (s *Store) List(origin string) ([]*Entry, error) {
	m, err := s.Load()
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for _, e := range m {
		if origin == "" || e.Origin == origin {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i].Origin, out[i].Scheme) < key(out[j].Origin, out[j].Scheme) })
	return out, nil
}

// Delete removes the entries of origin and says how many there were.
func (s *Store) Delete(origin string) (int, error) {
	m, err := s.Load()
	if err != nil {
		return 0, err
	}
	n := 0
	for k, e := range m {
		if e.Origin == origin {
			delete(m, k)
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	return n, s.save(m)
}
