package output

import (
	"bytes"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// PushConfig renders one push notification config. In JSON it is the protocol's
// TaskPushNotificationConfig. The token and credentials are shown only as set or not: text output
// lands in terminals and logs; -o json carries them for programs.
func (p *Printer) PushConfig(c *a2a.PushConfig) error {
	if c == nil {
		return fmt.Errorf("render push config: %w", errNoValue)
	}
	if p.o.Format == JSON {
		return p.writeJSON(c)
	}
	var b bytes.Buffer
	p.pushConfig(&b, c)
	return p.emit(b.Bytes())
}

// PushConfigs renders a task's push notification configs. In JSON it is the protocol's
// ListTaskPushNotificationConfigsResponse.
func (p *Printer) PushConfigs(cs []*a2a.PushConfig) error {
	if p.o.Format == JSON {
		if cs == nil {
			cs = []*a2a.PushConfig{}
		}
		return p.writeJSON(a2a.ListTaskPushConfigResponse{Configs: cs})
	}
	var b bytes.Buffer
	if len(cs) == 0 {
		p.styledField(&b, "Push Configs", none)
	}
	for i, c := range cs {
		if i > 0 {
			b.WriteByte('\n')
		}
		p.pushConfig(&b, c)
	}
	return p.emit(b.Bytes())
}

func (p *Printer) pushConfig(b *bytes.Buffer, c *a2a.PushConfig) {
	p.field(b, "Config ID", c.ID)
	p.field(b, "Task ID", string(c.TaskID))
	p.field(b, "URL", c.URL)
	p.field(b, "Token", setOrNone(c.Token != ""))
	auth := none
	if c.Auth != nil {
		auth = c.Auth.Scheme
		if c.Auth.Credentials != "" {
			auth += " (credentials set)"
		}
	}
	p.field(b, "Authentication", auth)
}

func setOrNone(set bool) string {
	if set {
		return "set"
	}
	return none
}

// PushConfigDeleted confirms a delete: the protocol answers it with nothing, so JSON is {}.
func (p *Printer) PushConfigDeleted(taskID, configID string) error {
	if p.o.Format == JSON {
		return p.writeJSON(struct{}{})
	}
	var b bytes.Buffer
	p.field(&b, "Config ID", configID)
	p.field(&b, "Task ID", taskID)
	p.field(&b, "Deleted", "yes")
	return p.emit(b.Bytes())
}

// NotificationTask starts the text of a push notification for another task than the one before:
// the task and context IDs, as every command touching a task prints them. JSON needs nothing: each
// StreamResponse names its task.
func (p *Printer) NotificationTask(taskID, contextID string) error {
	if p.o.Format == JSON {
		return nil
	}
	var b bytes.Buffer
	p.endPartial(&b)
	p.field(&b, "Task ID", taskID)
	p.field(&b, "Context ID", contextID)
	return p.emit(b.Bytes())
}
