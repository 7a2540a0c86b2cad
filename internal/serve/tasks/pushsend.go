package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

const (
	pushQueueLen    = 256              // notifications waiting per webhook; beyond it they are dropped and counted
	pushAttempts    = 4                // tries per notification
	pushAttemptWait = 10 * time.Second // bound of one POST
	pushBackoff     = 250 * time.Millisecond
	pushMaxBackoff  = 2 * time.Second
	pushCloseWait   = 500 * time.Millisecond // shutdown waits this long at most for queued notifications
)

// Pusher delivers the events of tasks to their webhooks. Each webhook (task and config ID) has its
// own bounded queue drained by its own goroutine, so events reach a webhook in order, and a webhook
// that is slow or down delays nothing but its own queue: the task's goroutine only appends to the
// queues, and drops (and counts) a notification when a queue is full.
type Pusher struct {
	allow   pushAllow
	client  *http.Client
	log     Logf
	base    context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
	dropped atomic.Int64

	mu     sync.Mutex
	queues map[pushKey]*pushQueue

	attemptWait time.Duration // tests shorten it; 0 => pushAttemptWait
	backoff     time.Duration // 0 => pushBackoff
}

type pushKey struct {
	task a2a.TaskID
	id   string
}

type pushItem struct {
	cfg  *a2a.PushConfig
	body []byte
}

// pushTaskLocked is the task as v0.3 webhooks get it (the whole Task after each event), when r has
// any; nil otherwise, so that tasks without v0.3 webhooks pay nothing.
func pushTaskLocked(r *record) *a2a.Task {
	for _, h := range r.push {
		if h.v03 {
			return snapshot(r.task, nil, true)
		}
	}
	return nil
}

type pushQueue struct {
	items   []pushItem
	running bool
}

func NewPusher(allow []string, log Logf, opts ...PusherOption) *Pusher {
	var o pushOptions
	for _, f := range opts {
		f(&o)
	}
	a := newPushAllow(allow, o.offLoopback)
	base, stop := context.WithCancel(context.Background())
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would be a host outside the list
		DialContext:           a.dial,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: pushAttemptWait,
	}
	client := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Pusher{allow: a, client: client, log: log, base: base, stop: stop, queues: map[pushKey]*pushQueue{}}
}

// deliver queues ev for every hook: v1.0 webhooks get the StreamResponse of ev, v0.3 ones the task
// (the snapshot after ev). It never blocks on the network.
func (p *Pusher) deliver(hooks []pushHook, ev a2a.Event, task *a2a.Task) {
	if p == nil || len(hooks) == 0 || p.base.Err() != nil {
		return
	}
	body, err := json.Marshal(a2a.StreamResponse{Event: ev})
	if err != nil {
		p.log.printf("push: encode event: %v\n", err)
		return
	}
	var legacy []byte
	if task != nil {
		if legacy, err = json.Marshal(a2av0.FromV1Task(task)); err != nil {
			p.log.printf("push: encode task: %v\n", err)
			return
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range hooks {
		c, body := h.cfg, body
		if h.v03 {
			body = legacy
		}
		k := pushKey{c.TaskID, c.ID}
		q := p.queues[k]
		if q == nil {
			q = &pushQueue{}
			p.queues[k] = q
		}
		if len(q.items) >= pushQueueLen {
			n := p.dropped.Add(1)
			p.log.printf("push: %s: webhook queue full, notification dropped (%d dropped so far)\n", c.URL, n)
			continue
		}
		q.items = append(q.items, pushItem{cfg: c, body: body})
		if !q.running {
			q.running = true
			p.wg.Add(1)
			go p.drain(k, q)
		}
	}
}

// drain posts the queue's notifications in order and ends when the queue is empty.
func (p *Pusher) drain(k pushKey, q *pushQueue) {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		if len(q.items) == 0 || p.base.Err() != nil {
			q.running = false
			delete(p.queues, k)
			p.mu.Unlock()
			return
		}
		it := q.items[0]
		q.items[0] = pushItem{}
		q.items = q.items[1:]
		p.mu.Unlock()
		if err := p.send(it); err != nil {
			p.log.printf("push: %s: task %s: %v\n", it.cfg.URL, it.cfg.TaskID, err)
		}
	}
}

// send posts one notification, retrying network errors and 5xx/429 answers with bounded backoff.
func (p *Pusher) send(it pushItem) error {
	wait := p.backoff
	if wait <= 0 {
		wait = pushBackoff
	}
	var err error
	for attempt := 1; ; attempt++ {
		var retry bool
		retry, err = p.post(it)
		if err == nil || !retry || attempt == pushAttempts {
			return err
		}
		select {
		case <-time.After(wait):
		case <-p.base.Done():
			return err
		}
		wait = min(2*wait, pushMaxBackoff)
	}
}

func (p *Pusher) post(it pushItem) (retry bool, err error) {
	limit := p.attemptWait
	if limit <= 0 {
		limit = pushAttemptWait
	}
	ctx, cancel := context.WithTimeout(p.base, limit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, it.cfg.URL, bytes.NewReader(it.body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if it.cfg.Token != "" {
		// X-A2A-Notification-Token is the specification's name; a2a-go's receivers read A2A-Notification-Token.
		req.Header.Set("X-A2A-Notification-Token", it.cfg.Token)
		req.Header.Set("A2A-Notification-Token", it.cfg.Token)
	}
	if a := it.cfg.Auth; a != nil && a.Credentials != "" {
		scheme := a.Scheme
		if scheme == "" {
			scheme = "Bearer"
		}
		req.Header.Set("Authorization", scheme+" "+a.Credentials)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return true, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // drained so the connection is reused
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return true, fmt.Errorf("webhook answered %s", resp.Status)
	}
	return false, fmt.Errorf("webhook answered %s", resp.Status)
}

// close stops delivering: notifications still queued get a moment (at most pushCloseWait, within
// ctx) to go out, then are abandoned.
func (p *Pusher) close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, pushCloseWait)
	defer cancel()
	done := make(chan struct{})
	go func() {
		p.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		p.stop()
		return nil
	case <-ctx.Done():
		p.stop()
		<-done
		return nil
	}
}
