// Command oidcop runs zitadel/oidc's example OpenID Provider (github.com/zitadel/oidc/v3/example/server: its
// exampleop router and in-memory storage, unchanged) on 127.0.0.1 with a free port, for the tests of `a2a auth`. It
// prints "listening on http://127.0.0.1:PORT" once it accepts connections. Clients: sid1/verysecret (client
// credentials, the example's service user), device/devsecret (device code), native (authorization code with PKCE,
// a loopback redirect on any port).
package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

// users is the example's user store, where a token's subject is found by id, by username (the device flow's
// subject is the username that approved it) or as the service user sid1 (the client-credentials flow's subject),
// so that the userinfo endpoint answers for every token this server issued and still knows.
type users struct{ storage.UserStore }

func (u users) GetUserByID(id string) *storage.User {
	if usr := u.UserStore.GetUserByID(id); usr != nil {
		return usr
	}
	if usr := u.UserStore.GetUserByUsername(id); usr != nil {
		return usr
	}
	if id == "sid1" {
		return &storage.User{ID: "sid1", Username: "sid1"}
	}
	return nil
}

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	issuer := fmt.Sprintf("http://%s/", ln.Addr())
	storage.RegisterClients(
		storage.DeviceClient("device", "devsecret"),
		storage.NativeClient("native", "http://127.0.0.1/callback"),
	)
	stor := storage.NewStorage(users{storage.NewUserStore(issuer)})
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	router := exampleop.SetupServer(issuer, stor, logger, false)
	fmt.Fprintf(os.Stderr, "listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: router, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
