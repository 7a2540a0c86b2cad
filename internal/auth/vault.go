package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/zalando/go-keyring"
)

// Vault holds an entry's secrets (access token, refresh token, client secret) outside the token file: the OS
// keyring. Keys are an entry's origin and scheme.
type Vault interface {
	Set(key, secret string) error
	Get(key string) (string, error) // ErrNotInVault when there is no such secret
	Delete(key string) error        // no error when there was none
	String() string                 // what it is, for messages ("the OS keyring")
}

// ErrNotInVault is a secret the vault does not hold.
var ErrNotInVault = errors.New("not in the keyring")

// KeyringService is the service name a2a's secrets have in the OS keyring.
const KeyringService = "a2a"

// keyringTimeout bounds one keyring operation: a Secret Service that waits for a prompt nobody answers (a locked
// collection on a machine without a desktop) must not hold a command forever.
const keyringTimeout = 5 * time.Second

// OSKeyring is the OS keyring through github.com/zalando/go-keyring: the Secret Service over the D-Bus session bus
// on Linux and the BSDs, the login Keychain on macOS (through /usr/bin/security, the secret written to its stdin,
// never in its arguments or environment), the Credential Manager on Windows. Nothing happens until it is used.
func OSKeyring() Vault { return osKeyring{} }

type osKeyring struct{}

func (osKeyring) String() string { return "the OS keyring" }

func (osKeyring) Set(key, secret string) error {
	_, err := bounded(func() (string, error) { return "", keyring.Set(KeyringService, key, secret) })
	return err
}

func (osKeyring) Get(key string) (string, error) {
	s, err := bounded(func() (string, error) { return keyring.Get(KeyringService, key) })
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNotInVault
	}
	return s, err
}

func (osKeyring) Delete(key string) error {
	_, err := bounded(func() (string, error) { return "", keyring.Delete(KeyringService, key) })
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// bounded runs a keyring call for at most keyringTimeout. A call past it is left to finish on its own (the process
// ends soon after); its answer is dropped.
func bounded(fn func() (string, error)) (string, error) {
	type answer struct {
		s   string
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		s, err := fn()
		ch <- answer{s, err}
	}()
	t := time.NewTimer(keyringTimeout)
	defer t.Stop()
	select {
	case a := <-ch:
		if a.err != nil && !errors.Is(a.err, keyring.ErrNotFound) {
			return "", fmt.Errorf("OS keyring: %w", a.err)
		}
		return a.s, a.err
	case <-t.C:
		return "", fmt.Errorf("OS keyring: no answer within %s", keyringTimeout)
	}
}
