package servecmd

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// checkStore checks --store, --lease and --store-backlog before anything starts: the store itself is opened (and a
// bad URL reported, password redacted) by serve.Run.
func checkStore(store string, lease time.Duration, leaseSet bool, backlog int64, backlogSet bool) error {
	shared := strings.HasPrefix(store, "postgres://") || strings.HasPrefix(store, "postgresql://")
	switch {
	case store == "memory" || store == "" || strings.HasPrefix(store, "sqlite:") || shared:
	default:
		return fmt.Errorf("invalid --store: want memory, sqlite:PATH or postgres://...")
	}
	if lease <= 0 {
		return fmt.Errorf("invalid --lease %s: want a positive duration", lease)
	}
	if leaseSet && !shared {
		return errors.New("--lease goes with a postgres:// --store")
	}
	if backlog < 64<<10 {
		return fmt.Errorf("invalid --store-backlog %d: want at least 65536 bytes", backlog)
	}
	if backlogSet && !shared {
		return errors.New("--store-backlog goes with a postgres:// --store")
	}
	return nil
}
