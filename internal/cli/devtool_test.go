package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestDevtoolCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		o       devtoolOptions
		task    string
		wantErr string
		want    []coder.Confirm
	}{
		{name: "no flags", o: devtoolOptions{}},
		{name: "workspace", o: devtoolOptions{workspace: dir}},
		{name: "missing workspace", o: devtoolOptions{workspace: filepath.Join(dir, "nope")}, wantErr: "invalid --workspace"},
		{name: "workspace is a file", o: devtoolOptions{workspace: file}, wantErr: "not a directory"},
		{name: "confirm without task", o: devtoolOptions{confirm: []string{"c1=approve"}}, wantErr: "--confirm answers a tool call of an existing task"},
		{name: "confirm without option", o: devtoolOptions{confirm: []string{"c1"}}, task: "t", wantErr: "want CALLID=OPTION"},
		{name: "confirm empty option", o: devtoolOptions{confirm: []string{"c1="}}, task: "t", wantErr: "want CALLID=OPTION"},
		{name: "confirm", o: devtoolOptions{confirm: []string{"c1=approve", " c2 = proceed_always_tool"}}, task: "t",
			want: []coder.Confirm{{CallID: "c1", Option: "approve"}, {CallID: "c2", Option: "proceed_always_tool"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.answerTimeout = time.Second
			err := o.check(tt.task)
			if tt.wantErr != "" {
				var ue *client.UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("check() = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("check() = %v", err)
			}
			if diff := cmp.Diff(tt.want, o.answers); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
			if o.workspace != "" && !filepath.IsAbs(o.workspace) {
				t.Errorf("workspace %q is not absolute", o.workspace)
			}
		})
	}
}

func TestDevtoolCheckMakesWorkspaceAbsolute(t *testing.T) {
	// Not parallel: changes the working directory.
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("ws", 0o755); err != nil {
		t.Fatal(err)
	}
	o := devtoolOptions{workspace: "ws", answerTimeout: time.Second}
	if err := o.check(""); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Abs("ws")
	if o.workspace != want {
		t.Errorf("workspace = %q, want %q", o.workspace, want)
	}
}

func TestApplySettings(t *testing.T) {
	t.Parallel()
	o := devtoolOptions{workspace: "/abs/ws", autoExecute: true}
	first := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))
	o.applySettings(first)
	want := devtool.SettingsMetadata("/abs/ws", true)
	if diff := cmp.Diff(want, first.Metadata); diff != "" {
		t.Errorf("first message metadata (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{devtool.URI}, first.Extensions); diff != "" {
		t.Errorf("first message extensions (-want +got):\n%s", diff)
	}
	follow := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("more"))
	follow.TaskID = "t1"
	o.applySettings(follow)
	if follow.Metadata != nil {
		t.Errorf("follow-up metadata = %v, want none: settings go on a task's first message only", follow.Metadata)
	}
}
