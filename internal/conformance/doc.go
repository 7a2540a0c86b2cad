// Package conformance checks an A2A agent against the requirements of the A2A specification (v1.0 and v0.3) on
// every binding its card lists: the card, the message operations, the error mappings of each wire format, push
// configs, the extended card and equivalence across bindings. Each check carries the TCK's requirement id, its
// level (MUST, SHOULD, MAY) and the specification's section, so a report lines up with the A2A TCK's.
//
// It owns the checks, their run (budget, filters, skips) and the report's renderings (text, JSON, JUnit). It
// reaches the agent only through what its caller hands it (an HTTP client and a function that opens an a2a-go
// client on one interface), so credentials travel as the client sends them. It creates only tasks of its own and
// cancels only those. It must not import cli, serve or any backend.
package conformance
