package client

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// defaultPageSize is the page size the specification gives a ListTasks request that sets none.
const defaultPageSize = 50

// grpcPageSize is a v1.0 gRPC transport whose ListTasks asks for the default page size when the request sets none.
// a2a-go's gRPC transport writes an unset page size as page_size 0, which servers that hold to the specification's
// 1-100 refuse (a2a-js 1.3.0: "pageSize must be between 1 and 100"); JSON-RPC and HTTP+JSON leave it out.
type grpcPageSize struct{ a2aclient.Transport }

func (t grpcPageSize) ListTasks(ctx context.Context, params a2aclient.ServiceParams, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if req != nil && req.PageSize == 0 {
		r := *req
		r.PageSize = defaultPageSize
		req = &r
	}
	return t.Transport.ListTasks(ctx, params, req)
}
