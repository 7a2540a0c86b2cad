package output

import (
	"bytes"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi"
)

// taskTable writes tasks as an aligned table: a header, one row per task (id, context, state, last update, and the
// status message when any task has one). Columns are padded on the plain text, so colour does not shift them;
// nothing is truncated, so a pipe gets every byte (awk '{print $1}' gives the ids).
func (p *Printer) taskTable(b *bytes.Buffer, tasks []*a2a.Task) {
	header := []string{"TASK ID", "CONTEXT ID", "STATE", "UPDATED", "MESSAGE"}
	rows := [][]string{}
	var states []a2a.TaskState
	for _, t := range tasks {
		if t == nil {
			continue
		}
		updated := "-"
		if ts := t.Status.Timestamp; ts != nil {
			updated = ts.UTC().Format(time.RFC3339)
		}
		msg := strings.Join(strings.Fields(Sanitize(messageText(t.Status.Message))), " ")
		states = append(states, t.Status.State)
		rows = append(rows, []string{Sanitize(string(t.ID)), Sanitize(t.ContextID), ShortState(t.Status.State), updated, msg})
	}
	hasMsg := false
	for _, r := range rows {
		hasMsg = hasMsg || r[4] != ""
	}
	if !hasMsg {
		header = header[:4]
		for i := range rows {
			rows[i] = rows[i][:4]
		}
	}
	width := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			width[i] = max(width[i], cellWidth(c))
		}
	}
	line := func(cells []string, style func(i int, c string) string) {
		var l strings.Builder
		for i, c := range cells {
			last := i == len(cells)-1
			l.WriteString(style(i, c))
			if !last {
				l.WriteString(strings.Repeat(" ", width[i]-cellWidth(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	line(header, func(_ int, c string) string { return p.st.paint(p.st.label, c) })
	for i, r := range rows {
		state := states[i]
		line(r, func(col int, c string) string {
			if col == 2 {
				return p.st.stateWord(state)
			}
			return c
		})
	}
}

// cellWidth is the width of s in terminal cells, its widest line's, escape sequences not counted (as lipgloss.Width).
func cellWidth(s string) int {
	w := 0
	for line := range strings.SplitSeq(s, "\n") {
		w = max(w, ansi.StringWidth(line))
	}
	return w
}
