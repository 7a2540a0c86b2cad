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
	// Keyring: the secrets (access token, refresh token, client secret) are in the store's Vault, not in the file.
	Keyring bool `json:"keyring,omitempty"`
	// Renewable: the entry has what renews its token (a refresh token, or a client-credentials secret), wherever
	// its secrets are; `auth status` says so without reading them.
	Renewable bool `json:"renewable,omitempty"`
}

// secrets are what of an entry goes to the vault.
type secrets struct {
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
}

// Store is the token file and, for entries whose secrets are kept there, the OS keyring (Vault). Every write
// replaces the file whole, mode 0600, through a file renamed over it. Vault nil: no keyring (an entry whose
// secrets are in one cannot be read).
type Store struct {
	Path  string
	Vault Vault
}

// DefaultStore is the file under the user's config directory (dir: os.UserConfigDir's answer).
func DefaultStore(dir string) *Store { return &Store{Path: filepath.Join(dir, "a2a", "tokens.json")} }

func key(origin, scheme string) string { return origin + " " + scheme }

// Missing reports whether the token file does not exist, so that no origin has a token: one stat, where Load
// would read and parse the file.
func (s *Store) Missing() bool {
	_, err := os.Stat(s.Path)
	return errors.Is(err, fs.ErrNotExist)
}

// Load reads every entry as the file has it (no secrets of a keyring entry); a missing file is an empty store.
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

// Put stores e, replacing the entry of its origin and scheme: its secrets in the Vault when e.Keyring (an error
// when the vault cannot take them: the caller may store the entry in the file instead), else in the file.
func (s *Store) Put(e *Entry) error {
	m, err := s.Load()
	if err != nil {
		return err
	}
	k := key(e.Origin, e.Scheme)
	stored := *e
	stored.Renewable = e.RefreshToken != "" || (e.Flow == ClientCredentials && e.ClientSecret != "")
	if e.Keyring {
		if s.Vault == nil {
			return errors.New("token store: no OS keyring")
		}
		b, err := json.Marshal(secrets{AccessToken: e.AccessToken, RefreshToken: e.RefreshToken, ClientSecret: e.ClientSecret})
		if err != nil {
			return err
		}
		if err := s.Vault.Set(k, string(b)); err != nil {
			return err
		}
		stored.AccessToken, stored.RefreshToken, stored.ClientSecret = "", "", ""
	} else if old := m[k]; old != nil && old.Keyring && s.Vault != nil {
		s.Vault.Delete(k) //nolint:errcheck // the entry moves to the file; a stale copy in the keyring is harmless
	}
	m[k] = &stored
	return s.save(m)
}

// Find returns the entry of an origin (the first scheme by name when there are several) with its secrets, read
// from the Vault for a keyring entry; nil when none.
func (s *Store) Find(origin string) (*Entry, error) {
	list, err := s.List(origin)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	e := list[0]
	if !e.Keyring {
		return e, nil
	}
	if s.Vault == nil {
		return nil, &VaultError{Origin: origin, Err: errors.New("the OS keyring cannot be reached here")}
	}
	raw, err := s.Vault.Get(key(e.Origin, e.Scheme))
	if err != nil {
		return nil, &VaultError{Origin: origin, Err: err}
	}
	var sec secrets
	if err := json.Unmarshal([]byte(raw), &sec); err != nil {
		return nil, fmt.Errorf("the token of %s in %s is not a2a's: %w", origin, s.Vault, err)
	}
	e.AccessToken, e.RefreshToken, e.ClientSecret = sec.AccessToken, sec.RefreshToken, sec.ClientSecret
	return e, nil
}

// List returns the entries of origin ("" for all), sorted by origin and scheme, as the file has them: the secrets
// of a keyring entry are not read.
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
	var vaultErr error
	for k, e := range m {
		if e.Origin == origin {
			delete(m, k)
			n++
			switch {
			case e.Keyring && s.Vault == nil:
				vaultErr = errors.New("the OS keyring cannot be reached here")
			case e.Keyring:
				if err := s.Vault.Delete(k); err != nil {
					vaultErr = err
				}
			}
		}
	}
	if n == 0 {
		return 0, nil
	}
	if err := s.save(m); err != nil {
		return n, err
	}
	if vaultErr != nil {
		return n, fmt.Errorf("the token of %s stays in %s: %w", origin, s.Vault, vaultErr)
	}
	return n, nil
}

// VaultError is a stored token whose secrets are in the OS keyring and cannot be read from it.
type VaultError struct {
	Origin string
	Err    error
}

func (e *VaultError) Error() string {
	return fmt.Sprintf("the token of %s is in the OS keyring: %v", e.Origin, e.Err)
}

func (e *VaultError) Unwrap() error { return e.Err }
