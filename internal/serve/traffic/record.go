package traffic

import "time"

// The calls a backend records itself (the proxy's byte path, which no request handler sees) use
// Record, Watch, Event, HandOff and Finish.

// Start is when the call began.
func (c *Call) Start() time.Time { return c.start }

// Watch hands the call to the observer, if any, and reports whether it follows the call.
func (c *Call) Watch(s CallStart) bool {
	if c.l.obs != nil {
		c.watch = c.l.obs.Begin(s)
	}
	return c.watch != nil
}

// Event shows the observer one answer or stream event, as the bytes on the wire (the slice is the observer's).
func (c *Call) Event(raw []byte) {
	if c.watch != nil {
		c.watch.Event(raw)
	}
}

// HandOff forgets a call that another record counts and reports (the proxy handing a call to the A2A handler).
func (c *Call) HandOff() {
	c.l.metrics.dropped(c)
	c.endWatch(nil, true)
}

// Finish ends the call with what the caller saw of it: the task, its state, the bytes and events of the answer.
func (c *Call) Finish(id, state string, bytes, events int, err error) {
	c.id, c.state, c.bytes, c.events = id, state, bytes, events
	c.end(err)
}
