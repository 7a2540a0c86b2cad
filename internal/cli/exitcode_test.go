package cli

import "github.com/a2acli/a2a/internal/exitcode"

// The exit and error codes under the short names the verb tests use.
const (
	exitOK          = exitcode.OK
	exitFailure     = exitcode.Failure
	exitUsage       = exitcode.Usage
	exitUnreachable = exitcode.Unreachable
	exitAuth        = exitcode.Auth
	exitTimeout     = exitcode.Timeout
	exitTaskFailed  = exitcode.TaskFailed
	exitTaskPaused  = exitcode.TaskPaused
	exitInterrupted = exitcode.Interrupted

	codeUsage              = exitcode.CodeUsage
	codeCardNotFound       = exitcode.CodeCardNotFound
	codeCardInvalid        = exitcode.CodeCardInvalid
	codeUnreachable        = exitcode.CodeUnreachable
	codeCredentialsMissing = exitcode.CodeCredentialsMissing
	codeAuthFailed         = exitcode.CodeAuthFailed
	codeTimeout            = exitcode.CodeTimeout
	codeInterrupted        = exitcode.CodeInterrupted
	codeInternal           = exitcode.CodeInternal
	codeTaskFailed         = exitcode.CodeTaskFailed
	codeTaskPaused         = exitcode.CodeTaskPaused
	codeStreamLost         = exitcode.CodeStreamLost
	codeTooLarge           = exitcode.CodeTooLarge
)
