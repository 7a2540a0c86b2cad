// Package cardcheck validates an agent card: against the A2A JSON Schema of its version (v1.0 or v0.3, embedded
// under schema/) and by the lint rules a schema cannot say (absolute interface URLs, known bindings, security
// requirements that name declared schemes, a reachable jku). Each finding has a JSON Pointer path, a message and a
// level. It serves `discover --validate`, `card get --validate` and `a2a conformance` alike; it knows nothing of the
// CLI and imports cardsig only (for the jku rules).
package cardcheck
