package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScript runs the CLI transcripts in testdata/script: each .txtar is what a user types and what a2a answers,
// run against the binary TestMain built, found on PATH as `a2a`, in a fresh directory with HOME=/no-home (no
// dotenv file of the machine's leaks in). Run one with `go test ./e2e -run TestScript/NAME`.
//
// Besides testscript's own commands (exec, stdout, stderr, cmp, …) the scripts have:
//
//	start NAME [VAR=value…] PROGRAM ARGS…  start PROGRAM in the background (its own process group) and wait for its
//	                                       "listening on URL" line on stderr; $NAME_URL is then URL, $NAME_HOSTPORT
//	                                       its host:port, $NAME_PORT its port. Stopped (SIGTERM to the group) when the script ends.
//	bg NAME [VAR=value…] PROGRAM ARGS…     start PROGRAM in the background as start does, without waiting for anything.
//	[!] sigterm NAME [CODE]                SIGTERM NAME's group and wait for it to exit: with CODE, that exit code;
//	                                       else 0 (not 0 with !). stdout and stderr are then what NAME wrote.
//	[!] interrupt NAME [CODE]              the same with SIGINT, as Ctrl-C on a terminal sends.
//	[!] await NAME [CODE]                  wait for NAME to exit on its own, as sigterm does but without a signal.
//	waitline NAME REGEXP                   wait until a line NAME wrote (stdout or stderr) matches REGEXP.
//	status CODE PROGRAM ARGS…              run PROGRAM as exec does and require exit status CODE.
//	setenv VAR stdout|FILE                 set $VAR to the last command's stdout (or a file), trailing newline cut.
//
// $nl is a newline (for --chunk=$nl), $RECORDINGS the repository's testdata/recordings. Waits are bounded (scriptWait) and never sleep: a process that does not
// say what is awaited fails the script with what it wrote.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			for i, kv := range env.Vars {
				if v, ok := strings.CutPrefix(kv, "PATH="); ok {
					env.Vars[i] = "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + v
				}
			}
			recordings, err := filepath.Abs(filepath.Join("..", "testdata", "recordings"))
			if err != nil {
				return err
			}
			env.Vars = append(env.Vars, "NO_COLOR=1", "nl=\n", "RECORDINGS="+recordings)
			env.Values[bgKey{}] = &bgSet{t: env.T(), procs: map[string]*bgProc{}}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"start":     func(ts *testscript.TestScript, neg bool, args []string) { cmdStart(ts, neg, args, true) },
			"bg":        func(ts *testscript.TestScript, neg bool, args []string) { cmdStart(ts, neg, args, false) },
			"sigterm":   cmdSignal(syscall.SIGTERM, "sigterm"),
			"interrupt": cmdSignal(syscall.SIGINT, "interrupt"),
			"await":     cmdAwait,
			"waitline":  cmdWaitline,
			"status":    cmdStatus,
			"setenv":    cmdSetenv,
		},
	})
}

// scriptWait bounds every wait of a script command: generous, since a loaded machine is slow, but a hang ends.
const scriptWait = 30 * time.Second

type bgKey struct{}

// bgSet holds a script's background processes by name.
type bgSet struct {
	t     testscript.T // to fail the script from its end, where Fatalf cannot be used
	procs map[string]*bgProc
}

// bgProc is one background process: what it wrote so far, line by line, and whether it has exited.
type bgProc struct {
	name string
	cmd  *exec.Cmd

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever out, errb or exited change
	out     strings.Builder
	errb    strings.Builder
	lines   []string // stdout and stderr lines in arrival order
	died    bool     // the process itself has exited
	exited  bool     // and its output is closed: nothing of its process group holds it open any more
	waitErr error
	readers sync.WaitGroup
}

func bgProcs(ts *testscript.TestScript) *bgSet {
	return ts.Value(bgKey{}).(*bgSet)
}

func lookupBg(ts *testscript.TestScript, name string) *bgProc {
	p := bgProcs(ts).procs[name]
	if p == nil {
		ts.Fatalf("no background process named %s (start it first)", name)
	}
	return p
}

// scriptEnv returns the environment the script's exec would give a command. testscript keeps it unexported;
// reflection reads it (read-only) so a process started here sees what `env` set earlier in the script.
func scriptEnv(ts *testscript.TestScript) []string {
	v := reflect.ValueOf(ts).Elem().FieldByName("env")
	if !v.IsValid() || v.Kind() != reflect.Slice {
		ts.Fatalf("testscript.TestScript has no env []string field any more: update scriptEnv")
	}
	env := make([]string, v.Len())
	for i := range env {
		env[i] = v.Index(i).String()
	}
	return env
}

// notify wakes every waiter; call with p.mu held.
func (p *bgProc) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// read copies one stream line by line into buf and lines.
func (p *bgProc) read(r *os.File, buf *strings.Builder) {
	defer p.readers.Done()
	defer r.Close()
	sc := bufio.NewReader(r)
	for {
		line, err := sc.ReadString('\n')
		if line != "" {
			p.mu.Lock()
			buf.WriteString(line)
			p.lines = append(p.lines, strings.TrimSuffix(line, "\n"))
			p.notify()
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// waitFor waits until cond (called with p.mu held) holds, or scriptWait passes; it reports whether cond held.
func (p *bgProc) waitFor(cond func() bool) bool {
	deadline := time.NewTimer(scriptWait)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		ok, ch := cond(), p.changed
		p.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			p.mu.Lock()
			defer p.mu.Unlock()
			return cond()
		}
	}
}

func (p *bgProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("[%s stdout]\n%s[%s stderr]\n%s", p.name, p.out.String(), p.name, p.errb.String())
}

// notGone says why p does not count as gone: it still runs, or something it left behind holds its output open.
func (p *bgProc) notGone() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.died {
		return fmt.Sprintf("exited (%v), but a process it left behind in its group kept its output open", p.waitErr)
	}
	return "did not exit"
}

// signal sends sig to p's process group.
func (p *bgProc) signal(sig syscall.Signal) {
	syscall.Kill(-p.cmd.Process.Pid, sig)
}

// stop stops p's process group: sig, then SIGKILL if it is still there after scriptWait. It reports whether sig
// was enough.
func (p *bgProc) stop(sig syscall.Signal) bool {
	p.signal(sig)
	if p.waitFor(func() bool { return p.exited }) {
		p.signal(syscall.SIGKILL) // anything the process left behind in its group
		return true
	}
	p.signal(syscall.SIGKILL)
	p.waitFor(func() bool { return p.exited })
	return false
}

// cmdStart starts a background process; with listening, it waits for its "listening on URL" line.
func cmdStart(ts *testscript.TestScript, neg bool, args []string, listening bool) {
	usage := "usage: bg NAME [VAR=value…] PROGRAM ARGS…"
	if listening {
		usage = "usage: start NAME [VAR=value…] PROGRAM ARGS…"
	}
	if neg || len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	name, args := args[0], args[1:]
	set := bgProcs(ts)
	if set.procs[name] != nil {
		ts.Fatalf("background process %s already started", name)
	}
	env := scriptEnv(ts)
	for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-") {
		env = append(env, args[0])
		args = args[1:]
	}
	if len(args) == 0 {
		ts.Fatalf("%s", usage)
	}
	prog := args[0]
	if !strings.Contains(prog, "/") {
		path := ts.Getenv("PATH")
		found := ""
		for _, dir := range filepath.SplitList(path) {
			if fi, err := os.Stat(filepath.Join(dir, prog)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				found = filepath.Join(dir, prog)
				break
			}
		}
		if found == "" {
			ts.Fatalf("start %s: %s not found in PATH", name, prog)
		}
		prog = found
	}
	cmd := exec.Command(prog, args[1:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(env, "PWD="+cmd.Dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	outR, outW, err := os.Pipe()
	ts.Check(err)
	errR, errW, err := os.Pipe()
	ts.Check(err)
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		ts.Fatalf("start %s: %v", name, err)
	}
	p := &bgProc{name: name, cmd: cmd, changed: make(chan struct{})}
	set.procs[name] = p
	p.readers.Add(2)
	go p.read(outR, &p.out)
	go p.read(errR, &p.errb)
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.died, p.waitErr = true, err
		p.notify()
		p.mu.Unlock()
		p.readers.Wait() // a child left behind keeps the pipes open
		p.mu.Lock()
		p.exited = true
		p.notify()
		p.mu.Unlock()
	}()
	ts.Defer(func() {
		p.mu.Lock()
		exited := p.exited
		p.mu.Unlock()
		if !exited && !p.stop(syscall.SIGTERM) {
			set.t.Log(fmt.Sprintf("at the end of the script, %s: %s (waited %v after SIGTERM); killed\n%s",
				name, p.notGone(), scriptWait, p.output()))
			set.t.FailNow()
		}
	})

	if !listening {
		return
	}
	listeningLine := regexp.MustCompile(`^listening on (\S+)`)
	var url string
	ok := p.waitFor(func() bool {
		if p.exited {
			return true
		}
		for _, line := range p.lines {
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				url = m[1]
				return true
			}
		}
		return false
	})
	switch {
	case url != "":
	case ok:
		ts.Fatalf("%s exited (%v) before saying it was listening:\n%s", name, p.waitErr, p.output())
	default:
		ts.Fatalf("%s: no 'listening on' line within %v:\n%s", name, scriptWait, p.output())
	}
	ts.Setenv(name+"_URL", url)
	hostport := url
	if i := strings.Index(hostport, "://"); i >= 0 {
		hostport = hostport[i+3:]
	}
	hostport = strings.TrimSuffix(hostport, "/")
	ts.Setenv(name+"_HOSTPORT", hostport)
	if i := strings.LastIndex(hostport, ":"); i >= 0 {
		ts.Setenv(name+"_PORT", hostport[i+1:])
	}
}

// finish makes NAME's output the script's stdout and stderr and checks its exit status: want (a code, or -1 for
// "0, or not 0 with !").
func finish(ts *testscript.TestScript, p *bgProc, neg bool, want int, how string) {
	p.mu.Lock()
	out, errs, werr := p.out.String(), p.errb.String(), p.waitErr
	p.mu.Unlock()
	fmt.Fprint(ts.Stdout(), out)
	fmt.Fprint(ts.Stderr(), errs)
	delete(bgProcs(ts).procs, p.name)
	got := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		got = ee.ExitCode() // -1 when a signal ended it
	} else if werr != nil {
		ts.Fatalf("%s %s: %v", how, p.name, werr)
	}
	switch {
	case want >= 0 && got != want:
		ts.Fatalf("%s %s: exit %d (%v), want %d", how, p.name, got, werr, want)
	case want < 0 && got != 0 && !neg:
		ts.Fatalf("%s %s: %v", how, p.name, werr)
	case want < 0 && got == 0 && neg:
		ts.Fatalf("%s %s: exited 0, want a failure", how, p.name)
	}
}

// bgArgs parses NAME [CODE].
func bgArgs(ts *testscript.TestScript, neg bool, args []string, cmd string) (*bgProc, int) {
	if len(args) < 1 || len(args) > 2 || (neg && len(args) == 2) {
		ts.Fatalf("usage: [!] %s NAME | %s NAME CODE", cmd, cmd)
	}
	want := -1
	if len(args) == 2 {
		var err error
		if want, err = strconv.Atoi(args[1]); err != nil || want < 0 {
			ts.Fatalf("%s: %q is not an exit code", cmd, args[1])
		}
	}
	return lookupBg(ts, args[0]), want
}

// cmdSignal sends sig to NAME's process group, as a terminal's Ctrl-C (SIGINT) or a service manager (SIGTERM) does,
// and waits for NAME to exit.
func cmdSignal(sig syscall.Signal, cmd string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		p, want := bgArgs(ts, neg, args, cmd)
		if !p.stop(sig) {
			ts.Fatalf("%s: %s (waited %v after %v); killed\n%s", p.name, p.notGone(), scriptWait, sig, p.output())
		}
		finish(ts, p, neg, want, cmd)
	}
}

func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	p, want := bgArgs(ts, neg, args, "await")
	if !p.waitFor(func() bool { return p.exited }) {
		ts.Fatalf("%s: %s (waited %v):\n%s", p.name, p.notGone(), scriptWait, p.output())
	}
	finish(ts, p, neg, want, "await")
}

func cmdWaitline(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitline NAME REGEXP")
	}
	p := lookupBg(ts, args[0])
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	seen := 0
	matched := p.waitFor(func() bool {
		for ; seen < len(p.lines); seen++ {
			if re.MatchString(p.lines[seen]) {
				return true
			}
		}
		return p.exited
	})
	p.mu.Lock()
	found := seen < len(p.lines)
	p.mu.Unlock()
	switch {
	case found:
	case matched:
		ts.Fatalf("%s exited without a line matching %q:\n%s", p.name, args[1], p.output())
	default:
		ts.Fatalf("%s: no line matching %q within %v:\n%s", p.name, args[1], scriptWait, p.output())
	}
}

func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROGRAM ARGS…")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %q is not an exit code", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

func cmdSetenv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: setenv VAR stdout|FILE")
	}
	v := strings.TrimSuffix(ts.ReadFile(args[1]), "\n")
	if v == "" {
		ts.Fatalf("setenv %s: %s is empty", args[0], args[1])
	}
	ts.Setenv(args[0], v)
}
