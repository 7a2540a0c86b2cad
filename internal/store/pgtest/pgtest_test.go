package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStopStart checks the server takes connections, refuses them once stopped, and takes them again on the same
// port after Start: the store-down tests rely on it.
func TestStopStart(t *testing.T) {
	s, err := New()
	if err != nil {
		if err == ErrMissing && os.Getenv("CI") != "1" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	defer s.Close()
	u, err := s.NewDB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s.Stop()
	if c, err := pgx.Connect(ctx, u); err == nil {
		c.Close(ctx)
		t.Fatal("connected to a stopped server")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connect after restart: %v", err)
	}
	c.Close(ctx)
}
