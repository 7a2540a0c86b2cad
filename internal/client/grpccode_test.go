package client

import (
	"errors"
	"fmt"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestGRPCCode: the status grpcConnErr names in a message is read back, through a2a-go's wrapping too.
func TestGRPCCode(t *testing.T) {
	named := grpcConnErr(status.Error(codes.Unimplemented, "task is already completed"))
	wrapped := fmt.Errorf("send: %w", errors.New(named.Error()))
	for _, c := range []struct {
		err  error
		want codes.Code
		ok   bool
	}{
		{named, codes.Unimplemented, true},
		{wrapped, codes.Unimplemented, true},
		{grpcConnErr(status.Error(codes.NotFound, "")), codes.NotFound, true},
		{errors.New("plain"), codes.OK, false},
		{nil, codes.OK, false},
	} {
		got, ok := GRPCCode(c.err)
		if got != c.want || ok != c.ok {
			t.Errorf("GRPCCode(%v) = %v, %v; want %v, %v", c.err, got, ok, c.want, c.ok)
		}
	}
}

// TestGRPCSpecCodes: an A2A error the specification answers UNIMPLEMENTED (UnsupportedOperationError) reaches a2a-go
// under the code its table knows (FAILED_PRECONDITION), so it is read as that error and not as an InternalError;
// GRPCCode still reads the status that came. Other UNIMPLEMENTED answers (a method the server lacks) keep their code.
func TestGRPCSpecCodes(t *testing.T) {
	st, err := status.New(codes.Unimplemented, "too many subscriptions").WithDetails(
		&errdetails.ErrorInfo{Reason: "UNSUPPORTED_OPERATION", Domain: a2a.ProtocolDomain})
	if err != nil {
		t.Fatal(err)
	}
	got := grpcConnErr(st.Err())
	if c := status.Code(got); c != codes.FailedPrecondition {
		t.Errorf("code for a2a-go %v, want FailedPrecondition", c)
	}
	if c, ok := GRPCCode(got); c != codes.Unimplemented || !ok {
		t.Errorf("GRPCCode = %v, %v; want Unimplemented", c, ok)
	}
	if c := status.Code(grpcConnErr(status.Error(codes.Unimplemented, "unknown method"))); c != codes.Unimplemented {
		t.Errorf("a plain UNIMPLEMENTED became %v", c)
	}
}
