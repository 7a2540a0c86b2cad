package proxy

import (
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Kind says who answers a request reaching the proxy over HTTP.
type Kind int

const (
	Ours  Kind = iota // served by the server whatever the upstream (the agent card)
	A2A               // an A2A call on one of the server's HTTP bindings
	Other             // a path none of the server's bindings owns but the development tool's: GET /listCommands, POST /executeCommand
	// Unrouted is a request no binding routes: a method or path shape no A2A table names, a path with
	// . or .. segments. The proxy answers it 404 and never forwards it (it would carry the operator's
	// credentials to any path of the upstream).
	Unrouted
)

// Binding is an HTTP binding at one protocol version ("1.0" or "0.3").
type Binding struct {
	Protocol a2a.TransportProtocol
	Version  string
}

// Route is a classified request: for REST calls the method and task come from the route, for
// JSON-RPC calls the proxy reads them from the body.
type Route struct {
	Kind    Kind
	Binding Binding
	Method  string // the name the traffic log shows
	TaskID  string
}

// Routes is the server's route table as the proxy reads it. The server owns the table (package
// serve mounts its mux from it); the proxy only asks it.
type Routes interface {
	// Classify names the binding and version the server's mux hands r to.
	Classify(r *http.Request) Route
	// RPCMethod is the traffic log's name of a JSON-RPC method of either protocol version.
	RPCMethod(method string) string
}
