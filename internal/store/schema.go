package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib"       // the postgres:// driver
	_ "github.com/ncruces/go-sqlite3/driver" // the sqlite: driver: SQLite translated to Go, no cgo, a cheap init
)

// SchemaVersion is the version of the tables this code reads and writes. A store with a newer version was made by
// a newer a2a and is refused, never changed.
const SchemaVersion = 1

// dialect is what differs between SQLite and PostgreSQL in the queries.
type dialect struct {
	shared bool // PostgreSQL: several replicas, LISTEN/NOTIFY
}

// q turns the ? placeholders of a query into PostgreSQL's $n.
func (d dialect) q(query string) string {
	if !d.shared {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// DefaultPool is how many connections a replica's pool holds at most (besides the one that listens for
// notifications) unless the URL's pool_max_conns says otherwise.
const DefaultPool = 16

// poolSize takes pool_max_conns (pgxpool's name for it) out of a postgres:// URL, where the driver would send it
// to the server as a setting it does not know, and returns the URL without it and the size (DefaultPool without).
func poolSize(raw string) (string, int, error) {
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return raw, DefaultPool, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", 0, redactParseError(err, raw)
	}
	q := u.Query()
	if !q.Has("pool_max_conns") {
		return raw, DefaultPool, nil
	}
	v := q.Get("pool_max_conns")
	n, err := strconv.Atoi(v)
	if err != nil || n < 2 || n > 1000 {
		return "", 0, fmt.Errorf("invalid pool_max_conns=%q: want 2 to 1000 connections", v)
	}
	q.Del("pool_max_conns")
	u.RawQuery = q.Encode()
	return u.String(), n, nil
}

func openDB(raw string, pool int) (dialect, *sql.DB, error) {
	if path, ok := strings.CutPrefix(raw, "sqlite:"); ok {
		path = strings.TrimPrefix(path, "//")
		// The file holds every task's messages: readable by its owner only. SQLite creates its -wal and -shm files
		// with the mode of the database file, so creating that one 0600 covers them too. An existing file keeps
		// the mode its owner gave it.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return dialect{}, nil, err
		}
		f.Close()
		// WAL: readers do not wait for the writer; synchronous=NORMAL: a commit is durable across a crash of the
		// process (not of the machine) without an fsync per commit; exclusive locking: a second serve on the same
		// file is refused instead of failing this one's tasks at its start. The driver applies the pragmas in
		// order: the busy timeout and the locking mode first (so WAL needs no shared memory index), as it asks.
		// modeof: the driver creates the -wal file with the umask's mode unless told whose mode to copy.
		dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?modeof=" + uriEscape(path) +
			"&_pragma=busy_timeout(2000)&_pragma=locking_mode(EXCLUSIVE)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
		db, err := sql.Open("sqlite3", dsn)
		if err != nil {
			return dialect{}, nil, err
		}
		db.SetMaxOpenConns(1) // the exclusive lock belongs to one connection
		return dialect{}, db, nil
	}
	db, err := sql.Open("pgx", raw)
	if err != nil {
		return dialect{}, nil, err
	}
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	return dialect{shared: true}, db, nil
}

// uriEscape escapes s for a parameter of a SQLite URI, which decodes %HH and nothing else (not '+').
func uriEscape(s string) string {
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

var schema = []string{
	`CREATE TABLE IF NOT EXISTS a2a_tasks (
		id TEXT PRIMARY KEY,
		context_id TEXT NOT NULL,
		state TEXT NOT NULL,
		status_ts BIGINT,
		updated BIGINT NOT NULL,
		owner TEXT NOT NULL DEFAULT '',
		finished BOOLEAN NOT NULL,
		seq BIGINT NOT NULL,
		task TEXT NOT NULL,
		push TEXT NOT NULL DEFAULT '[]'
	)`,
	`CREATE INDEX IF NOT EXISTS a2a_tasks_updated ON a2a_tasks (updated, id)`,
	`CREATE INDEX IF NOT EXISTS a2a_tasks_owner ON a2a_tasks (owner)`,
	`CREATE TABLE IF NOT EXISTS a2a_events (
		task_id TEXT NOT NULL,
		seq_to BIGINT NOT NULL,
		events TEXT NOT NULL,
		PRIMARY KEY (task_id, seq_to)
	)`,
	`CREATE TABLE IF NOT EXISTS a2a_replicas (id TEXT PRIMARY KEY, lease_until BIGINT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS a2a_cancels (task_id TEXT PRIMARY KEY, at BIGINT NOT NULL)`,
}

// migrate creates the schema on first use and checks its version. On PostgreSQL, replicas starting together
// take turns through an advisory lock.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, Rollback is a no-op
	if s.d.shared {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(4242424242)`); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS a2a_schema (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	var v int
	err = tx.QueryRowContext(ctx, `SELECT version FROM a2a_schema`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		for _, stmt := range schema {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO a2a_schema (version) VALUES (?)`), SchemaVersion); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	case err != nil:
		return fmt.Errorf("read schema version: %w", err)
	case v > SchemaVersion:
		return fmt.Errorf("schema version %d is newer than this a2a knows (%d): use a newer a2a, or another store", v, SchemaVersion)
	}
	return tx.Commit()
}
