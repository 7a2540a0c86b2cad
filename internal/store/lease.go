package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Leases: each replica of a shared store has a row in a2a_replicas that it renews every Lease/3. A task's owner
// column names the replica running it; when a replica's lease has expired, any other replica fails its running
// tasks, saying the replica stopped. A SQLite store has one replica: at Open, every task it finds running was
// left by a process that stopped.

func (s *Store) renew(ctx context.Context) error {
	until := s.opts.Now().Add(s.opts.Lease).UnixNano()
	_, err := s.db.ExecContext(ctx, s.d.q(`INSERT INTO a2a_replicas (id, lease_until) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until`), s.replica, until)
	if err != nil {
		return fmt.Errorf("renew lease: %w", err)
	}
	return nil
}

// tick is how often the maintenance loop runs: lease renewal, the sweep, cancel requests and retention.
func (s *Store) tick() time.Duration {
	return min(s.opts.Lease/3, 500*time.Millisecond)
}

func (s *Store) maintain() {
	defer s.wg.Done()
	t := time.NewTicker(s.tick())
	defer t.Stop()
	lastRenew := s.opts.Now()
	// After the store was away, others may have missed renewals too: sweep only once they had a full lease to
	// renew, or live replicas would lose their tasks.
	sweepFrom := s.opts.Now()
	for {
		select {
		case <-s.closing:
			return
		case <-s.maint:
			s.cancels()
			continue
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.Lease)
		now := s.opts.Now()
		if s.d.shared && now.Sub(lastRenew) >= s.opts.Lease/3 {
			if err := s.renew(ctx); err == nil {
				if now.Sub(lastRenew) > s.opts.Lease {
					sweepFrom = now.Add(s.opts.Lease)
				}
				lastRenew = now
			}
		}
		if s.d.shared && !now.Before(sweepFrom) {
			s.sweep(ctx) //nolint:errcheck // retried next tick; a store that is away is reported by the writer
		}
		s.cancels()
		s.prune(ctx) //nolint:errcheck // retried next tick
		cancel()
	}
}

// sweep fails the running tasks of replicas whose lease expired.
func (s *Store) sweep(ctx context.Context) error {
	dead, err := s.column(ctx, `SELECT id FROM a2a_replicas WHERE lease_until < ?`, s.opts.Now().UnixNano())
	if err != nil {
		return err
	}
	for _, id := range dead {
		msg := fmt.Sprintf("replica %s stopped while the task was running (its lease of %s expired)", id, s.opts.Lease)
		if err := s.failOrphans(ctx, id, msg); err != nil {
			return err
		}
		if _, err := s.db.ExecContext(ctx, s.d.q(`DELETE FROM a2a_replicas WHERE id = ? AND lease_until < ?`), id, s.opts.Now().UnixNano()); err != nil {
			return err
		}
	}
	return nil
}

// failOrphans marks failed the running tasks of owner ("" => of every owner), with msg as the status message.
func (s *Store) failOrphans(ctx context.Context, owner, msg string) error {
	q := `SELECT id FROM a2a_tasks WHERE owner <> ''`
	args := []any{}
	if owner != "" {
		q = `SELECT id FROM a2a_tasks WHERE owner = ?`
		args = append(args, owner)
	}
	ids, err := s.column(ctx, q, args...)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.failOrphan(ctx, a2a.TaskID(id), msg); err != nil {
			return err
		}
	}
	return nil
}

// column runs a query of one text column and returns its values. An error met while reading the rows (the
// connection dropping, a row the server fails to compute) is returned, not taken for the end of the rows.
func (s *Store) column(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.d.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Store) failOrphan(ctx context.Context, id a2a.TaskID, msg string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, Rollback is a no-op
	snap, err := decodeRow(tx.QueryRowContext(ctx, s.d.q(`SELECT `+taskColumns+` FROM a2a_tasks WHERE id = ?`), string(id)))
	if err != nil {
		return fmt.Errorf("read task %s: %w", id, err)
	}
	owner := snap.Owner
	now := s.opts.Now()
	t := snap.Task
	ev := a2a.NewStatusUpdateEvent(t, a2a.TaskStateFailed, a2a.NewMessageForTask(a2a.MessageRoleAgent, t, a2a.NewTextPart(msg)))
	ev.Status.Timestamp = &now
	if t.Status.Message != nil {
		t.History = append(t.History, t.Status.Message)
	}
	t.Status = ev.Status
	snap.Owner, snap.Updated = "", now
	snap.Seq++
	r, err := encodeRow(snap)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, s.d.q(`UPDATE a2a_tasks SET state = ?, status_ts = ?, updated = ?, owner = '', finished = ?, seq = ?, task = ?
		WHERE id = ? AND owner = ?`), string(t.Status.State), r.statusTS, now.UnixNano(), r.finished, snap.Seq, string(r.task), string(id), owner)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // another replica was faster
	}
	if s.d.shared {
		data, err := json.Marshal(struct {
			From   int64                `json:"from"`
			Events []a2a.StreamResponse `json:"events"`
		}{snap.Seq, []a2a.StreamResponse{{Event: ev}}})
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO a2a_events (task_id, seq_to, events) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			string(id), snap.Seq, string(data)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify('a2a_events', $1)`, string(id)); err != nil {
			return err
		}
	}
	s.opts.Logf("task %s: failed: %s\n", id, msg)
	return tx.Commit()
}

// cancels hands the cancel requests for this replica's tasks to OnCancel, and drops requests no one will take.
func (s *Store) cancels() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ids, err := s.column(ctx, `SELECT c.task_id FROM a2a_cancels c JOIN a2a_tasks t ON t.id = c.task_id WHERE t.owner = ?`, s.replica)
	if err != nil {
		return // taken again next tick
	}
	for _, id := range ids {
		if s.opts.OnCancel != nil {
			go s.opts.OnCancel(a2a.TaskID(id))
		}
		s.db.ExecContext(ctx, s.d.q(`DELETE FROM a2a_cancels WHERE task_id = ?`), id) //nolint:errcheck // a request left behind is taken again, harmlessly
	}
}

// prune applies retention to the store: finished tasks past the TTL, then the oldest finished tasks beyond
// MaxTasks, their events, and cancel requests and events of tasks that no longer run.
func (s *Store) prune(ctx context.Context) error {
	if cut := s.cutoff(); cut != 0 {
		if _, err := s.db.ExecContext(ctx, s.d.q(`DELETE FROM a2a_tasks WHERE finished AND updated < ?`), cut); err != nil {
			return err
		}
	}
	if s.opts.MaxTasks > 0 {
		limit := `LIMIT -1 OFFSET ?`
		if s.d.shared {
			limit = `OFFSET ?`
		}
		if _, err := s.db.ExecContext(ctx, s.d.q(`DELETE FROM a2a_tasks WHERE id IN
			(SELECT id FROM a2a_tasks WHERE finished ORDER BY updated DESC, id DESC `+limit+`)`), s.opts.MaxTasks); err != nil {
			return err
		}
	}
	// Events serve replicas following a running task; a minute after it finished, nobody needs them.
	old := s.opts.Now().Add(-time.Minute).UnixNano()
	if _, err := s.db.ExecContext(ctx, s.d.q(`DELETE FROM a2a_events WHERE task_id NOT IN (SELECT id FROM a2a_tasks WHERE NOT finished OR updated >= ?)`), old); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `DELETE FROM a2a_cancels WHERE task_id NOT IN (SELECT id FROM a2a_tasks WHERE owner <> '')`)
	return err
}
