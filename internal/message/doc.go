// Package message builds the Message `a2a send` sends from whichever way the user gave it (Input, Build): the
// text argument (or stdin), --json, --parts, -f, --file parts (media type from the name or content) and --data; it
// accepts v0.3 and v1.0 shapes of messages and parts and reads stdin at most once. Bad input is a usage error.
//
// It depends on internal/client (for its usage errors) and a2a-go's types only: it must not import cobra or
// internal/cli, and it prints nothing.
package message
