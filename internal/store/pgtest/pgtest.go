// Package pgtest runs a throwaway PostgreSQL server for tests: the machine's own PostgreSQL binaries
// (/usr/lib/postgresql/*/bin), a cluster in a temporary directory, listening on a free loopback port, run as the
// postgres user when the tests run as root. It is for tests only.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/a2acli/a2a/internal/testskip"
)

// Server is a running (or stopped) PostgreSQL cluster.
type Server struct {
	Port int
	dir  string
	bin  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{}
	dbs  atomic.Int64
}

// ErrMissing says the PostgreSQL binaries are not installed.
var ErrMissing = errors.New("PostgreSQL binaries not found in /usr/lib/postgresql/*/bin (install the postgresql package)")

// Bin returns the newest /usr/lib/postgresql/*/bin holding initdb and postgres.
func Bin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin") // the pattern is valid
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrMissing
}

// New creates a cluster in a temporary directory and starts it. Stop it with Close.
func New() (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "a2a-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid) // numeric on Unix
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	initdb := s.command("initdb", "-D", s.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
	var out []byte
	offMainThread(func() { out, err = initdb.CombinedOutput() })
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	// A free port can be taken by another test process's server between our probe and its bind: try others.
	for try := 0; ; try++ {
		err = s.Start()
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errExited) || try == 4 {
			os.RemoveAll(dir)
			return nil, err
		}
		s.Port = 0
	}
}

var errExited = errors.New("postgres exited")

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true}
	return cmd
}

// offMainThread runs f on a goroutine locked to an OS thread other than the process's main thread, so that the
// processes f starts are children of that thread: a program whose main thread is a child subreaper (serve's exec
// guard, in serve's own tests) sweeps the main thread's unaccounted children at shutdown, and must not take a
// test's PostgreSQL (or its initdb) for one.
func offMainThread(f func()) {
	done := make(chan struct{})
	var try func()
	try = func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if syscall.Gettid() == os.Getpid() {
			inner := make(chan struct{})
			go func() { try(); close(inner) }() // on another thread: this one stays locked meanwhile
			<-inner
			return
		}
		f()
		close(done)
	}
	go try()
	<-done
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Start starts the server (again, after Stop, on the same port) and waits until it accepts connections.
func (s *Server) Start() error {
	if s.Port == 0 {
		p, err := freePort()
		if err != nil {
			return err
		}
		s.Port = p
	}
	s.cmd = s.command("postgres", "-D", s.data(), "-p", strconv.Itoa(s.Port), "-k", s.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200")
	logf, err := os.OpenFile(filepath.Join(s.dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644) // removed with the directory
	if err != nil {
		return err
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	// Pdeathsig: a test binary that panics or is killed never reaches Close; the server must not outlive it
	// (SIGQUIT is PostgreSQL's immediate shutdown). The signal comes when the OS thread that started the
	// process exits, and Go may end idle threads: the server is started and waited for on a thread locked
	// to one goroutine, which lives as long as the server.
	s.cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	s.done = make(chan struct{})
	started := make(chan error, 1)
	go offMainThread(func() {
		defer close(s.done)
		defer logf.Close()
		if err := s.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		s.cmd.Wait() //nolint:errcheck // the exit is seen through done
	})
	if err := <-started; err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	delay := 5 * time.Millisecond
	for {
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			// The port may belong to another test process's server: only ours will do.
			var dataDir string
			err = conn.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&dataDir)
			conn.Close(ctx)
			if err == nil && dataDir == s.data() {
				return nil
			}
		}
		select {
		case <-s.done:
			log, _ := os.ReadFile(logf.Name()) // best effort: for the message
			return fmt.Errorf("%w: %s", errExited, log)
		case <-ctx.Done():
			s.Stop()
			return fmt.Errorf("postgres not ready: %w", err)
		case <-time.After(delay): // polling for readiness: the server has no other signal
			delay = min(2*delay, 100*time.Millisecond)
		}
	}
}

// Stop shuts the server down (fast shutdown: open connections are closed) and waits for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGINT) //nolint:errcheck // an exited process is fine
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // last resort
		<-s.done
	}
	s.cmd = nil
}

// Close stops the server and removes its directory.
func (s *Server) Close() {
	s.Stop()
	os.RemoveAll(s.dir)
}

// URL is the connection URL of database db, with a password the server ignores (trust authentication), so that
// tests see it redacted.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres:s3cret-pw@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// NewDB creates a fresh database and returns its URL.
func (s *Server) NewDB() (string, error) {
	name := fmt.Sprintf("t%d", s.dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return s.URL(name), nil
}

// Main is for TestMain: it starts a server for the package's tests and returns it with a function that stops it.
// Without PostgreSQL binaries it returns nil (tests then skip through Need), unless CI=1.
func Main() (*Server, func(), error) {
	s, err := New()
	if errors.Is(err, ErrMissing) && os.Getenv("CI") != "1" {
		return nil, func() {}, nil
	}
	if err != nil {
		return nil, func() {}, err
	}
	return s, s.Close, nil
}

// TB is the part of testing.TB that Need and Shared use.
type TB interface {
	Helper()
	Name() string
	Skip(args ...any)
	Fatal(args ...any)
}

// Shared is the one server of a test package, started by the first test that asks for a database (Main's rules:
// nil without binaries unless CI=1) and stopped by the package's TestMain through Stop. The zero value is ready.
type Shared struct {
	once sync.Once
	srv  *Server
	stop func()
	err  error
}

// Server starts the shared server on first use: nil without PostgreSQL binaries (outside CI).
func (p *Shared) Server() (*Server, error) {
	p.once.Do(func() { p.srv, p.stop, p.err = Main() })
	return p.srv, p.err
}

// NewDB returns the URL of a fresh database on the shared server; it skips t without PostgreSQL binaries and fails
// it when the server cannot start.
func (p *Shared) NewDB(t TB) string {
	t.Helper()
	srv, err := p.Server()
	if err != nil {
		t.Fatal("start PostgreSQL: ", err)
	}
	Need(t, srv)
	u, err := srv.NewDB()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Stop stops the shared server if it started.
func (p *Shared) Stop() {
	if p.stop != nil {
		p.stop()
	}
}

// Need skips the test when s is nil (no PostgreSQL binaries).
func Need(t TB, s *Server) {
	t.Helper()
	if s == nil {
		testskip.Missing(t, testskip.PostgreSQL, ErrMissing.Error()+"; skipped (CI=1 makes this a failure)")
	}
}
