package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// expiredClause leaves out finished tasks past the TTL, which retention is about to drop.
func (s *Store) cutoff() int64 {
	if s.opts.TTL <= 0 {
		return 0
	}
	return s.opts.Now().Add(-s.opts.TTL).UnixNano()
}

const taskColumns = `task, push, owner, seq, updated`

func decodeRow(sc interface{ Scan(...any) error }) (*Snapshot, error) {
	var task, push string
	var owner string
	var seq, updated int64
	if err := sc.Scan(&task, &push, &owner, &seq, &updated); err != nil {
		return nil, err
	}
	snap := &Snapshot{Task: &a2a.Task{}, Owner: owner, Seq: seq, Updated: time.Unix(0, updated)}
	if err := json.Unmarshal([]byte(task), snap.Task); err != nil {
		return nil, fmt.Errorf("decode stored task: %w", err)
	}
	if err := json.Unmarshal([]byte(push), &snap.Push); err != nil {
		return nil, fmt.Errorf("decode stored push configs: %w", err)
	}
	return snap, nil
}

// Load reads a task from the store: ErrNotFound when it is not there or past its TTL.
func (s *Store) Load(ctx context.Context, id a2a.TaskID) (*Snapshot, error) {
	row := s.db.QueryRowContext(ctx, s.d.q(`SELECT `+taskColumns+` FROM a2a_tasks WHERE id = ? AND NOT (finished AND updated < ?)`),
		string(id), s.cutoff())
	snap, err := decodeRow(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, s.wrap(fmt.Errorf("read task %s: %w", id, err))
	}
	return snap, nil
}

// Query selects tasks for List: the filters of ListTasks, and the cursor of the page before.
type Query struct {
	ContextID   string
	State       a2a.TaskState // unspecified => any
	StatusAfter *time.Time    // only tasks whose status changed after this
	After       *Cursor       // nil => the first page
	Limit       int
}

// Cursor is the position of the last task of a page: tasks are ordered by Updated, newest first, then by ID
// descending.
type Cursor struct {
	Updated time.Time
	ID      a2a.TaskID
}

// List returns a page of tasks matching q, newest first, and how many match in all.
func (s *Store) List(ctx context.Context, q Query) ([]*Snapshot, int, error) {
	where := []string{`NOT (finished AND updated < ?)`}
	args := []any{s.cutoff()}
	if q.ContextID != "" {
		where = append(where, `context_id = ?`)
		args = append(args, q.ContextID)
	}
	if q.State != a2a.TaskStateUnspecified {
		where = append(where, `state = ?`)
		args = append(args, string(q.State))
	}
	if q.StatusAfter != nil {
		where = append(where, `status_ts > ?`)
		args = append(args, q.StatusAfter.UnixNano())
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.db.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*) FROM a2a_tasks WHERE `+cond), args...).Scan(&total); err != nil {
		return nil, 0, s.wrap(fmt.Errorf("list tasks: %w", err))
	}
	if q.After != nil {
		cond += ` AND (updated < ? OR (updated = ? AND id < ?))`
		n := q.After.Updated.UnixNano()
		args = append(args, n, n, string(q.After.ID))
	}
	args = append(args, q.Limit)
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT `+taskColumns+` FROM a2a_tasks WHERE `+cond+` ORDER BY updated DESC, id DESC LIMIT ?`), args...)
	if err != nil {
		return nil, 0, s.wrap(fmt.Errorf("list tasks: %w", err))
	}
	defer rows.Close()
	var out []*Snapshot
	for rows.Next() {
		snap, err := decodeRow(rows)
		if err != nil {
			return nil, 0, s.wrap(fmt.Errorf("list tasks: %w", err))
		}
		out = append(out, snap)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, s.wrap(fmt.Errorf("list tasks: %w", err))
	}
	return out, total, nil
}

// Events returns the stored events of a task numbered after seq, in order.
func (s *Store) Events(ctx context.Context, id a2a.TaskID, after int64) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT events FROM a2a_events WHERE task_id = ? AND seq_to > ? ORDER BY seq_to`), string(id), after)
	if err != nil {
		return nil, s.wrap(fmt.Errorf("read events of task %s: %w", id, err))
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, s.wrap(fmt.Errorf("read events of task %s: %w", id, err))
		}
		var batch struct {
			From   int64                `json:"from"`
			Events []a2a.StreamResponse `json:"events"`
		}
		if err := json.Unmarshal([]byte(data), &batch); err != nil {
			return nil, s.wrap(fmt.Errorf("decode events of task %s: %w", id, err))
		}
		for i, ev := range batch.Events {
			if seq := batch.From + int64(i); seq > after {
				out = append(out, Event{Seq: seq, Event: ev.Event})
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(fmt.Errorf("read events of task %s: %w", id, err))
	}
	return out, nil
}

// RequestCancel asks the replica running a task to cancel it; that replica gets OnCancel within a second.
func (s *Store) RequestCancel(ctx context.Context, id a2a.TaskID) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(fmt.Errorf("request cancel: %w", err))
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, Rollback is a no-op
	if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO a2a_cancels (task_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING`),
		string(id), s.opts.Now().UnixNano()); err != nil {
		return s.wrap(fmt.Errorf("request cancel: %w", err))
	}
	if s.d.shared {
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify('a2a_cancel', $1)`, string(id)); err != nil {
			return s.wrap(fmt.Errorf("request cancel: %w", err))
		}
	}
	if err := tx.Commit(); err != nil {
		return s.wrap(fmt.Errorf("request cancel: %w", err))
	}
	return nil
}
