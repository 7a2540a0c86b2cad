package client

import (
	"errors"
	"fmt"
	"testing"

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
