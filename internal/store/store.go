// Package store keeps serve's tasks outside the process: an embedded SQLite file (sqlite:PATH) or a PostgreSQL
// database shared by several replicas (postgres://...). It owns the schema, a write-behind batching writer, the
// queries that answer for tasks not in a replica's memory, the leases that tell a running replica from a dead one,
// and the notifications (cancel requests, new events) that travel between replicas through the database.
//
// It knows a2a-go's types but nothing of serve: serve keeps its live tasks in memory and tells the store which
// ones changed (Touch, Append); the store pulls their snapshots through the Source it was given, when it writes.
// It must not import serve.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/ncruces/go-sqlite3"

	"github.com/a2acli/a2a/internal/redact"
)

// DefaultLease is how long a replica's lease lasts without renewal before other replicas fail its running tasks.
const DefaultLease = 60 * time.Second

// ErrNotFound is returned by Load for a task the store does not hold (or no longer holds: retention).
var ErrNotFound = errors.New("task not in store")

// ErrLost is returned by FlushTask for a task this replica ran that another replica failed meanwhile (it swept the
// task after this replica's lease expired: a pause longer than the lease). Nothing of it is written from here again:
// the store keeps the other replica's end, which is the one to tell (Load reads it).
var ErrLost = errors.New("task failed by another replica while this one's lease had expired")

// Snapshot is a task as the store keeps it.
type Snapshot struct {
	Task    *a2a.Task
	Updated time.Time // last change: the order of ListTasks
	Owner   string    // the replica running a turn of the task; "" when no turn is running
	Seq     int64     // the number of the last event applied to Task (see Append)
	Push    []Push    // push notification configs
}

// Finished reports whether the task is done: no turn running and a terminal state.
func (s *Snapshot) Finished() bool { return s.Owner == "" && s.Task.Status.State.Terminal() }

// Push is a stored push notification config; V03 when it was set over a v0.3 interface.
type Push struct {
	Config *a2a.PushConfig `json:"config"`
	V03    bool            `json:"v03,omitempty"`
}

// Event is one event of a running task, numbered from the task's snapshot Seq.
type Event struct {
	Seq   int64
	Event a2a.Event
	size  int64 // EventSize, counted in the writer's backlog
}

// Source returns the current snapshot of a task the store was told about (Touch); false when the task is gone. It
// runs on the writer's goroutine, never with a store lock held.
type Source func(id a2a.TaskID) (*Snapshot, bool)

// Options configure Open.
type Options struct {
	Source   Source
	Lease    time.Duration    // 0 => DefaultLease
	MaxTasks int              // finished tasks kept; 0 => no bound
	TTL      time.Duration    // finished tasks older than this are dropped; 0 => kept
	Now      func() time.Time // nil => time.Now
	// Interval is how long a change that is not urgent (an appended chunk) may wait before it is written;
	// 0 => 100ms.
	Interval time.Duration
	// MaxBacklog bounds the estimated bytes of events waiting to be written while the store is away (see WaitRoom);
	// 0 => DefaultMaxBacklog.
	MaxBacklog int64
	// OnLost is called (on its own goroutine) when a task this replica runs was failed by another replica meanwhile
	// (this one paused longer than its lease): its turn should stop, its end is not written.
	OnLost func(id a2a.TaskID)
	// OnCancel is called (on its own goroutine) when a cancel request arrives for a task this replica runs.
	OnCancel func(id a2a.TaskID)
	// Logf reports what happens in the background (a store that went away, came back); nil => discarded.
	Logf func(format string, args ...any)
}

// Store is an open store. Its methods are safe for concurrent use.
type Store struct {
	db      *sql.DB
	d       dialect
	name    string   // the URL with its password redacted
	secrets []string // the passwords (the URL's, the driver's environment variables), scrubbed from every error
	rawURL  string
	replica string
	opts    Options
	w       writer
	watch   watchers

	maint   chan struct{} // kicks the maintenance loop (cancel requests)
	closing chan struct{}
	wg      sync.WaitGroup
	health  health

	closeOnce  sync.Once
	upsertStmt *sql.Stmt // prepared once: the writer's most frequent statement
}

// Open connects to the store named by rawURL ("sqlite:PATH" or "postgres://..."), creates or checks its schema,
// and starts the writer and the lease keeper. A SQLite store fails the tasks that were running when it was last
// closed; an error names the store with its password redacted.
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	s := &Store{rawURL: rawURL, opts: opts, maint: make(chan struct{}, 1), closing: make(chan struct{})}
	if s.opts.Lease <= 0 {
		s.opts.Lease = DefaultLease
	}
	if s.opts.Now == nil {
		s.opts.Now = time.Now
	}
	if s.opts.Interval <= 0 {
		s.opts.Interval = 100 * time.Millisecond
	}
	if s.opts.MaxBacklog <= 0 {
		s.opts.MaxBacklog = DefaultMaxBacklog
	}
	if s.opts.Logf == nil {
		s.opts.Logf = func(string, ...any) {}
	}
	s.replica = newReplicaID()
	var err error
	s.name, s.secrets, err = parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	conn, pool, err := poolSize(rawURL)
	if err != nil {
		return nil, s.wrap(err)
	}
	s.rawURL = conn
	s.d, s.db, err = openDB(conn, pool)
	if err != nil {
		return nil, s.wrap(err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		if !s.d.shared && errors.Is(err, sqlite3.BUSY) {
			// The driver reports it as "invalid _pragma: database is locked": the pragma is fine, the file is not ours.
			err = errors.New("database is locked: another process (a serve on the same file?) has it open")
		}
		return nil, s.wrap(err)
	}
	if !s.d.shared {
		msg := "the server stopped while the task was running (found at restart)"
		if err := s.failOrphans(ctx, "", msg); err != nil {
			s.db.Close()
			return nil, s.wrap(err)
		}
	} else if err := s.renew(ctx); err != nil {
		s.db.Close()
		return nil, s.wrap(err)
	}
	if s.upsertStmt, err = s.db.PrepareContext(ctx, s.d.q(upsertTask)); err != nil {
		s.db.Close()
		return nil, s.wrap(err)
	}
	s.w.init()
	s.wg.Add(2)
	go s.writeLoop()
	go s.maintain()
	if s.d.shared {
		s.wg.Add(1)
		go s.listen()
	}
	return s, nil
}

// Name is the store's URL with its password redacted.
func (s *Store) Name() string { return s.name }

// Shared reports whether other replicas may use the store at the same time (PostgreSQL).
func (s *Store) Shared() bool { return s.d.shared }

// Replica is this process's replica ID, the owner of the tasks it runs.
func (s *Store) Replica() string { return s.replica }

// Close writes what is pending, gives up the lease and closes the database. Tasks still running are left to the
// next start (SQLite) or to the other replicas (PostgreSQL).
func (s *Store) Close() error {
	first := false
	s.closeOnce.Do(func() { first = true })
	if !first {
		return nil
	}
	close(s.closing)
	s.wg.Wait()
	if s.d.shared {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		// A replica that stops cleanly has no running task left; dropping the lease saves the others a sweep.
		s.db.ExecContext(ctx, s.d.q(`DELETE FROM a2a_replicas WHERE id = ?`), s.replica) //nolint:errcheck // best effort: the lease expires anyway
	}
	return s.db.Close()
}

// Error is a store failure as callers see it: it names the store (password redacted) and never carries the
// password.
type Error struct {
	Store string
	Err   error
	msg   string
}

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.Err }

func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	return &Error{Store: s.name, Err: err, msg: s.scrub(fmt.Sprintf("task store %s: %v", s.name, err))}
}

// scrub removes the store's passwords from msg, as written and as a URL would escape them.
func (s *Store) scrub(msg string) string {
	for _, secret := range s.secrets {
		for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
			msg = strings.ReplaceAll(msg, form, "xxxxx")
		}
	}
	return msg
}

// parseURL checks a store URL and returns it with its secrets redacted, and the secrets to scrub from errors: the
// URL's (its password, a password= or sslpassword= in its query) and those the PostgreSQL driver reads from the
// environment on its own.
func parseURL(raw string) (name string, secrets []string, err error) {
	switch {
	case strings.HasPrefix(raw, "sqlite:"):
		if strings.TrimPrefix(raw, "sqlite:") == "" {
			return "", nil, errors.New("invalid store sqlite: want sqlite:PATH")
		}
		return raw, nil, nil
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		name, secrets = redact.Conn(raw)
		if _, err := url.Parse(raw); err != nil {
			msg := redactParseError(err, raw).Error()
			for _, secret := range secrets {
				msg = strings.ReplaceAll(msg, secret, "xxxxx")
			}
			return "", nil, fmt.Errorf("invalid store URL %s: %s", name, msg)
		}
		// The driver (pgx) reads these itself, in this process: what it may quote in an error is scrubbed too.
		for _, v := range []string{"PGPASSWORD", "PGSSLPASSWORD"} {
			if pw := os.Getenv(v); pw != "" {
				secrets = append(secrets, pw)
			}
		}
		return name, secrets, nil
	}
	shown, _ := redact.Conn(raw)
	return "", nil, fmt.Errorf("invalid store %q: want memory, sqlite:PATH or postgres://...", shown)
}

// redactParseError drops the URL (and so any password) url.Parse quotes in its error.
func redactParseError(err error, raw string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return errors.New(strings.ReplaceAll(err.Error(), raw, "URL"))
}

func newReplicaID() string {
	host, _ := os.Hostname() // "" on error: the ID stays unique through the random part
	var b [4]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	if host == "" {
		host = "replica"
	}
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// health remembers whether the last write reached the store, so calls can fail fast while it is away.
type health struct {
	mu  sync.Mutex
	err error
}

func (h *health) set(err error) (changed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed = (h.err == nil) != (err == nil)
	h.err = err
	return changed
}

// Err is nil while the store is reachable, else the error of the last write, naming the store.
func (s *Store) Err() error {
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	return s.health.err
}
