package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestPoolMaxConns: pool_max_conns in a postgres:// URL sizes the replica's pool and is not sent to the server
// (which refuses a setting it does not know); a bad value is refused at Open, the password kept out of the error.
func TestPoolMaxConns(t *testing.T) {
	t.Parallel()
	url := pgURL(t)
	s, ts := open(t, url+"&pool_max_conns=3", Options{})
	if got := s.db.Stats().MaxOpenConnections; got != 3 {
		t.Fatalf("pool of %d connections, want 3", got)
	}
	now := time.Now()
	ts.put(s, &Snapshot{Task: task("t", a2a.TaskStateCompleted, now), Updated: now}, true)
	flush(t, s)
	if d, _ := open(t, url, Options{}); d.db.Stats().MaxOpenConnections != DefaultPool {
		t.Fatalf("default pool of %d connections, want %d", d.db.Stats().MaxOpenConnections, DefaultPool)
	}
	for _, bad := range []string{"0", "x", "1001"} {
		_, err := Open(context.Background(), url+"&pool_max_conns="+bad, Options{Source: ts.source})
		if err == nil || !strings.Contains(err.Error(), "invalid pool_max_conns") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("pool_max_conns=%s: %v", bad, err)
		}
	}
}
