// A Terraform provider (protocol 6) that answers from a gRPC log recorded by the Go
// implementation (pulumi-terraform-bridge's PULUMI_TF_DEBUG_GRPC format: a JSON list of
// {name, request, response}, requests in protobuf text format, responses in JSON), for the
// conformance tier's log-replay tests (tests/peer/conformance/replay.rs).
//
// Each call takes the next recorded call of its method, answers its recorded response, and
// checks the request against the recorded one: every field that differs, and every call the
// log has no entry left for, is appended as a JSON line to $REPLAY_MISMATCHES, so a test can
// assert the requests ours sends. A call the log has no entry for is answered Unimplemented,
// but for UpgradeResourceState, answered with the state as it is (Terraform core upgrades every
// prior state; the Go implementation, which recorded the logs, does not), so that the calls
// after it are checked too.
//
// Environment: REPLAY_LOG (the log), REPLAY_MISMATCHES (the file to append mismatches to).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/vendored/tfplugin6"
)

type recorded struct {
	Name     string `json:"name"`
	Request  string `json:"request"`
	Response string `json:"response"`
}

// Mismatch is one line of $REPLAY_MISMATCHES: the call (`<method>#<n>`), the field, and its
// recorded and received values as canonical protojson of a message holding only that field.
type Mismatch struct {
	Call   string `json:"call"`
	Field  string `json:"field"`
	Logged string `json:"logged"`
	Got    string `json:"got"`
}

type replay struct {
	tfplugin6.UnimplementedProviderServer
	mu         sync.Mutex
	calls      map[string][]recorded
	seen       map[string]int
	mismatches *os.File
}

func (r *replay) report(m Mismatch) {
	line, _ := json.Marshal(m)
	_, _ = r.mismatches.Write(append(line, '\n'))
}

// answer checks req against the next recorded call of method and fills resp from it.
func answer[Resp proto.Message](r *replay, method string, req proto.Message, resp Resp) (Resp, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[method]++
	call := fmt.Sprintf("%s#%d", method, r.seen[method])
	queue := r.calls[method]
	if len(queue) == 0 {
		r.report(Mismatch{Call: call, Field: "(call)", Logged: "(none left)", Got: compact(req)})
		if upgrade, ok := req.(*tfplugin6.UpgradeResourceState_Request); ok {
			// The state as it is, so that the calls after it can be checked too.
			var answer any = &tfplugin6.UpgradeResourceState_Response{
				UpgradedState: &tfplugin6.DynamicValue{Json: upgrade.GetRawState().GetJson()},
			}
			return answer.(Resp), nil
		}
		var zero Resp
		return zero, status.Errorf(codes.Unimplemented, "replay: the log has no %s left", method)
	}
	next := queue[0]
	r.calls[method] = queue[1:]
	logged := req.ProtoReflect().New().Interface()
	if err := prototext.Unmarshal([]byte(next.Request), logged); err != nil {
		var zero Resp
		return zero, status.Errorf(codes.Internal, "replay: the logged %s request: %v", call, err)
	}
	compare(r, call, "", logged.ProtoReflect(), req.ProtoReflect())
	if err := json.Unmarshal([]byte(next.Response), resp); err != nil {
		var zero Resp
		return zero, status.Errorf(codes.Internal, "replay: the logged %s response: %v", call, err)
	}
	return resp, nil
}

// compare reports every field set in either message whose values differ, descending into
// messages set in both.
func compare(r *replay, call, prefix string, logged, got protoreflect.Message) {
	fields := logged.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !logged.Has(fd) && !got.Has(fd) {
			continue
		}
		name := prefix + string(fd.Name())
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() && logged.Has(fd) && got.Has(fd) {
			compare(r, call, name+".", logged.Get(fd).Message(), got.Get(fd).Message())
			continue
		}
		if !logged.Get(fd).Equal(got.Get(fd)) {
			r.report(Mismatch{Call: call, Field: name, Logged: value(logged, fd), Got: value(got, fd)})
		}
	}
}

func value(m protoreflect.Message, fd protoreflect.FieldDescriptor) string {
	if !m.Has(fd) {
		return "(unset)"
	}
	one := m.New()
	one.Set(fd, m.Get(fd))
	return compact(one.Interface())
}

// compact is m as JSON with sorted keys and no spaces: protojson, re-marshalled, since
// protobuf-go puts random spaces into its text and JSON output to keep it from being compared.
func compact(m proto.Message) string {
	text, err := protojson.Marshal(m)
	if err != nil {
		return err.Error()
	}
	var value any
	if err := json.Unmarshal(text, &value); err != nil {
		return err.Error()
	}
	canonical, _ := json.Marshal(value)
	return string(canonical)
}

func (r *replay) GetMetadata(_ context.Context, q *tfplugin6.GetMetadata_Request) (*tfplugin6.GetMetadata_Response, error) {
	return answer(r, "GetMetadata", q, &tfplugin6.GetMetadata_Response{})
}

func (r *replay) GetProviderSchema(_ context.Context, q *tfplugin6.GetProviderSchema_Request) (*tfplugin6.GetProviderSchema_Response, error) {
	return answer(r, "GetProviderSchema", q, &tfplugin6.GetProviderSchema_Response{})
}

func (r *replay) ValidateProviderConfig(_ context.Context, q *tfplugin6.ValidateProviderConfig_Request) (*tfplugin6.ValidateProviderConfig_Response, error) {
	return answer(r, "ValidateProviderConfig", q, &tfplugin6.ValidateProviderConfig_Response{})
}

func (r *replay) ValidateResourceConfig(_ context.Context, q *tfplugin6.ValidateResourceConfig_Request) (*tfplugin6.ValidateResourceConfig_Response, error) {
	return answer(r, "ValidateResourceConfig", q, &tfplugin6.ValidateResourceConfig_Response{})
}

func (r *replay) UpgradeResourceState(_ context.Context, q *tfplugin6.UpgradeResourceState_Request) (*tfplugin6.UpgradeResourceState_Response, error) {
	return answer(r, "UpgradeResourceState", q, &tfplugin6.UpgradeResourceState_Response{})
}

func (r *replay) ConfigureProvider(_ context.Context, q *tfplugin6.ConfigureProvider_Request) (*tfplugin6.ConfigureProvider_Response, error) {
	return answer(r, "ConfigureProvider", q, &tfplugin6.ConfigureProvider_Response{})
}

func (r *replay) ReadResource(_ context.Context, q *tfplugin6.ReadResource_Request) (*tfplugin6.ReadResource_Response, error) {
	return answer(r, "ReadResource", q, &tfplugin6.ReadResource_Response{})
}

func (r *replay) PlanResourceChange(_ context.Context, q *tfplugin6.PlanResourceChange_Request) (*tfplugin6.PlanResourceChange_Response, error) {
	return answer(r, "PlanResourceChange", q, &tfplugin6.PlanResourceChange_Response{})
}

func (r *replay) ApplyResourceChange(_ context.Context, q *tfplugin6.ApplyResourceChange_Request) (*tfplugin6.ApplyResourceChange_Response, error) {
	return answer(r, "ApplyResourceChange", q, &tfplugin6.ApplyResourceChange_Response{})
}

func (r *replay) StopProvider(context.Context, *tfplugin6.StopProvider_Request) (*tfplugin6.StopProvider_Response, error) {
	// Closing the provider is the plugin's business, not a recorded call.
	return &tfplugin6.StopProvider_Response{}, nil
}

type providerPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	server *replay
}

func (p *providerPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	tfplugin6.RegisterProviderServer(s, p.server)
	return nil
}

func (p *providerPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (interface{}, error) {
	return nil, fmt.Errorf("a server only")
}

func main() {
	text, err := os.ReadFile(os.Getenv("REPLAY_LOG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay: REPLAY_LOG:", err)
		os.Exit(1)
	}
	var log []recorded
	if err := json.Unmarshal(text, &log); err != nil {
		fmt.Fprintln(os.Stderr, "replay: REPLAY_LOG is not a gRPC log:", err)
		os.Exit(1)
	}
	mismatches, err := os.OpenFile(os.Getenv("REPLAY_MISMATCHES"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay: REPLAY_MISMATCHES:", err)
		os.Exit(1)
	}
	server := &replay{calls: map[string][]recorded{}, seen: map[string]int{}, mismatches: mismatches}
	for _, call := range log {
		method := call.Name[strings.LastIndex(call.Name, ".")+1:]
		server.calls[method] = append(server.calls[method], call)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  6,
			MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
			MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
		},
		Plugins:    plugin.PluginSet{"provider": &providerPlugin{server: server}},
		GRPCServer: plugin.DefaultGRPCServer,
	})
}
